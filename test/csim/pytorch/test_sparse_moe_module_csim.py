"""hls4ml.nn.torch_experts.SparseMoE (linear and FFN experts) converted and compiled (Vitis, both IO
types; one vector or (tokens, features) per sample): predict() equals the reference interpreter bit for bit, and the
module's float forward within the gate tables' tolerance. Weights and inputs are on a coarse grid, so
the gate logits are exact in fixed<16,6> and the routed experts are the module's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.model.interpreter import interpret
from hls4ml.nn.torch_experts import SparseMoE

pytestmark = pytest.mark.csim
D, OUT, EXPERTS, TOKENS = 6, 4, 5, 3
GATE_TOLERANCE = 2.0**-7


def _module(k: int, renormalize: bool, hidden: int | None) -> SparseMoE:
    module = SparseMoE(D, OUT, EXPERTS, k=k, renormalize=renormalize, hidden_features=hidden).eval()
    rng = np.random.default_rng(2)
    with torch.no_grad():
        for parameter in module.parameters():
            grid = rng.integers(-8, 9, tuple(parameter.shape)) / 16  # exact in fixed point
            parameter.copy_(torch.tensor(grid, dtype=torch.float32))
    return module


@pytest.mark.parametrize(
    ('io_type', 'shape', 'k', 'renormalize', 'hidden'),
    [
        ('io_parallel', (D,), 2, True, None),
        ('io_stream', (D,), 1, False, None),
        ('io_parallel', (TOKENS, D), 2, False, None),
        ('io_stream', (TOKENS, D), 2, True, 8),
    ],
)
def test_sparse_moe_module(tmp_path, io_type: str, shape: tuple[int, ...], k: int, renormalize: bool, hidden) -> None:
    module = _module(k, renormalize, hidden)
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': shape}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    (moe,) = [layer.name for layer in model.graph.layers.values() if layer.kind == 'MoE']
    rng = np.random.default_rng(4)
    x = rng.integers(-32, 33, (30, *shape)) / 16
    predicted = model.predict(x)
    (reference,), per_layer = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    with torch.no_grad():
        expected = module(torch.tensor(x, dtype=torch.float32)).double().numpy()
    firmware = per_layer[moe].to_double()  # (tokens, OUT) as the module; predict() is channels first
    scale = np.abs(expected).max() + 1
    np.testing.assert_allclose(firmware.reshape(expected.shape), expected, atol=k * GATE_TOLERANCE * scale)
