"""hls4ml.nn.torch_experts.SoftMoE converted into Dense, Softmax, Einsum and EinsumDense layers and
compiled (Vitis both IO types, oneAPI): predict() equals the reference interpreter bit for bit, and
the firmware is within the documented bound (docs/moe.md, "Soft MoE") of the float64 definition
(reference.moe.soft_moe_exact) on the quantized inputs and parameters."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.moe import soft_moe_error_bound, soft_moe_exact
from hls4ml.nn.torch_experts import SoftMoE

pytestmark = pytest.mark.csim
TOKENS, D, OUT, EXPERTS, SLOTS = 4, 3, 2, 2, 2
SOFTMAX_TOLERANCE = 2.0**-7  # per entry of D and C: the 1024-entry tables and a 10-fraction-bit result


def _module() -> SoftMoE:
    module = SoftMoE(D, OUT, EXPERTS, SLOTS).eval()
    rng = np.random.default_rng(1)
    with torch.no_grad():
        for parameter in (module.slots, module.weight, module.bias):
            parameter.copy_(torch.tensor(rng.integers(-8, 9, tuple(parameter.shape)) / 8, dtype=torch.float32))
    return module


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('oneAPI', 'io_parallel')]
)
def test_soft_moe_module(tmp_path, backend: str, io_type: str) -> None:
    module = _module()
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (TOKENS, D)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    kinds = {layer.kind for layer in model.graph.layers.values()}
    assert {'Softmax', 'Einsum', 'EinsumDense'} <= kinds and 'MoE' not in kinds
    x = np.random.default_rng(0).integers(-16, 17, (12, TOKENS, D)) / 8
    predicted = model.predict(x)
    (reference,), per_layer = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    firmware = per_layer['softmoe'].to_double().reshape(-1, TOKENS, OUT)  # (tokens, OUT): the module's order
    parameters = [p.detach().double().numpy() for p in (module.slots, module.weight, module.bias)]
    for sample, y in zip(x, firmware, strict=True):
        stages = soft_moe_exact(sample, *parameters)
        np.testing.assert_allclose(
            y, stages['y'], atol=soft_moe_error_bound(sample, parameters[1], stages, SOFTMAX_TOLERANCE)
        )
    with torch.no_grad():
        framework = module(torch.tensor(x, dtype=torch.float32)).double().numpy()
    np.testing.assert_allclose(framework, [soft_moe_exact(s, *parameters)['y'] for s in x], atol=1e-5)
