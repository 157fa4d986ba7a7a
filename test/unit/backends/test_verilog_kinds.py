"""The Verilog backend's selection and map kinds without Verilator: what is accepted and what is refused
by name, and the traced program (run by da4ml's own interpreter of it) against the reference interpreter
bit for bit: top-k with ties, the router's gates, every SOM distance with narrow accumulators; and the
unsigned WRAP write that da4ml 0.6 gets wrong on its own (`fixed.Quantizer.apply`)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.converters.config import config_from_graph
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.ir import Graph
from hls4ml.model.som_graphs import som_graph
from hls4ml.model.types import FixedPrecisionType

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')

from da4ml.trace import FixedVariableArrayInput, comb_trace  # noqa: E402
from verilog_programs import assert_program_matches_reference  # noqa: E402

from hls4ml.backends.verilog.fixed import quantizer  # noqa: E402


def verilog_model(graph_and_origin: tuple[Graph, dict[str, str]], tmp_path, hls_config: dict) -> ModelGraph:
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', 'Verilog', io_type='io_parallel')
    config['HLSConfig'] = hls_config
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', hls4ml.model.config.ExactTypeOverrideWarning)
        return ModelGraph(config, *graph_and_origin)


def topk_graph(k: int = 3) -> tuple[Graph, dict[str, str]]:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (7,))
    for magnitude, largest in ((False, True), (True, True), (False, False), (True, False)):
        for output in ('values', 'indices', 'mask', 'masked'):
            name = f'{output}_{int(magnitude)}{int(largest)}'
            builder.output(builder.topk(Origin(name, 'TopK'), x, k, output, magnitude, largest), Origin(name, 'output'))
    return builder.finish()


def test_topk_program_equals_the_reference_with_ties(tmp_path):
    model = verilog_model(topk_graph(), tmp_path, {'Model': {'Precision': 'fixed<5,5>', 'ReuseFactor': 1}})
    x = np.random.default_rng(0).integers(-16, 16, (500, 7)).astype(np.float64)  # ties and +-v (and -16)
    assert_program_matches_reference(model, x)


def router_graph(**options) -> tuple[Graph, dict[str, str]]:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (3, 5))
    for renormalize in (True, False):
        for output in ('indices', 'weights', 'gates'):
            name = f'{output}_{int(renormalize)}'
            router = builder.router(Origin(name, 'Router'), x, 2, renormalize, output, **options)
            builder.output(router, Origin(name, 'output'))
    return builder.finish()


def test_router_program_equals_the_reference(tmp_path):
    model = verilog_model(router_graph(), tmp_path, {'Model': {'Precision': 'fixed<9,4>', 'ReuseFactor': 1}})
    x = np.random.default_rng(1).integers(-24, 24, (500, 3, 5)) / 4
    assert_program_matches_reference(model, x)


@pytest.mark.parametrize('options', [{'capacity': 2}, {'sinkhorn_iterations': 3}])
def test_router_capacity_and_sinkhorn_are_refused_by_name(tmp_path, options):
    with pytest.raises(ValueError, match=r'indices_1.*Router|router'):
        verilog_model(router_graph(**options), tmp_path, {'Model': {'Precision': 'fixed<9,4>', 'ReuseFactor': 1}})


CODEBOOK = np.array([[0.0, 1.5, -0.5], [0.75, 0.0, -2.0], [-1.0, -1.0, 0.25], [1.0, 0.5, 0.0]])


def som_model(tmp_path, distance: str, output: str, accum: str | None = None, implementation: str = 'distance'):
    def make() -> tuple[Graph, dict[str, str]]:
        return som_graph(CODEBOOK, (2, 2), distance, output, labels=np.array([2, 0, 1, 2]), topology='hexagonal')

    config = config_from_graph(make()[0], 'name', 'fixed<8,3>', 1, None)
    config['LayerName']['som']['Implementation'] = implementation
    if accum:
        config['LayerName']['som']['Precision']['accum'] = accum
    return verilog_model(make(), tmp_path, config)


@pytest.mark.parametrize('distance', ['squared_euclidean', 'manhattan', 'chebyshev', 'cosine'])
@pytest.mark.parametrize('accum', [None, 'fixed<6,3,RND,SAT>', 'ufixed<5,2>'])
def test_som_program_equals_the_reference(tmp_path, distance, accum):
    x = np.random.default_rng(2).integers(-12, 12, (300, 3)) / 4
    for output in ('index', 'distances', 'coordinates', 'one_hot', 'label', 'quantized'):
        assert_program_matches_reference(som_model(tmp_path, distance, output, accum), x)


@pytest.mark.parametrize('distance', ['squared_euclidean', 'cosine'])
def test_som_dense_implementation_equals_the_reference(tmp_path, distance):
    x = np.random.default_rng(3).integers(-12, 12, (300, 3)) / 4
    assert_program_matches_reference(som_model(tmp_path, distance, 'index', implementation='dense'), x)


@pytest.mark.parametrize('distance', ['manhattan', 'chebyshev', 'cosine'])
def test_som_activities_equal_the_reference(tmp_path, distance):
    x = np.random.default_rng(7).integers(-12, 12, (300, 3)) / 4
    assert_program_matches_reference(som_model(tmp_path, distance, 'activities'), x)


def test_squared_euclidean_activities_and_resom_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"som.*SOM output 'activities' of squared Euclidean.*square roots"):
        som_model(tmp_path, 'squared_euclidean', 'activities')
    from hls4ml.backends.verilog.backend import GAPS

    assert {'ReSOM', 'ReSOMMaps', 'SoftTopK', 'ExpertChoiceRouter'} <= {kind for kind, _ in GAPS}
    assert not {'TopK', 'Router', 'SOM'} & {kind for kind, _ in GAPS}


def test_unsigned_wrap_of_a_narrow_negative_value_is_exact():
    """-0.125 into ufixed<5,2> is 3.875: da4ml 0.6 alone wraps modulo the input's width (1.875)."""
    port = FixedVariableArrayInput(1)
    x = port.quantize(1, 2, 5, 'WRAP', 'TRN')
    for scale, spelling in ((0.25, 'ufixed<5,2>'), (0.125, 'ufixed<4,1,RND>'), (-0.25, 'ufixed<6,4>')):
        target = FixedPrecisionType(*_width_integer(spelling), False, 'RND' if 'RND' in spelling else 'TRN')
        program = comb_trace(port, quantizer(target, 'x').apply(x * scale))
        inputs = np.arange(-128, 128)[:, None] / 32
        expected = quantize(inputs[:, 0] * scale, target, 'ap').to_double()
        assert np.array_equal(program.predict(inputs)[:, 0], expected)


def _width_integer(spelling: str) -> tuple[int, int]:
    width, integer = spelling.split('<')[1].split(',')[:2]
    return int(width), int(integer.rstrip('>'))
