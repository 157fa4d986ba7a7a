"""Keras return_state=True compiled on every backend in both IO types: LSTM(return_sequences,
go_backwards) gives (sequence, h, c) -- h a Gather of the sequence's last row, c a second LSTM whose
output is its last c -- and GRU its (output, h), h a copy of the output. predict() equals the reference
interpreter bit for bit on every output, and Keras within the bound of test/csim/recurrent_cases.py
(each backend another implementation, as there)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from recurrent_cases import FEATURES, STEPS, framework_tolerance, hls_config  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    inputs = keras.Input((STEPS, FEATURES))
    lstm = keras.layers.LSTM(3, return_sequences=True, return_state=True, go_backwards=True, name='lstm')
    sequence, h, c = lstm(inputs)
    output, gru_h = keras.layers.GRU(2, return_state=True, name='gru')(sequence)
    model = keras.Model(inputs, [h, c, output, gru_h])
    rng = np.random.default_rng(7)
    model.set_weights([rng.uniform(-0.3, 0.3, weight.shape) for weight in model.get_weights()])
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_recurrent_states(tmp_path, keras_model: keras.Model, backend: str, io_type: str) -> None:
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=hls_config(backend), output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    kinds = [layer.kind for layer in model.graph.layers.values()]
    assert kinds.count('LSTM') == 2 and kinds.count('GRU') == 1, kinds  # c: the second LSTM
    x = np.random.default_rng(1).uniform(-1, 1, (64, STEPS, FEATURES))
    predicted = [np.asarray(output, dtype=np.float64).reshape(len(x), -1) for output in model.predict(x)]
    references, _ = interpret(model, x)
    expected = [np.asarray(output, dtype=np.float64) for output in keras_model(x.astype(np.float32))]
    tolerance = framework_tolerance(model)
    assert len(predicted) == len(references) == len(expected) == 4
    for ours, reference, framework in zip(predicted, references, expected, strict=True):
        np.testing.assert_array_equal(ours, reference.to_double().reshape(len(x), -1))
        np.testing.assert_allclose(ours, framework, atol=tolerance, rtol=0)
    np.testing.assert_array_equal(predicted[2], predicted[3])  # GRU: h is the output
