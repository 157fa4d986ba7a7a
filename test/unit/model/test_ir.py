"""The IR: graph building and editing, the one-line-per-layer printer, and the verifier's refusals."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hls4ml.model.ir import Graph, format_graph
from hls4ml.model.types import FixedPrecisionType, UnspecifiedPrecisionType
from hls4ml.model.verify import VerificationError, verify

DENSE_TYPES = {'result': 'fixed<20,8>', 'accum': 'fixed<20,8>', 'weight': 'fixed<8,2>', 'bias': 'fixed<8,2>'}


@pytest.fixture
def graph(build_layer) -> Graph:
    """x (Input of 4) -> fc (Dense 4->3) -> act (sigmoid), fully typed and valid."""
    graph = Graph()
    build_layer(graph, 'x', 'Input', (), (4,), types={'result': 'fixed<16,6>'}, shape=(4,))
    build_layer(
        graph,
        'fc',
        'Dense',
        ['x'],
        (3,),
        weights={'weight': np.full((4, 3), 0.5), 'bias': np.zeros(3)},
        types=DENSE_TYPES,
        n_in=4,
        n_out=3,
    )
    build_layer(
        graph,
        'act',
        'Activation',
        ['fc'],
        (3,),
        types={'result': 'ufixed<8,0,RND,SAT>', 'table': 'fixed<18,8>'},
        activation='sigmoid',
        n_in=3,
    )
    graph.inputs, graph.outputs = ['x'], ['act']
    return graph


# ---- building and editing ---------------------------------------------------------------------------


def test_queries(graph: Graph) -> None:
    assert graph.producer('fc').name == 'fc'
    assert [layer.name for layer in graph.consumers('x')] == ['fc']
    assert graph.input_type(graph.layers['act']) == FixedPrecisionType(20, 8)
    assert graph.output_tensor(graph.layers['fc']).size == 3
    assert graph.layers['fc'].class_name == 'Dense' and graph.layers['fc'].get_attr('n_out') == 3


def test_two_layers_with_one_name_are_refused(graph: Graph, build_layer) -> None:
    with pytest.raises(ValueError, match="two layers are named 'fc'"):
        build_layer(graph, 'fc', 'Activation', ['x'], (4,), activation='relu')


def test_remove_layer_rewires_consumers_and_outputs(graph: Graph, build_layer) -> None:
    build_layer(graph, 'lin', 'Activation', ['act'], (3,), types={'result': 'fixed<8,1>'}, activation='linear')
    build_layer(graph, 'after', 'Activation', ['lin'], (3,), types={'result': 'fixed<8,1>'}, activation='relu')
    graph.outputs = ['after', 'lin']
    graph.remove_layer(graph.layers['lin'])
    assert graph.layers['after'].inputs == ['act'] and graph.outputs == ['after', 'act']
    assert 'lin' not in graph.tensors and 'lin' not in graph.layers


# ---- format_graph -----------------------------------------------------------------------------------


def test_format_graph_prints_one_line_per_layer(graph: Graph) -> None:
    lines = format_graph(graph).splitlines()
    assert len(lines) == len(graph.layers)
    expected = [('x', 'Input', '4', 'fixed<16,6>'), ('fc', 'Dense', '3', 'fixed<20,8>')]
    expected.append(('act', 'Activation', '3', 'ufixed<8,0,RND,SAT>'))
    for line, (name, kind, shape, result) in zip(lines, expected, strict=True):
        fields = line.split()
        assert fields[0] == name and fields[1] == kind
        assert f'-> {shape} ' in line and f' {result} ' in f'{line} '
    assert 'weight=fixed<8,2>' in lines[1] and 'n_in=4' in lines[1]
    assert 'activation=sigmoid' in lines[2] and ' fc ' in lines[2]


def test_format_graph_shows_shapes_with_x_and_unresolved_types_as_auto(build_layer) -> None:
    graph = Graph()
    build_layer(graph, 'image', 'Input', (), (2, 3), shape=(2, 3))
    (line,) = format_graph(graph).splitlines()
    assert '-> 2x3' in line and ' auto ' in line


# ---- verify -----------------------------------------------------------------------------------------


def test_a_well_formed_graph_passes(graph: Graph) -> None:
    verify(graph)


Breakage = Callable[[Graph], None]


def _set(layer: str, **changes) -> Breakage:
    def apply(graph: Graph) -> None:
        for key, value in changes.items():
            setattr(graph.layers[layer], key, value)

    return apply


def _weight(name: str, value: float) -> Breakage:
    def apply(graph: Graph) -> None:
        graph.layers['fc'].weights[name] = graph.layers['fc'].weights[name].copy()
        graph.layers['fc'].weights[name].flat[1] = value

    return apply


def _type(layer: str, var: str, precision) -> Breakage:
    return lambda graph: graph.layers[layer].types.__setitem__(var, precision)


def _tensor_shape(tensor: str, shape: tuple[int, ...]) -> Breakage:
    return lambda graph: setattr(graph.tensors[tensor], 'shape', shape)


def _attribute(layer: str, key: str, value) -> Breakage:
    return lambda graph: graph.layers[layer].attributes.__setitem__(key, value)


@pytest.mark.parametrize(
    'breakage, words',
    [
        (_weight('weight', np.nan), ["layer 'fc'", "'weight'", 'NaN']),
        (_weight('bias', np.inf), ["layer 'fc'", "'bias'", 'infinite']),
        (lambda graph: graph.layers['fc'].weights.pop('bias'), ["layer 'fc'", "missing weights 'bias'"]),
        (_tensor_shape('act', (4,)), ["layer 'act'", 'output shape']),
        (_attribute('fc', 'n_out', 5), ["layer 'fc'", 'output shape']),
        (_set('act', kind='Swish'), ["layer 'act'", "unknown layer kind 'Swish'"]),
        (_set('act', inputs=['nowhere']), ["layer 'act'", "input 'nowhere' is not produced"]),
        (_type('fc', 'accum', UnspecifiedPrecisionType()), ["layer 'fc'", "'accum'", 'auto']),
        (lambda graph: graph.layers['act'].types.pop('table'), ["layer 'act'", "'table'", 'None']),
        (_set('act', name='my act'), ['not a C++ identifier']),
        (lambda graph: setattr(graph, 'outputs', []), ['no outputs']),
        (lambda graph: setattr(graph, 'outputs', ['gone']), ["'gone'", 'not a tensor']),
    ],
    ids=[
        'nan-weight',
        'inf-bias',
        'missing-weights',
        'output-shape',
        'n_out-vs-shape',
        'unknown-kind',
        'unproduced-input',
        'auto-type',
        'missing-type',
        'bad-name',
        'no-outputs',
        'unknown-output',
    ],
)
def test_verify_refuses_broken_graphs_naming_the_problem(graph: Graph, breakage: Breakage, words: list[str]) -> None:
    breakage(graph)
    with pytest.raises(VerificationError) as caught:
        verify(graph)
    for word in words:
        assert word in str(caught.value)


def test_verify_refuses_an_input_produced_later(graph: Graph) -> None:
    graph.layers['fc'].inputs = ['act']
    with pytest.raises(VerificationError, match="layer 'fc'.*input 'act' is not produced by an earlier layer"):
        verify(graph)


def test_verify_refuses_a_dense_whose_n_in_does_not_match_its_input(graph: Graph) -> None:
    """A broken graph is a VerificationError (not whatever the shape rule happens to raise)."""
    graph.layers['fc'].attributes['n_in'] = 5
    with pytest.raises(VerificationError, match="layer 'fc'"):
        verify(graph)


def test_verify_refuses_weights_of_the_wrong_shape(graph: Graph) -> None:
    graph.layers['fc'].weights['weight'] = np.full((3, 3), 0.5)
    with pytest.raises(VerificationError, match="layer 'fc'.*'weight'"):
        verify(graph)


def test_verify_without_types_accepts_auto(graph: Graph) -> None:
    graph.layers['fc'].types['accum'] = UnspecifiedPrecisionType()
    verify(graph, resolved=False)
