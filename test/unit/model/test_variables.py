"""hls4ml 1.x's view of the IR (model/variables.py and the accessors of model/ir.py), on a hand-built graph."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from hls4ml.model.config import HLSConfig
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.types import FixedPrecisionType, parse_precision


def small_graph() -> Graph:
    graph = Graph()
    source = Layer('x', 'Input', [], ['x'], {'shape': (3,)}, types={'result': parse_precision('fixed<8,4>')})
    graph.add_layer(source, [(3,)])
    dense = Layer(
        'fc',
        'Dense',
        ['x'],
        ['fc'],
        {'n_in': 3, 'n_out': 2},
        {'weight': np.arange(6.0).reshape(3, 2), 'bias': np.zeros(2)},
        {'result': parse_precision('fixed<16,6>'), 'weight': parse_precision('fixed<8,3>')},
    )
    graph.add_layer(dense, [(2,)])
    graph.inputs, graph.outputs = ['x'], ['fc']
    return graph


def test_the_graph_is_an_ordered_mapping_and_stays_truthy() -> None:
    graph = small_graph()
    assert list(graph) == ['x', 'fc'] and len(graph) == 2 and 'fc' in graph and graph['fc'].kind == 'Dense'
    assert dict(graph.items()) == graph.layers and graph.get('nothing') is None
    assert Graph()  # empty, yet a graph (code that tests `if graph:` keeps working)


def test_derived_attributes_answer_lookups_only() -> None:
    dense = small_graph()['fc']
    assert dense.attributes['class_name'] == 'Dense' and dense.attributes['name'] == 'fc'
    assert dense.get_attr('weight_t').precision == FixedPrecisionType(8, 3)
    assert dense.get_attr('weight_t').name == 'fc_weight_t'
    np.testing.assert_array_equal(dense.attributes['weight'].data, np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(dense.get_attr('bias_data'), np.zeros(2))
    assert 'class_name' not in dense.attributes and dense.attributes.get('weight') is None
    assert sorted(dense.attributes) == ['n_in', 'n_out']
    with pytest.raises(KeyError):
        dense.attributes['missing']


def test_variables_of_a_layer() -> None:
    graph = small_graph()
    dense = graph['fc']
    output = dense.get_output_variable()
    assert (output.name, output.shape, output.size(), str(output.type.precision)) == ('fc', [2], 2, 'fixed<16,6>')
    assert dense.get_input_variable().shape == [3] and graph['x'].get_input_variable() is None
    assert [weight.name for weight in dense.get_weights()] == ['weight', 'bias']
    assert dense.get_weights()[0].shape == [3, 2] and dense.get_weights()[0].nonzeros == 5
    assert dense.get_input_node() is graph['x'] and graph['x'].get_output_nodes() == [dense]
    assert len(dense.get_variables()) == 3


def test_a_layer_outside_a_graph_says_so() -> None:
    with pytest.raises(ValueError, match="layer 'lonely' .* belongs to no graph"):
        Layer('lonely', 'ReLU', [], ['lonely']).get_output_variable()


def test_pickles_and_copies_keep_the_1x_view() -> None:
    graph = Graph()
    relu = graph.add_layer(Layer('relu', 'ReLU', [], ['relu'], {'n_in': 4}), [(4,)])
    for copied in (pickle.loads(pickle.dumps(relu)), copy.deepcopy(relu)):
        assert copied.attributes['class_name'] == 'ReLU' and copied.attributes['n_in'] == 4
        assert str(copied.get_output_variable().type.precision) == 'auto' and copied.get_input_variable() is None


@pytest.mark.parametrize(
    ('entry', 'table_size', 'implementation'),
    [
        ({'TableSize': 1024, 'table_size': 256}, 256, 'stable'),  # the later spelling wins, as in 1.x
        ({'table_size': 256, 'TableSize': 512}, 512, 'stable'),
        ({'Strategy': 'Stable', 'implementation': 'latency'}, 1024, 'latency'),  # Strategy: ignored, as in 1.x
    ],
)
def test_softmax_spellings(entry: dict, table_size: int, implementation: str) -> None:
    settings = HLSConfig({'LayerName': {'sm': entry}}).resolve('sm', 'Softmax', '')
    assert (settings.table_size, settings.implementation) == (table_size, implementation)
