"""HGQ2 models converted bit-exactly: `predict()` equals HGQ2's own inference `model(x, training=False)`
on 100,000 float32 inputs, for a dense and a conv model (hgq_models: trained a few steps, then
heterogeneous activation and weight widths, pruned weights, WRAP/RND and SAT/TRN quantizers), on
Vitis, oneAPI and Catapult, io_parallel and io_stream; the emulator equals the C-simulation on the
first 500 inputs of each (it computes with Python integers, about 1,000 inputs a second here)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('hgq')

import hgq_models  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
N_SAMPLES = 100_000
N_EMULATED = 500
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
IO_TYPES = ('io_parallel', 'io_stream')
SHAPES = {'dense': (hgq_models.DENSE_FEATURES,), 'conv': hgq_models.CONV_SHAPE}


@pytest.fixture(scope='module')
def cases() -> dict:
    """Per model: the HGQ2 model, the inputs and HGQ2's outputs on them."""
    built = {'dense': hgq_models.dense_model(), 'conv': hgq_models.conv_model()}
    result = {}
    for name, model in built.items():
        x = hgq_models.inputs(SHAPES[name], N_SAMPLES, seed=3)
        result[name] = (model, x, hgq_models.hgq_outputs(model, x))
    return result


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name', ('dense', 'conv'))
def test_hgq_model_is_bit_exact(cases, tmp_path, name: str, backend: str, io_type: str) -> None:
    model, x, expected = cases[name]
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend=backend, io_type=io_type
    )
    predicted = np.asarray(hls_model.predict(x)).reshape(expected.shape)
    mismatches = int(np.sum(predicted != expected))
    assert mismatches == 0, f'{mismatches} of {expected.size} outputs differ from HGQ2'
    (emulated,), _ = interpret(hls_model, x[:N_EMULATED])
    np.testing.assert_array_equal(emulated.value.reshape(-1, expected.shape[1]), predicted[:N_EMULATED])
    quantizers = [layer for layer in hls_model.get_layers() if layer.kind == 'FixedPointQuantizer']
    assert any(layer.attributes['n_params'] > 1 for layer in quantizers)  # heterogeneous, not folded away
