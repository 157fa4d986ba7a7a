"""Recurrent layers from Keras 3, compiled on every backend in both IO types: predict() equals the
reference interpreter bit for bit, and Keras within the tolerance the types explain.

One model holds every kind and form: Bidirectional(GRU, reset_after, 'sum') -> LSTM(go_backwards) ->
GRU(reset_after=False) -> SimpleRNN(relu) -> Dense. Each backend runs another implementation: Vitis the
static cell (Latency), oneAPI the unrolled cells (Resource, ReuseFactor 2, RecurrentReuseFactor 3),
Catapult the static cell (Resource); the arithmetic must not depend on them.

The tolerance against Keras is derived in test/csim/recurrent_cases.py.
"""

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
    x = keras.layers.Bidirectional(keras.layers.GRU(3, return_sequences=True), merge_mode='sum', name='bi_gru')(inputs)
    x = keras.layers.LSTM(3, return_sequences=True, go_backwards=True, name='lstm')(x)
    x = keras.layers.GRU(3, return_sequences=True, reset_after=False, name='gru')(x)
    x = keras.layers.SimpleRNN(3, activation='relu', name='rnn')(x)
    model = keras.Model(inputs, keras.layers.Dense(2, name='dense')(x))
    rng = np.random.default_rng(5)
    model.set_weights([rng.uniform(-0.3, 0.3, weight.shape) for weight in model.get_weights()])
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_recurrent_layers(tmp_path, keras_model: keras.Model, backend: str, io_type: str) -> None:
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=hls_config(backend), output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(1).uniform(-1, 1, (64, STEPS, FEATURES))
    predicted = np.asarray(model.predict(x), dtype=np.float64).reshape(len(x), -1)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    expected = np.asarray(keras_model(x.astype(np.float32)), dtype=np.float64)
    np.testing.assert_allclose(predicted, expected, atol=framework_tolerance(model), rtol=0)


def test_recurrent_project_is_warning_free_and_equal_with_the_vendor_headers(
    tmp_path, keras_model, monkeypatch
) -> None:
    """io_stream on Vitis: the bridge and testbench compile with -Wall -Wextra -Werror, and the project
    compiled against the real Xilinx ap_types (when this machine has them) predicts the same bits."""
    import subprocess

    from vendor import vendor_headers, why_missing

    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=hls_config('Vitis'), output_dir=str(tmp_path), backend='Vitis', io_type='io_stream'
    )
    model.write()
    # -Wno-unknown-pragmas: the firmware's `#pragma HLS` lines are for the HLS tool (as build_prj.tcl compiles)
    flags = [
        'g++',
        '-std=c++17',
        '-fsyntax-only',
        '-Wall',
        '-Wextra',
        '-Werror',
        '-Wno-unknown-pragmas',
        '-Ifirmware/ap_types',
    ]
    for source in ('myproject_bridge.cpp', 'myproject_test.cpp'):
        result = subprocess.run([*flags, source], cwd=tmp_path, capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr, result.stderr[:3000]
    folder = vendor_headers('ap')
    if folder is None:
        pytest.skip(f'the vendor ap_types are not on this machine: {why_missing()}')
    x = np.random.default_rng(2).uniform(-1, 1, (32, STEPS, FEATURES))
    ours = model.predict(x)
    monkeypatch.setenv('HLS4ML_AP_TYPES', str(folder))
    model.compile()
    np.testing.assert_array_equal(model.predict(x), ours)
