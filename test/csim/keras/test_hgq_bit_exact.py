"""HGQ2 models converted bit-exactly: `predict()` equals HGQ2's own inference `model(x, training=False)`
on 100,000 float32 inputs, on Vitis, oneAPI and Catapult, io_parallel and io_stream, for three models
(hgq_models: trained a few steps, then heterogeneous activation and weight widths, pruned weights):
a dense model (WRAP/RND quantizers), a conv model (SAT/TRN) and a table model (QBatchNormalization,
QUnaryFunctionLUT, QSoftmax). The emulator equals the C-simulation on the first 20,000 inputs (10,000 for
the conv model: the emulator runs ~100,000 dense and ~10,000 conv inputs a second here, and would
otherwise take a quarter of this file's time); it is computed once per model, number family (ap, ac)
and IO type and shared by the backends of that family."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('hgq')

import hgq_models  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
N_SAMPLES = 100_000
N_EMULATED = {'dense': 20_000, 'conv': 10_000, 'tables': 20_000}
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
IO_TYPES = ('io_parallel', 'io_stream')
SHAPES = {'dense': (hgq_models.DENSE_FEATURES,), 'conv': hgq_models.CONV_SHAPE, 'tables': (hgq_models.DENSE_FEATURES,)}
MODELS = {'dense': hgq_models.dense_model, 'conv': hgq_models.conv_model, 'tables': hgq_models.table_model}


@pytest.fixture(scope='module')
def cases() -> dict:
    """Per model: the HGQ2 model, the inputs and HGQ2's outputs on them."""
    result = {}
    for name, build in MODELS.items():
        model = build()
        x = hgq_models.inputs(SHAPES[name], N_SAMPLES, seed=3)
        result[name] = (model, x, hgq_models.hgq_outputs(model, x))
    return result


@pytest.fixture(scope='module')
def emulated() -> dict:
    """The emulator's outputs, filled by the first case of each (model, family, IO type)."""
    return {}


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name', sorted(MODELS))
def test_hgq_model_is_bit_exact(cases, emulated, tmp_path, name: str, backend: str, io_type: str) -> None:
    model, x, expected = cases[name]
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend=backend, io_type=io_type
    )
    predicted = np.asarray(hls_model.predict(x)).reshape(expected.shape)
    mismatches = int(np.sum(predicted != expected))
    assert mismatches == 0, f'{mismatches} of {expected.size} outputs differ from HGQ2'
    key, count = (name, hls_model.backend.family, io_type), N_EMULATED[name]
    if key not in emulated:
        (outputs,), _ = interpret(hls_model, x[:count])
        emulated[key] = outputs.value.reshape(count, -1)
    np.testing.assert_array_equal(emulated[key], predicted[:count])
    quantizers = [layer for layer in hls_model.get_layers() if layer.kind == 'FixedPointQuantizer']
    assert any(layer.attributes['n_params'] > 1 for layer in quantizers)  # heterogeneous, not folded away
