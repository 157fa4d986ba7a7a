"""The FixedPointQuantizer kernel (nnet_quantizer.h) through a whole graph: Input -> quantizer -> output,
written, compiled with g++ and run by predict(), against the reference interpreter and the float64
definition of test/unit/model/test_quantizer.py; ap and ac families, both IO types, every overflow mode,
rounding modes beyond RND/TRN, per-element and per-channel triples."""

from __future__ import annotations

import numpy as np
import pytest
from quantizer_definition import definition

import hls4ml
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.arithmetic import quantizer_layer
from hls4ml.model.types import FixedPrecisionType

pytestmark = pytest.mark.csim
SHAPE = (3, 4)  # 3 positions of 4 channels
INPUT_TYPE = FixedPrecisionType(24, 8)
MODES = [('WRAP', 'RND_CONV'), ('SAT', 'RND_ZERO'), ('SAT_SYM', 'TRN_ZERO'), ('WRAP', 'RND_MIN_INF')]
TARGETS = [('Vitis', 'io_parallel'), ('oneAPI', 'io_stream')]


def _model(tmp_path, triples: tuple, modes: tuple[str, str], backend: str, io_type: str) -> ModelGraph:
    graph = Graph()
    graph.add_layer(Layer('x', 'Input', [], ['x'], {'shape': SHAPE}, {}, {'result': INPUT_TYPE}), [SHAPE])
    graph.add_layer(quantizer_layer('q', 'x', triples, modes, SHAPE[-1]), [SHAPE])
    graph.inputs, graph.outputs = ['x'], ['q']
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'LayerName': {'q': {}}}
    config['HLSConfig']['LayerName']['q']['Precision'] = {'result': 'auto'}
    return ModelGraph(config, graph, {})


@pytest.mark.parametrize('backend, io_type', TARGETS)
@pytest.mark.parametrize('overflow, rounding', MODES)
def test_quantizer_kernel_matches_reference_and_definition(tmp_path, overflow, rounding, backend, io_type) -> None:
    rng = np.random.default_rng(11)
    size = int(np.prod(SHAPE))
    k, i, f = rng.integers(0, 2, size), rng.integers(-2, 4, size), rng.integers(-1, 6, size)
    model = _model(tmp_path, (k, i, f), (rounding, overflow), backend, io_type)
    x = np.concatenate([rng.normal(0, 6, (3000, size)), np.round(rng.normal(0, 64, (1000, size))) / 32])
    predicted = np.asarray(model.predict(x)).reshape(len(x), size)
    (interpreted,), _ = interpret(model, x)
    np.testing.assert_array_equal(interpreted.value.reshape(len(x), size), predicted)
    expected = definition(quantize(x, INPUT_TYPE).value, k, i, f, rounding, overflow)
    np.testing.assert_array_equal(predicted, expected)


def test_per_channel_quantizer_in_a_stream(tmp_path) -> None:
    rng = np.random.default_rng(12)
    k, i, f = (np.tile(values, SHAPE[0]) for values in ([1, 0, 1, 1], [0, 2, 1, -1], [3, 1, 2, 5]))
    model = _model(tmp_path, (k, i, f), ('RND', 'SAT'), 'Vitis', 'io_stream')
    assert model.graph.layers['q'].attributes['n_params'] == SHAPE[-1]
    x = rng.normal(0, 3, (2000, int(np.prod(SHAPE))))
    predicted = np.asarray(model.predict(x)).reshape(x.shape)
    expected = definition(quantize(x, INPUT_TYPE).value, k, i, f, 'RND', 'SAT')
    np.testing.assert_array_equal(predicted, expected)
