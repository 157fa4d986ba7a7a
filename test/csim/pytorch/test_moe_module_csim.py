"""The PyTorch modules of hls4ml.nn.torch_moe (TopKRouter in its three outputs and both gatings,
SparseSoftTopK as mask and magnitude) converted and compiled on Vitis, oneAPI and Catapult in both IO
types. predict() equals the reference interpreter bit for bit. Against the module's own forward: the
weights and inputs are on a coarse grid, so the gate logits are exact in fixed<16,6> and the chosen
experts must agree exactly (ties included: both break them to the lower index); the gates agree
within the table tolerance, the soft top-k within its documented error bound."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_topk import layer_soft_topk_types, soft_topk_error_bound
from hls4ml.nn.torch_moe import ExpertChoiceRouter, SparseSoftTopK, TopKRouter

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables of the gates


class Routed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mixtral = TopKRouter(D, EXPERTS, k=2, renormalize=True, output_mode='gates')
        self.vmoe = TopKRouter(D, EXPERTS, k=2, renormalize=False, output_mode='weights')
        self.experts = TopKRouter(D, EXPERTS, k=3, output_mode='indices')
        self.mask = SparseSoftTopK(k=2, l=0.25)
        self.magnitude = SparseSoftTopK(k=3, l=0.5, mode='magnitude', iterations=10)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.mixtral(x), self.vmoe(x), self.experts(x), self.mask(x), self.magnitude(x)


def _module() -> Routed:
    module = Routed().eval()
    rng = np.random.default_rng(3)
    with torch.no_grad():
        for router in (module.mixtral, module.vmoe, module.experts):
            grid = rng.integers(-8, 9, (EXPERTS, D)) / 8  # multiples of 1/8: exact logits
            router.gate.weight.copy_(torch.tensor(grid, dtype=torch.float32))
    return module


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(4)
    return np.concatenate([rng.integers(-32, 33, (40, D)) / 16, np.zeros((2, D))])  # zeros: all logits tie


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_moe_modules(tmp_path, backend: str, io_type: str) -> None:
    module = _module()
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (D,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    kinds = {name: layer.kind for name, layer in model.graph.layers.items()}
    assert [name for name, kind in kinds.items() if kind == 'Router'] == ['mixtral', 'vmoe', 'experts']
    assert [name for name, kind in kinds.items() if kind == 'SoftTopK'] == ['mask', 'magnitude']
    x = _inputs()
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    with torch.no_grad():
        expected = [tensor.double().numpy() for tensor in module(torch.tensor(x, dtype=torch.float32))]
    gates, weights, experts, mask, magnitude = predicted
    np.testing.assert_array_equal(experts, expected[2])
    np.testing.assert_array_equal(gates != 0, expected[0] != 0)  # the same experts chosen
    np.testing.assert_allclose(gates, expected[0], atol=TOLERANCE)
    np.testing.assert_allclose(weights, expected[1], atol=TOLERANCE)
    for name, values, reference in (
        ('mask', mask, expected[3]),  # the layers are named after their modules
        ('magnitude', magnitude, expected[4]),
    ):
        layer = model.graph.layers[name]
        types = layer_soft_topk_types(layer, model.graph.input_type(layer))
        attributes = layer.attributes
        polished, bracket = soft_topk_error_bound(types, layer.types['result'], attributes['l'], attributes['mode'])
        bound = polished + bracket * 2.0 ** -attributes['iterations'] + 1e-5  # + the module's float32
        assert np.abs(values - reference).max() <= bound, name


class Chosen(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.router = ExpertChoiceRouter(capacity=2)

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return self.router(logits)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_expert_choice_module(tmp_path, backend: str, io_type: str) -> None:
    """Groups of 6 tokens over 3 experts; the gates come back channels last (experts, tokens), as
    hls4ml's PyTorch outputs do. Where an expert's 2nd and 3rd best tokens are apart by more than the
    table tolerance, the tokens it keeps are the module's."""
    module, tokens, experts = Chosen().eval(), 6, 3
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (tokens, experts)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(5).integers(-16, 17, (30, tokens, experts)) / 8
    predicted = model.predict(x)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    gates = predicted.reshape(-1, experts, tokens).transpose(0, 2, 1)
    with torch.no_grad():
        expected = module(torch.tensor(x, dtype=torch.float32)).double().numpy()
    np.testing.assert_allclose(gates, expected, atol=TOLERANCE)
    probabilities = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)
    ordered = -np.sort(-probabilities, axis=1)
    clear = (ordered[:, 1] - ordered[:, 2]) > 2 * TOLERANCE  # (sample, expert)
    np.testing.assert_array_equal((gates != 0).transpose(0, 2, 1)[clear], (expected != 0).transpose(0, 2, 1)[clear])


class Unconvertible(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.soft = SparseSoftTopK(k=2, l=0.1)
        self.soft.p = 3.0  # past the module's own check: the converter refuses it too

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.soft(x)


def test_refusals(tmp_path) -> None:
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': (D,)}
    with pytest.raises(ConversionError, match=r"'soft'.*p=3.0 and mode 'mask': expected p = 2"):
        hls4ml.converters.convert_from_pytorch_model(Unconvertible(), hls_config=config, output_dir=str(tmp_path))
    with pytest.raises(ValueError, match='k=9 must be between 1 and num_experts=8'):
        TopKRouter(D, EXPERTS, k=9)
    with pytest.raises(ValueError, match="p=1.3333333333333333 with mode 'magnitude'.*mode 'mask' only"):
        SparseSoftTopK(k=2, p=4 / 3, mode='magnitude')


class TokenRouted(torch.nn.Module):
    """The three routers of `Routed` on (tokens, D) inputs: each token (row) routed on its own."""

    def __init__(self) -> None:
        super().__init__()
        self.routed = _module()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.routed.mixtral(x), self.routed.vmoe(x), self.routed.experts(x)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_topk_router_per_token(tmp_path, backend: str, io_type: str) -> None:
    """Router rows (n_rows = 5 tokens): bit-exact, PyTorch's experts exactly, the gates within TOLERANCE;
    io_stream reads one token's logits per element."""
    module = TokenRouted().eval()
    config = {'Model': {'Precision': 'fixed<16,6>', 'TransposeOutputs': True}, 'InputShape': (5, D)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = _inputs()[2:].reshape(8, 5, D)
    x[0, 1] = 0  # a token whose logits all tie
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double().reshape(output.shape))
    with torch.no_grad():
        expected = [tensor.double().numpy() for tensor in module(torch.tensor(x, dtype=torch.float32))]
    gates, weights, experts = (output.reshape(want.shape) for output, want in zip(predicted, expected, strict=True))
    np.testing.assert_array_equal(experts, expected[2])
    np.testing.assert_array_equal(gates != 0, expected[0] != 0)
    np.testing.assert_allclose(gates, expected[0], atol=TOLERANCE)
    np.testing.assert_allclose(weights, expected[1], atol=TOLERANCE)
