"""Multi-head attention frontends (docs/attention.md) through the emulator, no g++: what converts
computes the framework's value within the softmax-table bound; what does not is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

keras = pytest.importorskip('keras')

CONFIG = {
    'Model': {'Precision': {'default': 'fixed<16,6>', 'maximum': 'fixed<40,16>', 'accum': 'auto', 'result': 'auto'}}
}
pytestmark = pytest.mark.filterwarnings('ignore:.auto. precision is capped')


def on_grid(model, seed: int) -> None:
    """Weights on a 2^-6 grid, exact in fixed<16,6>."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.integers(-32, 32, w.shape) / 64 for w in layer.get_weights()])


def emulate(model, x) -> np.ndarray:
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=CONFIG, backend='Vitis')
    outputs, _ = interpret(hls_model, x)
    return outputs[0].to_double()


def test_keras_ops_reshape_splits_heads_exactly() -> None:
    tokens = keras.Input((4, 8))
    heads = keras.ops.reshape(keras.layers.Dense(8)(tokens), (-1, 4, 2, 4))
    model = keras.Model(tokens, keras.ops.transpose(heads, (0, 2, 1, 3)))
    on_grid(model, 3)
    x = np.random.default_rng(4).integers(-512, 512, (10, 4, 8)) / 256
    want = model.predict(x, verbose=0).reshape(10, -1)
    np.testing.assert_allclose(emulate(model, x), want, atol=1e-6, rtol=0)


@pytest.mark.parametrize('newshape', [(-1, 16, 4), (8, 32), (-1, 2, 8)])
def test_keras_ops_reshape_across_samples_is_refused(newshape) -> None:
    tokens = keras.Input((4, 8))
    model = keras.Model(tokens, keras.ops.reshape(tokens, newshape))
    with pytest.raises(ValueError, match='keras.ops.reshape to'):
        hls4ml.converters.convert_from_keras_model(model, hls_config=CONFIG, backend='Vitis')


@pytest.mark.parametrize('key_dim', [4, 3])
def test_keras_self_attention_tracks_keras(key_dim: int) -> None:
    """Self-attention (query = value = key). Each softmax weight is within 2^-7 of float
    (test/csim/keras/test_keras_attention_csim.py). key_dim 3: 1/sqrt(3) is folded into the query kernel and
    bias, rounded to their 2^-10 grid (error <= 2^-11 each), so a query moves by at most
    (sum|x| + 1) 2^-11, a score by key_dim times that times max|k|, and a weight by twice the largest
    score error on top (softmax moves p_i by p_i (ds_i - sum_j p_j ds_j))."""
    tokens = keras.Input((3, 4))
    output = keras.layers.MultiHeadAttention(num_heads=2, key_dim=key_dim, value_dim=2, name='mha')(tokens, tokens)
    model = keras.Model(tokens, output)
    on_grid(model, 5)
    x = np.random.default_rng(6).integers(-512, 512, (20, 3, 4)) / 256
    mha = model.get_layer('mha')
    keys, values = (np.abs(keras.ops.convert_to_numpy(dense(x))).max() for dense in (mha._key_dense, mha._value_dense))
    score_error = 0.0 if key_dim == 4 else key_dim * (np.abs(x).sum(axis=-1).max() + 1) * 2**-11 * keys
    weight_error = 2**-7 + 2 * score_error
    output_kernel = np.abs(keras.ops.convert_to_numpy(mha._output_dense.kernel)).sum(axis=(0, 1))
    bound = weight_error * 3 * values * output_kernel + 2**-20
    want = model.predict(x, verbose=0)
    error = np.abs(emulate(model, x).reshape(want.shape) - want)
    assert (error <= bound).all(), error.max()


def masked_model(mask: bool, causal: bool):
    tokens, mask_input = keras.Input((4, 8)), keras.Input((4, 4), dtype='bool')
    call = {'attention_mask': mask_input} if mask else {}
    output = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name='mha')(
        tokens, tokens, use_causal_mask=causal, **call
    )
    model = keras.Model([tokens, mask_input] if mask else tokens, output)
    on_grid(model, 7)
    return model


@pytest.mark.parametrize('mask, causal', [(True, False), (False, True), (True, True)])
def test_keras_masked_keys_get_exactly_zero_weight(mask: bool, causal: bool) -> None:
    """Keras sets masked scores to -1e9; the firmware selects -1024 (scores * keep + offset), which
    lies below the exp table, so every masked key's weight is exactly 0 and a fully masked row is
    uniform, as in Keras. The output then tracks Keras within the softmax bound of the unmasked case."""
    model = masked_model(mask, causal)
    rng = np.random.default_rng(8)
    x, keep = rng.integers(-512, 512, (30, 4, 8)) / 256, rng.integers(0, 2, (30, 4, 4)).astype(bool)
    inputs = [x, keep] if mask else x
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=CONFIG, backend='Vitis')
    outputs, layers = interpret(hls_model, inputs)
    allowed = (keep if mask else np.ones((30, 4, 4), bool)) & (np.tril(np.ones((4, 4), bool)) if causal else True)
    weights = layers['mha_softmax'].to_double().reshape(30, 2, 4, 4)
    per_head = np.broadcast_to(allowed[:, None], weights.shape)
    masked = ~per_head & per_head.any(axis=-1, keepdims=True)
    assert masked.any() and (weights[masked] == 0).all()
    empty = ~per_head.any(axis=-1)  # every key masked: Keras' softmax of equal -1e9 scores is uniform
    assert (np.abs(weights[empty] - 0.25) <= 2**-7).all()
    mha = model.get_layer('mha')
    values = np.abs(keras.ops.convert_to_numpy(mha._value_dense(x))).max()
    output_kernel = np.abs(keras.ops.convert_to_numpy(mha._output_dense.kernel)).sum(axis=(0, 1))
    want = model.predict(inputs, verbose=0)
    error = np.abs(outputs[0].to_double().reshape(want.shape) - want)
    assert (error <= 2**-7 * 4 * values * output_kernel + 2**-20).all()


def test_keras_return_attention_scores() -> None:
    """The second output is the softmax of the scores (heads, queries, keys): each weight within 2^-7."""
    tokens = keras.Input((3, 4))
    output, scores = keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, name='mha')(
        tokens, tokens, return_attention_scores=True
    )
    model = keras.Model(tokens, [output, scores])
    on_grid(model, 9)
    x = np.random.default_rng(10).integers(-512, 512, (20, 3, 4)) / 256
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=CONFIG, backend='Vitis')
    outputs, _ = interpret(hls_model, x)
    want_output, want_scores = model.predict(x, verbose=0)
    assert np.abs(outputs[1].to_double().reshape(want_scores.shape) - want_scores).max() <= 2**-7
    assert outputs[0].shape == (20, want_output[0].size)


# ---- torch nn.MultiheadAttention -------------------------------------------------------------------
torch = pytest.importorskip('torch')


class SelfAttention(torch.nn.Module):
    def __init__(self, call: dict | None = None, **settings) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(8, 2, **{'batch_first': True, **settings})
        self.call = call or {}

    def forward(self, x):
        output, _ = self.attention(x, x, x, **self.call)
        return output


def torch_bound(module, x: np.ndarray) -> np.ndarray:
    """2^-7 per softmax weight * n_keys * max|v| * sum_j |W_out[e, j]|, + PyTorch's float32 rounding."""
    with torch.no_grad():
        values = module.attention.in_proj_weight[16:] @ torch.tensor(x, dtype=torch.float32).transpose(1, 2)
    out_weight = np.abs(module.attention.out_proj.weight.detach().numpy()).sum(axis=1)
    return 2**-7 * x.shape[1] * (np.abs(values.numpy()).max() + 0.5) * out_weight + 1e-5


def torch_emulate(module, x: np.ndarray) -> np.ndarray:
    config = {'Model': {'Precision': CONFIG['Model']['Precision'], 'TransposeOutputs': True}, 'InputShape': (3, 8)}
    hls_model = hls4ml.converters.convert_from_pytorch_model(module, hls_config=config, backend='Vitis')
    outputs, _ = interpret(hls_model, x)
    return outputs[0].to_double()


@pytest.mark.parametrize('settings', [{}, {'bias': False}], ids=['bias', 'no_bias'])
def test_torch_self_attention_tracks_pytorch(settings) -> None:
    """need_weights=False, unread weights: no layers for them. Bound as in
    test/csim/pytorch/test_pytorch_attention_csim.py (softmax weights within 2^-7; 1/sqrt(head_dim 4) exact)."""
    torch.manual_seed(2)
    module = SelfAttention({'need_weights': False}, **settings).eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randint(-32, 32, parameter.shape) / 64)
    x = np.random.default_rng(3).integers(-512, 512, (20, 3, 8)) / 256
    with torch.no_grad():
        want = module(torch.tensor(x, dtype=torch.float32)).numpy()
    bound = torch_bound(module, x)
    assert (np.abs(torch_emulate(module, x).reshape(want.shape) - want) <= bound).all()


@pytest.mark.parametrize(
    'settings, call, named',
    [
        ({'batch_first': False}, {}, 'batch_first=False'),
        ({'add_bias_kv': True}, {}, 'add_bias_kv'),
        ({}, {'attn_mask': torch.ones(3, 3, dtype=torch.bool).triu(1)}, 'boolean mask'),
        ({}, {'attn_mask': torch.full((3, 3), float('-inf')).triu(1).fill_diagonal_(-1)}, '0 .attend. and -inf'),
        ({}, {'key_padding_mask': torch.zeros(1, 3, dtype=torch.bool)}, 'key_padding_mask'),
    ],
)
def test_torch_attention_settings_are_refused_by_name(settings, call, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        torch_emulate(SelfAttention(call, **settings), np.zeros((1, 3, 8)))


def test_torch_causal_mask_gives_exactly_zero_weight() -> None:
    """attn_mask of 0 and -inf (nn.Transformer.generate_square_subsequent_mask) with the is_causal hint:
    keys after the query get weight exactly 0; the output tracks PyTorch as without a mask."""
    torch.manual_seed(4)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(3)
    module = SelfAttention({'attn_mask': mask, 'is_causal': True, 'need_weights': False}).eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randint(-32, 32, parameter.shape) / 64)
    x = np.random.default_rng(5).integers(-512, 512, (20, 3, 8)) / 256
    config = {'Model': {'Precision': CONFIG['Model']['Precision'], 'TransposeOutputs': True}, 'InputShape': (3, 8)}
    hls_model = hls4ml.converters.convert_from_pytorch_model(module, hls_config=config, backend='Vitis')
    outputs, layers = interpret(hls_model, x)
    weights = layers['attention_softmax'].to_double().reshape(20, 2, 3, 3)
    assert (weights[:, :, np.triu(np.ones((3, 3), bool), 1)] == 0).all()
    with torch.no_grad():
        want = module(torch.tensor(x, dtype=torch.float32)).numpy()
    assert (np.abs(outputs[0].to_double().reshape(want.shape) - want) <= torch_bound(module, x)).all()


def test_a_boolean_mask_input_is_one_bit_and_the_guard_stays_quiet() -> None:
    """A `dtype='bool'` Keras input is uint<1>: the conversion guard feeds it 0/1 (not random reals, which
    made it warn on every masked model), and the firmware reads one bit per mask entry."""
    import warnings

    from hls4ml.converters.guard import ConversionMismatchWarning

    with warnings.catch_warnings():
        warnings.simplefilter('error', ConversionMismatchWarning)
        hls_model = hls4ml.converters.convert_from_keras_model(masked_model(True, False), hls_config=CONFIG)
    mask = hls_model.graph.layers[hls_model.graph.inputs[1]].types['result']
    assert str(mask) == 'uint<1>'
