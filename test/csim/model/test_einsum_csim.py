"""The Einsum kernel end to end: tiny PyTorch attention products compiled with g++ on Vitis, oneAPI
and Catapult in both IO types; predict() equals the emulator bit for bit and PyTorch within what the
precision explains.

Tolerance: the inputs are written into fixed<16,6> (truncation, |error| < 2^-10 each) and the 'auto'
accumulator and result are exact, so for Q K^T over d = 4 with |q|, |k| < 3 the only error is that of
the inputs: |sum q k - sum q' k'| <= d (2 * 3 * 2^-10 + 2^-20) < 0.0235. On a 2^-8 grid the inputs are
exact and so is every product and sum (float64 holds them): the chained products must equal PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim
SHAPE = (2, 3, 4)  # heads, tokens, head dimension
BOUND = 4 * (2 * 3 * 2.0**-10 + 2.0**-20)


class Attention(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores = q @ k.transpose(-2, -1)
        return scores, torch.einsum('bhqk,bhkd->bhqd', scores, k)


def convert(tmp_path, backend: str, io_type: str, strategy: str = 'Latency', reuse_factor: int = 1):
    config = {
        'Model': {
            'Precision': {'default': 'fixed<16,6>', 'maximum': 'fixed<52,24>', 'accum': 'auto', 'result': 'auto'}
        },
        'LayerName': {name: {'Strategy': strategy, 'ReuseFactor': reuse_factor} for name in ('matmul', 'einsum')},
        'InputShape': [SHAPE, SHAPE],
    }
    return hls4ml.converters.convert_from_pytorch_model(
        Attention(), hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )


def channels_last(output: torch.Tensor) -> np.ndarray:
    return np.moveaxis(output.numpy(), 1, -1).reshape(len(output), -1)


def check(model, x: list[np.ndarray]) -> list[np.ndarray]:
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    return predicted


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_attention_products_on_every_backend(tmp_path, backend: str, io_type: str) -> None:
    model = convert(tmp_path, backend, io_type)
    model.compile()
    rng = np.random.default_rng(0)
    exact = [rng.integers(-512, 512, (40, *SHAPE)) / 256 for _ in range(2)]
    with torch.no_grad():
        expected = Attention()(*(torch.tensor(item) for item in exact))
    for got, want in zip(check(model, exact), expected, strict=True):
        np.testing.assert_array_equal(got, channels_last(want))
    uniform = [rng.uniform(-3, 3, (40, *SHAPE)) for _ in range(2)]
    scores = check(model, uniform)[0]
    with torch.no_grad():
        want = Attention()(*(torch.tensor(item) for item in uniform))[0]
    error = np.abs(scores - channels_last(want)).max()
    assert 0 < error < BOUND


def test_resource_strategy_and_reuse_factor_keep_the_bits(tmp_path) -> None:
    """Resource at RF 5 (72 products per layer: the last block partial) reaches the kernel and computes
    what Latency computes (C-simulation runs one loop for both; test/csim/nnet runs the Resource loop)."""
    x = [np.random.default_rng(1).uniform(-3, 3, (30, *SHAPE)) for _ in range(2)]
    latency = convert(tmp_path / 'latency', 'Vitis', 'io_parallel')
    resource = convert(tmp_path / 'resource', 'Vitis', 'io_parallel', 'Resource', 5)
    assert [
        layer.attributes['reuse_factor'] for layer in resource.graph.layers.values() if 'strategy' in layer.attributes
    ] == [5, 5]
    for first, second in zip(latency.predict(x), check(resource, x), strict=True):
        np.testing.assert_array_equal(first, second)
