"""Keras recurrent layers called with initial_state compiled on every backend in both IO types: the
initial h (and the LSTM's c) are model inputs the kernel starts from (`nnet::lstm_from`, ...).
LSTM(initial_state=[h0, c0], return_sequences) -> GRU(go_backwards, initial_state=h0), and the LSTM's
return_state c beside it. predict() equals the reference interpreter bit for bit, and Keras within the
bound of test/csim/recurrent_cases.py (each backend another implementation, as there): the initial
states are inputs in the model's default type fixed<24,8>, which they fit to 2^-16."""

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
STATE = 3


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    inputs = [keras.Input((STEPS, FEATURES)), keras.Input((STATE,)), keras.Input((STATE,))]
    lstm = keras.layers.LSTM(STATE, return_sequences=True, return_state=True, name='lstm')
    sequence, _, c = lstm(inputs[0], initial_state=inputs[1:])
    output = keras.layers.GRU(STATE, go_backwards=True, name='gru')(sequence, initial_state=inputs[1])
    model = keras.Model(inputs, [output, c])
    rng = np.random.default_rng(9)
    model.set_weights([rng.uniform(-0.3, 0.3, weight.shape) for weight in model.get_weights()])
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_recurrent_initial_state(tmp_path, keras_model: keras.Model, backend: str, io_type: str) -> None:
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=hls_config(backend), output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    rng = np.random.default_rng(1)
    x = [rng.uniform(-1, 1, (64, STEPS, FEATURES)), rng.uniform(-1, 1, (64, STATE)), rng.uniform(-1, 1, (64, STATE))]
    predicted = [np.asarray(output, dtype=np.float64).reshape(64, -1) for output in model.predict(x)]
    references, _ = interpret(model, x)
    expected = [np.asarray(output, dtype=np.float64) for output in keras_model([item.astype(np.float32) for item in x])]
    assert len(predicted) == len(references) == len(expected) == 2
    for ours, reference, framework in zip(predicted, references, expected, strict=True):
        np.testing.assert_array_equal(ours, reference.to_double().reshape(64, -1))
        np.testing.assert_allclose(ours, framework, atol=framework_tolerance(model), rtol=0)
    zero_start = interpret(model, [x[0], np.zeros_like(x[1]), np.zeros_like(x[2])])[0][0].to_double()
    assert np.abs(zero_start - predicted[0]).max() > 0.05  # the initial states matter
