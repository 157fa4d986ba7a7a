"""A Keras model of channels-first layers compiled with g++ on Vitis and oneAPI in both IO types: predict()
equals the emulator bit for bit and Keras within what the precision explains, its outputs in Keras'
channels-first layout. Weights on a 2^-3 grid and inputs on a 2^-4 grid are exact in the 'auto' types; the
average pooling of 2x2 windows is exact too, so predict() is Keras' value within float32's rounding."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore:.auto. precision is capped')]
keras = pytest.importorskip('keras')


@pytest.fixture(scope='module')
def model() -> keras.Model:
    layers, first = keras.layers, {'data_format': 'channels_first'}
    inputs = keras.Input((2, 6, 5), name='image')
    padded = layers.ZeroPadding2D(((1, 0), (0, 1)), name='pad', **first)(inputs)
    conv = layers.Conv2D(3, 3, activation='relu', name='conv', **first)(padded)
    pooled = layers.AveragePooling2D(2, name='pool', **first)(conv)
    mixed = layers.Conv1D(2, 2, padding='same', name='mix', **first)(layers.Reshape((3, 4))(pooled))
    summary = layers.GlobalMaxPooling2D(name='summary', **first)(conv)
    model = keras.Model(inputs, [mixed, summary])
    rng = np.random.default_rng(4)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.integers(-8, 8, w.shape) / 8 for w in layer.get_weights()])
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI'])
def test_channels_first_layers_compile_and_compute_what_keras_does(model, tmp_path, backend: str, io_type: str):
    config = {'Model': {'Precision': {'default': 'fixed<16,6>', 'accum': 'auto', 'result': 'auto'}}}
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    x = np.random.default_rng(5).integers(-16, 16, (24, 2, 6, 5)) / 16
    predicted = hls_model.predict(x)
    references, _ = interpret(hls_model, x)
    for got, reference, want in zip(predicted, references, model.predict(x, verbose=0), strict=True):
        np.testing.assert_array_equal(got, reference.to_double())
        np.testing.assert_allclose(got, want.reshape(len(want), -1), atol=1e-5, rtol=0)
    assert [list(variable.shape) for variable in hls_model.get_output_variables()] == [[2, 4], [3]]
