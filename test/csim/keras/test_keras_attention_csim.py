"""Keras 3 MultiHeadAttention (cross-attention, 2 heads, key_dim 4) compiled with g++ on Vitis, oneAPI
and Catapult (io_parallel on each, io_stream on oneAPI, and the masked layer on Vitis io_stream):
predict() equals the emulator bit for bit and Keras within the bound the softmax tables explain.

Why that bound. Inputs on a 2^-8 grid and weights on a 2^-6 grid are exact in fixed<16,6>; the
query scale 1/sqrt(4) = 1/2 is a power of two, so the projections are exact in their 'auto' types.
The scores, capped at fixed<40,16>, lose less than 2^-24 each. The softmax (tables of 1024 entries,
the default fixed<18,8> table types, result fixed<16,6>) gives each weight within DELTA = 2^-7 of
the float softmax of those scores (the gates bound of docs/moe.md; checked here on the traced
layers). The output is sum_(h,d) (sum_k p_hqk v_hkd) W_o[h,d,e] + b_e, so a weight error DELTA moves
it by at most DELTA * n_keys * max|v| * sum_(h,d) |W_o[h,d,e]|; the mixed and output sums, capped,
add less than 2^-20."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore:.auto. precision is capped')]
keras = pytest.importorskip('keras')

DELTA = 2**-7
CONFIG = {
    'Model': {'Precision': {'default': 'fixed<16,6>', 'maximum': 'fixed<40,16>', 'accum': 'auto', 'result': 'auto'}}
}


def attention_model():
    """Cross-attention: 4 query tokens of 8 features attend to 3 context tokens of 6 features."""
    tokens, context = keras.Input((4, 8)), keras.Input((3, 6))
    output = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name='mha')(tokens, context)
    model = keras.Model([tokens, context], output)
    rng = np.random.default_rng(1)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.integers(-32, 32, w.shape) / 64 for w in layer.get_weights()])
    return model


@pytest.fixture(scope='module')
def model():
    return attention_model()


@pytest.fixture(scope='module')
def inputs():
    rng = np.random.default_rng(2)
    return [rng.integers(-512, 512, (40, 4, 8)) / 256, rng.integers(-512, 512, (40, 3, 6)) / 256]


def framework_bound(model, inputs) -> np.ndarray:
    """DELTA * n_keys * max|v| * sum_(h,d) |W_o[h,d,e]| per output feature (module docstring)."""
    mha = model.get_layer('mha')
    values = keras.ops.convert_to_numpy(mha._value_dense(inputs[1]))
    output_kernel = np.abs(keras.ops.convert_to_numpy(mha._output_dense.kernel)).sum(axis=(0, 1))
    return DELTA * inputs[1].shape[1] * np.abs(values).max() * output_kernel + 2**-20


@pytest.mark.parametrize(
    'backend, io_type',
    [('Vitis', 'io_parallel'), ('oneAPI', 'io_parallel'), ('Catapult', 'io_parallel'), ('oneAPI', 'io_stream')],
)
def test_multi_head_attention_on_every_backend(model, inputs, tmp_path, backend: str, io_type: str) -> None:
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=CONFIG, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    predicted = hls_model.predict(inputs)
    references, layers = interpret(hls_model, inputs)
    np.testing.assert_array_equal(predicted, references[0].to_double())
    want = model.predict(inputs, verbose=0)  # (samples, 4 tokens, 8 features)
    error = np.abs(predicted.reshape(want.shape) - want)
    assert (error <= framework_bound(model, inputs)).all(), error.max()
    scores = layers['mha_scores'].to_double().reshape(len(want), -1, 3)
    float_weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    float_weights /= float_weights.sum(axis=-1, keepdims=True)
    weights = layers['mha_softmax'].to_double().reshape(float_weights.shape)
    assert np.abs(weights - float_weights).max() <= DELTA


def test_query_scale_is_folded_exactly(model) -> None:
    """key_dim 4: 1/sqrt(4) = 2^-1, so the query weights are Keras' halved, exactly."""
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=CONFIG, backend='Vitis')
    query = hls_model.graph.layers['mha_query']
    kernel = keras.ops.convert_to_numpy(model.get_layer('mha')._query_dense.kernel)
    np.testing.assert_array_equal(query.weights['weight'], kernel / 2)
    kinds = [layer.kind for layer in hls_model.graph.layers.values()]
    assert kinds[2:] == ['EinsumDense'] * 3 + ['Einsum', 'Softmax', 'Einsum', 'EinsumDense']


@pytest.mark.parametrize('backend, io_type', [('Vitis', 'io_stream'), ('Catapult', 'io_parallel')])
def test_masked_attention_on_every_backend(tmp_path, backend: str, io_type: str) -> None:
    """attention_mask and use_causal_mask together: bit-exact with the emulator, masked keys at weight 0."""
    tokens, mask = keras.Input((4, 8)), keras.Input((4, 4), dtype='bool')
    output = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name='mha')(
        tokens, tokens, attention_mask=mask, use_causal_mask=True
    )
    model = keras.Model([tokens, mask], output)
    rng = np.random.default_rng(3)
    model.set_weights([rng.integers(-32, 32, w.shape) / 64 for w in model.get_weights()])  # on a 2^-6 grid
    inputs = [rng.integers(-512, 512, (20, 4, 8)) / 256, rng.integers(0, 2, (20, 4, 4)).astype(bool)]
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=CONFIG, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    references, emulated = interpret(hls_model, inputs)
    np.testing.assert_array_equal(hls_model.predict(inputs), references[0].to_double())
    allowed = inputs[1] & np.tril(np.ones((4, 4), bool))
    per_head = np.broadcast_to(allowed[:, None], (20, 2, 4, 4))
    weights = emulated['mha_softmax'].to_double().reshape(per_head.shape)
    assert (weights[~per_head & per_head.any(axis=-1, keepdims=True)] == 0).all()
