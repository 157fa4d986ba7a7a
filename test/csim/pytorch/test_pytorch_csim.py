"""PyTorch models through the whole path: trace -> convert -> write -> g++ -> predict(), in both IO types.

Every output is checked twice: bit for bit against the reference interpreter and within a tolerance
of PyTorch eager, in the layout predict() promises (channels last unless transpose_outputs=True,
inputs channels first unless channels_last_conversion='internal'). Models are tiny, and several
operations share a model, to keep the number of compiles small.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import hls4ml
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")]
IO_TYPES = ['io_parallel', 'io_stream']


def randomized(norm: nn.Module, seed: int = 3) -> nn.Module:
    """A batch norm with trained-looking statistics."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for tensor, low, high in ((norm.running_mean, -0.5, 0.5), (norm.running_var, 0.5, 2.0)):
            tensor.copy_(torch.rand(tensor.shape, generator=generator) * (high - low) + low)
        norm.weight.copy_(torch.rand(norm.weight.shape, generator=generator) + 0.5)
        norm.bias.copy_(torch.rand(norm.bias.shape, generator=generator) - 0.5)
    return norm


class Heads(nn.Module):
    """A Linear layer read by up to three heads (modules or functions), one output each."""

    def __init__(self, *heads: Any, n_in: int = 6, n_hidden: int = 8) -> None:
        super().__init__()
        self.fc = nn.Linear(n_in, n_hidden)
        self.heads = nn.ModuleList(head for head in heads if isinstance(head, nn.Module))
        self.functions = [head for head in heads if not isinstance(head, nn.Module)]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        hidden = self.fc(x)
        return (*(head(hidden) for head in self.heads), *(function(hidden) for function in self.functions))


class Arithmetic(nn.Module):
    """Two inputs; tensor-tensor merges, tensor-constant arithmetic and a product with a constant matrix."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.shift = nn.Parameter(torch.linspace(-1, 1, 6))
        self.register_buffer('matrix', torch.linspace(-1, 1, 18).reshape(6, 3))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.fc(a)
        total, difference = hidden + b, torch.sub(hidden, b)
        larger = torch.maximum(total * difference, hidden)
        scaled = (2.0 - larger) / 4 + self.shift
        return scaled @ self.matrix, torch.minimum(total, b)


class Shuffles(nn.Module):
    """Concatenation, permute, transpose, view with x.size(0), flatten and (un)squeeze."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 1)
        self.fc = nn.Linear(60, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        joined = torch.cat([self.conv(x), x.relu()], dim=1)
        moved = joined.permute(0, 2, 3, 1).transpose(1, 2)
        grid = torch.flatten(joined, 2).unsqueeze(1).squeeze(1)
        return self.fc(moved.reshape(moved.size(0), -1)), grid


class TwoHeads(nn.Module):
    """Two inputs, a Sequential inside a custom forward, two outputs (a feature map and a vector)."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.side = nn.Linear(4, 3)
        self.head = nn.Linear(3 * 3 * 2 + 3, 5)

    def forward(self, image: torch.Tensor, vector: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        maps = self.features(image)
        joined = torch.cat([torch.flatten(maps, 1), F.relu(self.side(vector))], dim=1)
        return maps, self.head(joined)


class Residual(nn.Module):
    """A ResNet basic block (in-place add of the skip branch), global pooling and a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(2, 2, 3, padding=1), nn.Conv2d(2, 2, 3, padding=1, bias=False)
        self.norm = randomized(nn.BatchNorm2d(2))
        self.fc = nn.Linear(2, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.norm(self.conv2(F.relu(self.conv1(x))))
        out += x
        return self.fc(F.relu(out).mean((2, 3)))


def cnn2d() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1),
        randomized(nn.BatchNorm2d(4)),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, padding='same', groups=4),
        nn.AvgPool2d(3, stride=2, padding=1),
        nn.Flatten(),
        nn.Linear(16, 5),
        nn.Softmax(dim=1),
    )


def cnn2d_pools() -> nn.Module:
    return nn.Sequential(
        nn.ZeroPad2d((1, 0, 0, 1)),
        nn.Conv2d(2, 3, (2, 4), padding='same', bias=False),
        nn.LeakyReLU(0.1),
        nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
        nn.AdaptiveMaxPool2d((2, 1)),
        nn.AdaptiveAvgPool2d(1),
    )


def cnn1d() -> nn.Module:
    return nn.Sequential(
        nn.Conv1d(2, 3, 4, padding='same'),
        randomized(nn.BatchNorm1d(3)),
        nn.Tanh(),
        nn.MaxPool1d(2),
        nn.Conv1d(3, 3, 3, stride=2, padding=1, groups=3),
        nn.AvgPool1d(2, padding=1),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(3, 2),
    )


def mlp_with_dropout_and_batchnorm() -> nn.Module:
    return nn.Sequential(nn.Linear(6, 8), randomized(nn.BatchNorm1d(8)), nn.Dropout(0.5), nn.ReLU(), nn.Linear(8, 3))


CASES: dict[str, tuple[Callable[[], nn.Module], Any, float, str]] = {  # model, input shape, atol, precision
    'cnn2d': (cnn2d, (2, 6, 6), 0.03, 'ap_fixed<16,6>'),
    'cnn2d_pools': (cnn2d_pools, (2, 6, 6), 0.02, 'ap_fixed<16,6>'),
    'cnn1d': (cnn1d, (2, 10), 0.03, 'ap_fixed<16,6>'),
    'mlp_dropout_batchnorm': (mlp_with_dropout_and_batchnorm, (6,), 0.03, 'ap_fixed<16,6>'),
    'relu_leaky_elu': (lambda: Heads(nn.ReLU(), nn.LeakyReLU(0.1), nn.ELU(0.5)), (6,), 0.03, 'ap_fixed<16,6>'),
    'elu_selu_prelu': (lambda: Heads(nn.ELU(), nn.SELU(), nn.PReLU(8, 0.2)), (6,), 0.03, 'ap_fixed<16,6>'),
    'sigmoid_tanh_softmax': (lambda: Heads(nn.Sigmoid(), nn.Tanh(), nn.Softmax(dim=1)), (6,), 0.02, 'ap_fixed<16,6>'),
    'softplus_softsign_hardsigmoid': (
        lambda: Heads(nn.Softplus(), nn.Softsign(), nn.Hardsigmoid()),
        (6,),
        0.04,
        'ap_fixed<16,6>',
    ),
    'threshold_hardtanh_identity': (
        lambda: Heads(nn.Threshold(0.3, 0.0), nn.Hardtanh(), nn.Identity()),
        (6,),
        0.02,
        'ap_fixed<16,6>',
    ),
    'functional_relu_sigmoid_tanh': (
        lambda: Heads(lambda h: F.relu(h), torch.sigmoid, lambda h: h.tanh()),
        (6,),
        0.02,
        'ap_fixed<16,6>',
    ),
    'functional_leaky_elu_softmax': (
        lambda: Heads(lambda h: F.leaky_relu(h, 0.2), lambda h: F.elu(h, 0.7), lambda h: h.softmax(-1)),
        (6,),
        0.03,
        'ap_fixed<16,6>',
    ),
    'arithmetic': (Arithmetic, [(6,), (6,)], 0.06, 'ap_fixed<20,8>'),
    'shuffles': (Shuffles, (2, 3, 4), 0.02, 'ap_fixed<16,6>'),
    'residual': (Residual, (2, 6, 6), 0.03, 'ap_fixed<16,6>'),
}


def convert(
    model: nn.Module, shape: Any, tmp_path, io_type: str, precision: str, mode: str = 'full', transpose: bool = False
) -> ModelGraph:
    config = hls4ml.utils.config_from_pytorch_model(
        model,
        shape,
        granularity='name',
        default_precision=precision,
        channels_last_conversion=mode,
        transpose_outputs=transpose,
    )
    return hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def check(
    hls_model: ModelGraph, model: nn.Module, shape: Any, atol: float, mode: str = 'full', transpose: bool = False
) -> None:
    rng = np.random.default_rng(11)
    x = [rng.uniform(-2, 2, (40, *item)).astype(np.float32) for item in (shape if isinstance(shape, list) else [shape])]
    feed = [np.moveaxis(item, 1, -1).copy() if mode == 'internal' and item.ndim >= 3 else item for item in x]
    feed_arg = feed if len(feed) > 1 else feed[0]
    predicted = hls_model.predict(feed_arg)
    predicted = predicted if isinstance(predicted, list) else [predicted]
    expected, _ = interpret(hls_model, feed_arg)
    with torch.no_grad():
        outputs = model(*(torch.tensor(item) for item in x))
    outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    channels_last = mode != 'off' and not transpose
    for mine, reference, output in zip(predicted, expected, outputs, strict=True):
        np.testing.assert_array_equal(mine, reference.to_double().astype(mine.dtype))
        output = output.numpy()
        if channels_last and output.ndim >= 3:
            output = np.moveaxis(output, 1, -1)
        np.testing.assert_allclose(mine, output.reshape(len(output), -1), atol=atol)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('case', sorted(CASES))
def test_model_is_bit_exact_and_close_to_torch(case: str, io_type: str, tmp_path) -> None:
    torch.manual_seed(1)
    factory, shape, atol, precision = CASES[case]
    model = factory()
    check(convert(model, shape, tmp_path, io_type, precision), model, shape, atol)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('mode, transpose', [('full', False), ('internal', True)])
def test_two_inputs_and_two_outputs_in_each_layout(mode: str, transpose: bool, io_type: str, tmp_path) -> None:
    torch.manual_seed(4)
    model, shapes = TwoHeads(), [(2, 6, 4), (4,)]
    hls_model = convert(model, shapes, tmp_path, io_type, 'ap_fixed<16,6>', mode, transpose)
    check(hls_model, model, shapes, 0.03, mode, transpose)


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_mlp_without_channels_last_conversion(io_type: str, tmp_path) -> None:
    torch.manual_seed(5)
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 5), nn.ReLU(), nn.Linear(5, 3))
    hls_model = convert(model, (3, 4), tmp_path, io_type, 'ap_fixed<16,6>', mode='off')
    assert 'Transpose' not in [layer.kind for layer in hls_model.graph.layers.values()]
    check(hls_model, model, (3, 4), 0.03, mode='off')


def test_dropout_is_removed_and_batchnorm_folded_into_the_dense(tmp_path) -> None:
    torch.manual_seed(1)
    model = mlp_with_dropout_and_batchnorm()
    hls_model = convert(model, (6,), tmp_path, 'io_parallel', 'ap_fixed<16,6>')
    assert [layer.kind for layer in hls_model.graph.layers.values()] == ['Input', 'Dense', 'Activation', 'Dense']
