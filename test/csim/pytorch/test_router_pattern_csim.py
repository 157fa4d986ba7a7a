"""The router subgraph written by hand, as HF Mixtral / Qwen-MoE / OLMoE blocks do (gate Linear ->
softmax -> topk -> optional division by the sum of the kept values), converts to Router layers
(hls4ml/converters/pytorch/router_pattern.py), compiled on Vitis in both IO types: predict() equals
the reference interpreter bit for bit; the gate weights and inputs are on a coarse grid, so the
logits are exact and the chosen experts are PyTorch's (ties to the lower index, as a stable sort);
the gates agree within the table tolerance. Where the probabilities are read elsewhere too, the
softmax and top-k convert as before, and a division by the computed sum is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.pytorch import parse_pytorch_model
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables of the gates
# (output layer, k, renormalised): the four gatings, each in another spelling of the pattern
ROUTERS = [('topk', 2, True), ('topk_1', 1, True), ('topk_2', 2, False), ('topk_3', 1, False)]


class HandWritten(torch.nn.Module):
    """Four routers of one token: Mixtral (k = 2, renormalised), renormalised k = 1 (gate 1), V-MoE
    (k = 2, not renormalised) and Switch (k = 1)."""

    def __init__(self) -> None:
        super().__init__()
        self.gates = torch.nn.ModuleList(torch.nn.Linear(D, EXPERTS, bias=False) for _ in ROUTERS)
        self.softmax = torch.nn.Softmax(dim=-1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        probabilities = F.softmax(self.gates[0](x), dim=1, dtype=torch.float)  # as in HF Mixtral
        mixtral, mixtral_experts = torch.topk(probabilities, 2, dim=-1)
        mixtral /= mixtral.sum(dim=-1, keepdim=True)
        mixtral = mixtral.to(x.dtype)  # as in HF Mixtral: a floating cast, nothing to do on chip
        single = self.gates[1](x).softmax(-1).topk(1, sorted=True)
        single_weights = torch.div(single.values, torch.sum(single.values, dim=-1, keepdim=True))
        vmoe, vmoe_experts = torch.softmax(self.gates[2](x), dim=-1).topk(2)
        switch = torch.topk(self.softmax(self.gates[3](x)), 1)
        return mixtral, mixtral_experts, single_weights, single.indices, vmoe, vmoe_experts, switch[0], switch[1]


def _module() -> HandWritten:
    module = HandWritten().eval()
    rng = np.random.default_rng(7)
    with torch.no_grad():
        for gate in module.gates:  # multiples of 1/8: exact logits in fixed<16,6>
            gate.weight.copy_(torch.tensor(rng.integers(-8, 9, (EXPERTS, D)) / 8, dtype=torch.float32))
    return module


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(8)
    return np.concatenate([rng.integers(-32, 33, (40, D)) / 16, np.zeros((2, D))])  # zeros: all logits tie


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_hand_written_routers(tmp_path, io_type: str) -> None:
    module = _module()
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (D,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    routers = {name: layer for name, layer in model.graph.layers.items() if layer.kind == 'Router'}
    assert not {layer.kind for layer in model.graph.layers.values()} & {'Softmax', 'TopK'}
    for name, k, renormalize in ROUTERS:
        for layer, output in ((routers[name], 'weights'), (routers[f'{name}_indices'], 'indices')):
            assert (layer.attributes['k'], layer.attributes['renormalize'], layer.attributes['output']) == (
                k,
                renormalize,
                output,
            )
    x = _inputs()
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    with torch.no_grad():
        expected = [tensor.double().numpy() for tensor in module(torch.tensor(x, dtype=torch.float32))]
        logits = [gate(torch.tensor(x, dtype=torch.float32)).double().numpy() for gate in module.gates]
    for index, (_, k, _) in enumerate(ROUTERS):
        weights, experts = predicted[2 * index], predicted[2 * index + 1]
        stable = np.argsort(-logits[index], axis=1, kind='stable')[:, :k]  # ties to the lower index
        np.testing.assert_array_equal(experts, stable)
        ordered = -np.sort(-logits[index], axis=1)
        untied = (ordered[:, k - 1] > ordered[:, k]) & np.all(ordered[:, : k - 1] > ordered[:, 1:k], axis=1)
        np.testing.assert_array_equal(experts[untied], expected[2 * index + 1][untied])  # torch's own choice
        np.testing.assert_allclose(weights, expected[2 * index], atol=TOLERANCE)  # tied gates are equal


class Reused(torch.nn.Module):
    """The probabilities are an output too: Softmax and TopK layers, as before the pattern."""

    def __init__(self, renormalize: bool) -> None:
        super().__init__()
        self.gate = torch.nn.Linear(D, EXPERTS, bias=False)
        self.renormalize = renormalize

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        probabilities = F.softmax(self.gate(x), dim=-1)
        weights, experts = torch.topk(probabilities, 2, dim=-1)
        if self.renormalize:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return weights, experts, probabilities


def test_reused_probabilities_keep_softmax_and_topk() -> None:
    graph, _ = parse_pytorch_model(Reused(renormalize=False), (D,))
    kinds = {name: layer.kind for name, layer in graph.layers.items()}
    assert kinds == {'x': 'Input', 'gate': 'Dense', 'softmax': 'Softmax', 'topk': 'TopK', 'topk_indices': 'TopK'}


def test_refused_renormalisation_names_the_division() -> None:
    message = (
        r"'sum_1'.* and 'truediv': divide the top-k values of 'topk' by their sum.*'softmax' \(the probabilities\)"
    )
    with pytest.raises(ConversionError, match=message + r'.*also read by .output.*hls4ml\.nn\.torch_moe\.TopKRouter'):
        parse_pytorch_model(Reused(renormalize=True), (D,))


class Tokens(torch.nn.Module):
    """A group of tokens: softmax and top-k over the experts of each token, which the IR has not."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(F.softmax(x, dim=-1), 2).values


def test_router_over_tokens_is_refused() -> None:
    with pytest.raises(ConversionError, match=r"'topk' \(softmax_topk, function\).*logits of shape \(3, 8\)"):
        parse_pytorch_model(Tokens(), (3, EXPERTS))
