"""Keras EinsumDense and the Keras einsum/matmul ops compiled with g++ on Vitis, oneAPI and Catapult
in both IO types: predict() equals the emulator bit for bit and Keras within what the precision
explains. Weights on a 2^-6 grid and inputs on a 2^-8 grid are exact in fixed<16,6>; the projections
are exact in their 'auto' types, the chained einsums would need up to 81 bits and are capped at
fixed<52,24> (a warning says so): their values, below 2^7 here, are truncated at 2^-28 or finer at
most three times, and the relu result fixed<32,12> truncates at 2^-20. So predict() is Keras' value
within 1e-5 plus float32's rounding of Keras' own sums: a few float32 ulps (5e-7 relative; without oneDNN,
TensorFlow's CPU einsum sums in another order, 1.4e-5 off at 60.8)."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore:.auto. precision is capped')]
keras = pytest.importorskip('keras')


def projection_model():
    """Attention-shaped: per-head projections 'abc,cde->abde', scores by einsum, the output projection."""
    layers = keras.layers
    tokens = keras.Input((3, 4))
    query = layers.EinsumDense('abc,cde->abde', output_shape=(None, 2, 2), bias_axes='de', name='query')(tokens)
    key = layers.EinsumDense('abc,cde->abde', output_shape=(None, 2, 2), bias_axes='de', name='key')(tokens)
    scores = keras.ops.einsum('aecd,abcd->acbe', key, query)
    mixed = keras.ops.einsum('acbe,aecd->abcd', scores, key)
    output = layers.EinsumDense('abcd,cde->abe', output_shape=(None, 4), bias_axes='e', name='out', activation='relu')(
        mixed
    )
    model = keras.Model(tokens, [scores, output])
    rng = np.random.default_rng(5)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.integers(-64, 64, w.shape) / 64 for w in layer.get_weights()])
    return model


@pytest.fixture(scope='module')
def model():
    return projection_model()


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_einsum_dense_and_einsums_on_every_backend(model, tmp_path, backend: str, io_type: str) -> None:
    config = {
        'Model': {
            'Precision': {'default': 'fixed<16,6>', 'maximum': 'fixed<52,24>', 'accum': 'auto', 'result': 'auto'}
        },
        'LayerName': {'out_relu': {'Precision': {'result': 'fixed<32,12>'}}},
    }
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    x = np.random.default_rng(6).integers(-512, 512, (30, 3, 4)) / 256
    predicted = hls_model.predict(x)
    references, _ = interpret(hls_model, x)
    for got, reference, want in zip(predicted, references, model.predict(x, verbose=0), strict=True):
        np.testing.assert_array_equal(got, reference.to_double())
        np.testing.assert_allclose(got, want.reshape(len(want), -1), atol=1e-5, rtol=5e-7)
