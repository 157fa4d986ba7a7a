"""hls4ml.nn.torch_routers.SoftTopKRouter converted from PyTorch and compiled on Vitis (io_parallel) and
oneAPI (io_stream): predict() equals the interpreter bit for bit; the weights and inputs are on a coarse
grid, so the gate logits are exact in fixed<16,6>, and the module's own float gates and overflow counts
agree with the firmware (gates within the table tolerance, counts exactly where the support is clear)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.model.interpreter import interpret
from hls4ml.nn.torch_routers import SoftTopKRouter

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7


class Routed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gates = SoftTopKRouter(D, EXPERTS, k=2, l=0.5, k_max=3)
        self.overflow = SoftTopKRouter(D, EXPERTS, k=2, l=0.5, k_max=3, output_mode='overflow')

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.gates(x), self.overflow(x)


@pytest.mark.parametrize(('backend', 'io_type'), [('Vitis', 'io_parallel'), ('oneAPI', 'io_stream')])
def test_soft_router_module(tmp_path, backend: str, io_type: str) -> None:
    module = Routed().eval()
    grid = np.random.default_rng(3).integers(-8, 9, (EXPERTS, D)) / 8  # multiples of 1/8: exact logits
    with torch.no_grad():
        for router in (module.gates, module.overflow):
            router.gate.weight.copy_(torch.tensor(grid, dtype=torch.float32))
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (D,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path / 'prj'), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(4).integers(-32, 33, (60, D)) / 16
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for values, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(values, reference.to_double())
    with torch.no_grad():
        gates, overflow = (value.double().numpy() for value in module(torch.tensor(x, dtype=torch.float32)))
    np.testing.assert_allclose(predicted[0], gates, atol=TOLERANCE)
    agree = predicted[1][:, 0] == overflow[:, 0]
    assert agree.mean() > 0.95 and overflow.max() >= 1  # the bound dropped experts in some rows


class CubicRouted(torch.nn.Module):
    """p = 4/3 in both soft routers: token choice over each token of a group, soft expert choice of the group."""

    def __init__(self) -> None:
        super().__init__()
        from hls4ml.nn.torch_moe import ExpertChoiceRouter

        self.tokens = SoftTopKRouter(D, EXPERTS, k=2, l=0.5, p=4 / 3, k_max=3, iterations=14)
        self.choice = ExpertChoiceRouter(capacity=2, l=0.25, iterations=14, p=4 / 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.tokens(x), self.choice(self.tokens.gate(x))


def test_cubic_router_modules(tmp_path) -> None:
    """SoftTopKRouter(p=4/3) and ExpertChoiceRouter(l, p=4/3) converted: firmware == interpreter bit for
    bit, and the modules' float forwards (the exact general-p solver) within the table tolerances."""
    module = CubicRouted().eval()
    grid = np.random.default_rng(3).integers(-8, 9, (EXPERTS, D)) / 8  # multiples of 1/8: exact logits
    with torch.no_grad():
        module.tokens.gate.weight.copy_(torch.tensor(grid, dtype=torch.float32))
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (3, D)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    assert {layer.attributes.get('p') for layer in model.graph.layers.values()} >= {4 / 3}
    x = np.random.default_rng(4).integers(-32, 33, (40, 3, D)) / 16
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for values, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(np.asarray(values).reshape(reference.shape), reference.to_double())
    with torch.no_grad():
        gates, choice = (value.double().numpy() for value in module(torch.tensor(x, dtype=torch.float32)))
    tokens = np.asarray(predicted[0]).reshape(-1, EXPERTS, 3).swapaxes(1, 2)  # PyTorch outputs: channels last
    np.testing.assert_allclose(tokens, gates, atol=TOLERANCE)
    np.testing.assert_allclose(np.asarray(predicted[1]).reshape(-1, EXPERTS, 3).swapaxes(1, 2), choice, atol=2.0**-6)
