"""Sparse soft top-k (mask and magnitude) compiled with g++ on Vitis, oneAPI and Catapult in both IO
types: predict() equals the reference interpreter bit for bit, and stays within the documented error
bound of the exact float solution (docs/topk.md); inputs mix wide gaps (the exactly-hard fast path),
the bisection and ties."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_topk_bounds import layer_error_bound, layer_exact

pytestmark = pytest.mark.csim
N = 8
LAYERS = (  # name, k, l, mode, iterations, p
    ('mask', 2, 0.25, 'mask', 12, 2),
    ('mask_wide', 3, 2.0, 'mask', 8, 2),
    ('magnitude', 3, 0.5, 'magnitude', 10, 2),
    ('mask_any_l', 2, 0.3, 'mask', 12, 2),  # l not a power of two: the firmware's l is l rounded finely
    ('magnitude_any_l', 2, 0.3, 'magnitude', 12, 2),
    ('cubic', 2, 0.25, 'mask', 14, 4 / 3),  # p = 4/3: a cubic ramp
    ('cubic_any_l', 3, 0.3, 'mask', 12, 4 / 3),
)


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (N,))
    for name, k, strength, mode, iterations, p in LAYERS:
        y = builder.soft_topk(Origin(name, 'SparseSoftTopK'), x, k, strength, mode, iterations, p)
        builder.output(y, Origin(f'{name}_out', 'output'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<12,4>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    smooth = rng.normal(0, 1, (40, N))
    ties = rng.integers(-3, 4, (20, N)) / 2
    rows = np.round(np.concatenate([smooth, ties, 4 * smooth[:10]]) * 256) / 256  # on the fixed<12,4> grid
    return np.concatenate([rows, -rows])  # the second half mirrors the first (sign symmetry)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_soft_topk_bit_exact_and_within_bound(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = _inputs()
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    quantized = per_layer['x'].to_double()
    for (name, *_, mode, _iterations, _p), output, reference in zip(LAYERS, predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double(), err_msg=name)
        layer = model.graph.layers[name]
        bound, exact = layer_error_bound(layer, model.graph.input_type(layer)), layer_exact(layer, quantized)
        assert np.abs(output - exact).max() <= bound, name
        if mode == 'magnitude':  # out(-x) = -out(x) bit for bit where -x is the negated quantized x
            half = len(x) // 2
            mirrored = np.all(quantized[half:] == -quantized[:half], axis=1)
            assert mirrored.mean() > 0.5
            np.testing.assert_array_equal(output[half:][mirrored], -output[:half][mirrored], err_msg=name)
