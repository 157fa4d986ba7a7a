"""hls4ml.nn.torch_moe.SparseSoftTopK with the reference code's default p = 4/3 and an l that is not a
power of two (0.3), next to p = 2 with the same l in both modes: converted, compiled (Vitis, both IO
types), predict() equal to the interpreter bit for bit and within the documented bound of the module's
own forward (docs/topk.md); the p = 4/3 forward's gradient is the implicit one."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_topk_bounds import layer_error_bound
from hls4ml.model.reference.soft_topk_exact import soft_topk_mask_general
from hls4ml.nn.torch_moe import SparseSoftTopK

pytestmark = pytest.mark.csim
N = 8


class SoftTopKs(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cubic = SparseSoftTopK(k=2, l=0.3, p=4 / 3, iterations=14)
        self.linear = SparseSoftTopK(k=3, l=0.3)
        self.magnitude = SparseSoftTopK(k=2, l=0.3, mode='magnitude')

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.cubic(x), self.linear(x), self.magnitude(x)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_soft_topk_modules_p_four_thirds_and_any_l(tmp_path, io_type: str) -> None:
    module = SoftTopKs()
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': (N,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    x = np.round(np.random.default_rng(9).normal(0, 1, (60, N)) * 1024) / 1024  # exact in fixed<16,6>
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    with torch.no_grad():
        expected = [tensor.double().numpy() for tensor in module(torch.tensor(x))]
    for name, output, reference, framework in zip(
        ('cubic', 'linear', 'magnitude'), predicted, references, expected, strict=True
    ):
        np.testing.assert_array_equal(output, reference.to_double(), err_msg=name)
        layer = model.graph.layers[name]
        assert np.abs(output - framework).max() <= layer_error_bound(layer, model.graph.input_type(layer)), name


def test_cubic_forward_gradient_is_the_implicit_one() -> None:
    x = torch.tensor(np.random.default_rng(10).normal(0, 1, (20, N)), requires_grad=True)
    y = SparseSoftTopK(k=2, l=0.3, p=4 / 3)(x)
    gradient = torch.autograd.grad(y[:, 0].sum(), x)[0].numpy()
    step, values = 1e-6, x.detach().numpy()
    for column in (0, 3):
        moved = values.copy()
        moved[:, column] += step
        finite = (soft_topk_mask_general(moved, 2, 0.3, 4 / 3) - soft_topk_mask_general(values, 2, 0.3, 4 / 3)) / step
        np.testing.assert_allclose(gradient[:, column], finite[:, 0], atol=1e-4)
