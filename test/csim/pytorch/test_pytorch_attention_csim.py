"""torch nn.MultiheadAttention (batch_first, cross-attention, 2 heads of 4, both outputs: the
attention output and the head-averaged weights) compiled with g++ on Vitis (io_parallel), oneAPI and
Catapult (io_stream; the Keras test covers the other pairs), and batch_first=False between transposes
(self-attention, the other IO types): predict() equals the emulator bit for bit and PyTorch within the
softmax-table bound.

The bound is the Keras test's (test/csim/keras/test_keras_attention_csim.py): inputs on a 2^-8 grid and
weights on a 2^-6 grid make the projections exact (the query scale 1/sqrt(4) = 1/2 is exact), the
capped score and output sums lose less than 2^-20, and each softmax weight is within DELTA = 2^-7 of
the float softmax, so an output moves by at most DELTA * n_keys * max|v| * sum_j |W_out[e, j]|; the
averaged weights (a Dense of weight 1/2 over the heads, exact) stay within DELTA."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore:.auto. precision is capped')]
torch = pytest.importorskip('torch')

DELTA = 2**-7
PRECISION = {'default': 'fixed<16,6>', 'maximum': 'fixed<48,20>', 'accum': 'auto', 'result': 'auto'}
CONFIG = {'Model': {'Precision': PRECISION, 'TransposeOutputs': True}, 'InputShape': [(4, 8), (3, 6)]}


class CrossAttention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=6)

    def forward(self, tokens, context):
        output, weights = self.attention(tokens, context, context)
        return output, weights


@pytest.fixture(scope='module')
def model():
    torch.manual_seed(0)
    module = CrossAttention().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randint(-32, 32, parameter.shape) / 64)
    return module


@pytest.fixture(scope='module')
def inputs():
    rng = np.random.default_rng(1)
    return [rng.integers(-512, 512, (40, 4, 8)) / 256, rng.integers(-512, 512, (40, 3, 6)) / 256]


def output_bound(model, inputs) -> np.ndarray:
    attention = model.attention
    values = inputs[1] @ attention.v_proj_weight.detach().double().numpy().T
    values += attention.in_proj_bias.detach().double().numpy()[16:]
    out_weight = np.abs(attention.out_proj.weight.detach().double().numpy()).sum(axis=1)
    return DELTA * inputs[1].shape[1] * np.abs(values).max() * out_weight + 1e-5  # float32 sums of PyTorch


@pytest.mark.parametrize(
    'backend, io_type', [('Vitis', 'io_parallel'), ('oneAPI', 'io_stream'), ('Catapult', 'io_stream')]
)
def test_multihead_attention_on_every_backend(model, inputs, tmp_path, backend: str, io_type: str) -> None:
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=CONFIG, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    predicted = hls_model.predict(inputs)
    references, _ = interpret(hls_model, inputs)
    with torch.no_grad():
        output, weights = model(*(torch.tensor(x, dtype=torch.float32) for x in inputs))
    for got, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(got, reference.to_double())
    error = np.abs(predicted[0].reshape(output.shape) - output.numpy())
    assert (error <= output_bound(model, inputs)).all(), error.max()
    assert np.abs(predicted[1].reshape(weights.shape) - weights.numpy()).max() <= DELTA


class SequenceFirstAttention(torch.nn.Module):
    """batch_first=False between x.transpose(0, 1) and the transpose back (the transposes cancel)."""

    def __init__(self) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(8, 2)

    def forward(self, x):
        tokens = x.transpose(0, 1)
        output, _ = self.attention(tokens, tokens, tokens, need_weights=False)
        return output.transpose(0, 1)


@pytest.mark.parametrize(
    'backend, io_type', [('Vitis', 'io_stream'), ('oneAPI', 'io_parallel'), ('Catapult', 'io_parallel')]
)
def test_sequence_first_attention_on_every_backend(tmp_path, backend: str, io_type: str) -> None:
    """The IO types the batch-first test above does not run; the same bound (self-attention: 4 keys)."""
    torch.manual_seed(3)
    module = SequenceFirstAttention().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randint(-32, 32, parameter.shape) / 64)
    x = np.random.default_rng(4).integers(-512, 512, (40, 4, 8)) / 256
    config = {'Model': {'Precision': PRECISION, 'TransposeOutputs': True}, 'InputShape': (4, 8)}
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    hls_model.compile()
    predicted = hls_model.predict(x)
    reference, _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, reference[0].to_double().reshape(predicted.shape))
    with torch.no_grad():
        want = module(torch.tensor(x, dtype=torch.float32)).numpy()
    values = x @ module.attention.in_proj_weight[16:].detach().double().numpy().T
    values += module.attention.in_proj_bias[16:].detach().double().numpy()
    out_weight = np.abs(module.attention.out_proj.weight.detach().double().numpy()).sum(axis=1)
    bound = DELTA * x.shape[1] * np.abs(values).max() * out_weight + 1e-5
    assert (np.abs(predicted.reshape(want.shape) - want) <= bound).all()
