"""torch nn.MultiheadAttention(batch_first=False) between `x.transpose(0, 1)` and the transpose back
(docs/attention.md): the transposes cancel against the layer's layout, so the conversion is the
batch_first=True one, layer for layer; every other use of a sequence-first tensor is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

torch = pytest.importorskip('torch')

PRECISION = {'default': 'fixed<16,6>', 'maximum': 'fixed<40,16>', 'accum': 'auto', 'result': 'auto'}
pytestmark = pytest.mark.filterwarnings('ignore:.auto. precision is capped')


class SequenceFirst(torch.nn.Module):
    """The usual pattern around a batch_first=False attention inside a batch-first model (written with
    permute and torch.transpose here; the csim test writes x.transpose(0, 1))."""

    def __init__(self, batch_first: bool = False) -> None:
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first)

    def forward(self, x):
        if self.attention.batch_first:
            output, weights = self.attention(x, x, x)
            return output, weights
        tokens = x.permute(1, 0, 2)
        output, weights = self.attention(tokens, tokens, tokens)
        return torch.transpose(output, 1, 0), weights


def on_grid(module: torch.nn.Module) -> torch.nn.Module:
    """Weights on a 2^-6 grid, exact in fixed<16,6>."""
    torch.manual_seed(6)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randint(-32, 32, parameter.shape) / 64)
    return module.eval()


def convert(module: torch.nn.Module, shapes=(3, 8)):
    config = {'Model': {'Precision': PRECISION, 'TransposeOutputs': True}, 'InputShape': shapes}
    return hls4ml.converters.convert_from_pytorch_model(module, hls_config=config, backend='Vitis')


def test_sequence_first_attention_is_the_batch_first_conversion() -> None:
    """The same layers (no Transpose of the batch axis) and the same bits as batch_first=True, and
    PyTorch within the bound of test_attention_frontends.py (softmax weights within 2^-7 each)."""
    module = on_grid(SequenceFirst())
    twin = SequenceFirst(batch_first=True)
    twin.load_state_dict(module.state_dict())
    hls_model, twin_model = convert(module), convert(twin.eval())
    assert [layer.kind for layer in hls_model.graph.layers.values()] == [
        layer.kind for layer in twin_model.graph.layers.values()
    ]
    x = np.random.default_rng(7).integers(-512, 512, (20, 3, 8)) / 256
    (output, weights), _ = interpret(hls_model, x)
    (twin_output, twin_weights), _ = interpret(twin_model, x)
    np.testing.assert_array_equal(output.to_double(), twin_output.to_double())
    np.testing.assert_array_equal(weights.to_double(), twin_weights.to_double())
    with torch.no_grad():
        want, want_weights = module(torch.tensor(x, dtype=torch.float32))
    values = x @ module.attention.in_proj_weight[16:].detach().double().numpy().T
    out_weight = np.abs(module.attention.out_proj.weight.detach().double().numpy()).sum(axis=1)
    bound = 2**-7 * 3 * (np.abs(values).max() + 0.5) * out_weight + 1e-5
    assert (np.abs(output.to_double().reshape(want.shape) - want.numpy()) <= bound).all()
    assert np.abs(weights.to_double().reshape(want_weights.shape) - want_weights.numpy()).max() <= 2**-7


class Misused(torch.nn.Module):
    """A sequence-first tensor somewhere it cannot be expressed."""

    def __init__(self, case: str) -> None:
        super().__init__()
        self.case = case
        self.attention = torch.nn.MultiheadAttention(8, 2)

    def forward(self, x):
        tokens = x.transpose(0, 1)
        if self.case == 'not transposed':
            return self.attention(x, x, x, need_weights=False)[0]
        if self.case == 'other layer':
            return torch.relu(tokens).transpose(0, 1)
        return self.attention(tokens, tokens, tokens, need_weights=False)[0]  # 'left sequence-first'


@pytest.mark.parametrize(
    'case, named',
    [
        ('not transposed', 'batch_first=False reads the query'),
        ('other layer', 'batch on axis 1'),
        ('left sequence-first', 'output 0 of the model has the batch on axis 1'),
    ],
)
def test_sequence_first_misuse_is_refused_by_name(case: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        convert(Misused(case).eval())
