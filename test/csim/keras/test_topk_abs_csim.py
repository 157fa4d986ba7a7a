"""Top-k by magnitude from Keras 3: `keras.ops.top_k(keras.ops.abs(h), k)`, with abs converted to
max(h, -h); predict() equals the reference interpreter bit for bit and Keras where the hidden values
are exact (coarse weights and inputs), ties to the lower index in both."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_top_k_of_abs(tmp_path, backend: str, io_type: str) -> None:
    inputs = keras.Input((6,))
    dense = keras.layers.Dense(8)
    values, indices = keras.ops.top_k(keras.ops.abs(dense(inputs)), 3)
    keras_model = keras.Model(inputs, [values, indices])
    rng = np.random.default_rng(0)
    dense.set_weights([rng.integers(-8, 9, (6, 8)) / 8, rng.integers(-4, 5, 8) / 8])
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision='fixed<16,6>')
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = rng.integers(-16, 17, (40, 6)) / 8
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    expected = [np.asarray(tensor, dtype=np.float64) for tensor in keras_model(x.astype(np.float32))]
    np.testing.assert_array_equal(predicted[0], expected[0])
    np.testing.assert_array_equal(predicted[1], expected[1])
