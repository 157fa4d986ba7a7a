"""PyTorch mixture-of-experts modules that compute only the routed experts in firmware (docs/moe.md,
"Conditional experts").

* `SparseMoE`: token choice over `num_experts` Linear experts (with bias), or two-layer FFN experts
  (Linear -> ReLU -> Linear, `hidden_features`): the gate Linear gives the
  router logits, the softmax gates of the k best experts (ties to the lower index, renormalised over
  them or not) weight those experts' outputs, y = sum of gate_e * (x W_e + b_e). hls4ml converts it
  into a gate Dense and one MoE layer, whose firmware computes k experts per token, not all of them.

The forward pass is one call of `sparse_moe` after the gate, which torch.fx keeps as one node
(`torch.fx.wrap`), so the frontend sees the whole mixture. The float forward evaluates every expert
(simple and exact; the saving is the firmware's).
"""

from __future__ import annotations

import math

import torch

from hls4ml.nn.torch_moe import topk_router


def sparse_moe(
    x: torch.Tensor, logits: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, k: int, renormalize: bool
) -> torch.Tensor:
    """y = sum over the experts of gate_e * (x W_e + b_e), the gates 0 but for each token's k best;
    x (..., in), logits (..., E), weight (E, in, out), bias (E, out)."""
    gates = topk_router(logits, k, renormalize, 'gates')
    outputs = torch.einsum('...i,eio->...eo', x, weight) + bias
    return (gates.unsqueeze(-1) * outputs).sum(dim=-2)


def sparse_moe_ffn(
    x: torch.Tensor,
    logits: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor,
    weight2: torch.Tensor,
    bias2: torch.Tensor,
    k: int,
    renormalize: bool,
) -> torch.Tensor:
    """As `sparse_moe` with two-layer FFN experts relu(x W_e + b_e) W2_e + b2_e (weight (E, in, hidden),
    weight2 (E, hidden, out))."""
    gates = topk_router(logits, k, renormalize, 'gates')
    hidden = torch.relu(torch.einsum('...i,eih->...eh', x, weight) + bias)
    outputs = torch.einsum('...eh,eho->...eo', hidden, weight2) + bias2
    return (gates.unsqueeze(-1) * outputs).sum(dim=-2)


torch.fx.wrap('sparse_moe')
torch.fx.wrap('sparse_moe_ffn')


class SparseMoE(torch.nn.Module):
    """Token-choice mixture of `num_experts` Linear(in_features, out_features) experts, or with
    `hidden_features` of two-layer FFN experts Linear -> ReLU -> Linear, k per token. Input
    (batch, in_features) or (batch, tokens, in_features), each token routed on its own."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        num_experts: int,
        k: int = 2,
        renormalize: bool = True,
        gate_bias: bool = False,
        hidden_features: int | None = None,
    ) -> None:
        super().__init__()
        if not 1 <= int(k) <= int(num_experts):
            raise ValueError(f'SparseMoE: k={k} must be between 1 and num_experts={num_experts}')
        self.gate = torch.nn.Linear(in_features, num_experts, bias=gate_bias)
        first = int(hidden_features) if hidden_features else out_features
        self.weight, self.bias = _expert_parameters(num_experts, in_features, first)
        second = _expert_parameters(num_experts, first, out_features) if hidden_features else (None, None)
        self.weight2: torch.nn.Parameter | None = second[0]
        self.bias2: torch.nn.Parameter | None = second[1]
        self.k, self.renormalize = int(k), bool(renormalize)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.gate(x)
        if self.weight2 is None or self.bias2 is None:
            return sparse_moe(x, logits, self.weight, self.bias, self.k, self.renormalize)
        return sparse_moe_ffn(x, logits, self.weight, self.bias, self.weight2, self.bias2, self.k, self.renormalize)


def _expert_parameters(experts: int, n_in: int, n_out: int) -> tuple[torch.nn.Parameter, torch.nn.Parameter]:
    """Weights (E, n_in, n_out) and biases (E, n_out), each expert initialised as torch.nn.Linear is."""
    bound = 1 / math.sqrt(n_in)
    weight = torch.nn.Parameter(torch.empty(experts, n_in, n_out).uniform_(-bound, bound))
    return weight, torch.nn.Parameter(torch.empty(experts, n_out).uniform_(-bound, bound))


def soft_moe(x: torch.Tensor, slots: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Soft MoE (Puigcerver et al. 2023) of a group of tokens x (batch, n, d), without the token
    normalisation and scale: logits L = x slots (slots: d x (E S), expert-major), dispatch D = softmax
    over the tokens (per slot), combine C = softmax over the slots (per token), slot inputs D^T x, expert
    e on its S slots (weight (E, d, o), bias (E, o)), y = C Y~."""
    experts, _, out_features = weight.shape
    logits = x @ slots
    dispatch, combine = torch.softmax(logits, dim=-2), torch.softmax(logits, dim=-1)
    slot_inputs = (dispatch.transpose(-1, -2) @ x).unflatten(-2, (experts, -1))  # (batch, E, S, d)
    slot_outputs = torch.einsum('...esd,edo->...eso', slot_inputs, weight) + bias.unsqueeze(-2)
    return combine @ slot_outputs.reshape(*slot_outputs.shape[:-3], -1, out_features)


torch.fx.wrap('soft_moe')


class SoftMoE(torch.nn.Module):
    """Soft MoE over a group of tokens (batch, tokens, in_features): `num_experts` Linear experts with
    `slots_per_expert` slots each; every token reaches every slot through the two softmaxes, there is
    no top-k. The slot parameters mu are `slots` (in_features, num_experts * slots_per_expert)."""

    def __init__(self, in_features: int, out_features: int, num_experts: int, slots_per_expert: int = 1) -> None:
        super().__init__()
        if int(num_experts) < 1 or int(slots_per_expert) < 1:
            raise ValueError(f'SoftMoE: num_experts={num_experts} and slots_per_expert={slots_per_expert} must be >= 1')
        bound = 1 / math.sqrt(in_features)
        self.slots = torch.nn.Parameter(torch.randn(in_features, num_experts * slots_per_expert) * bound)
        self.weight = torch.nn.Parameter(torch.empty(num_experts, in_features, out_features).uniform_(-bound, bound))
        self.bias = torch.nn.Parameter(torch.empty(num_experts, out_features).uniform_(-bound, bound))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return soft_moe(x, self.slots, self.weight, self.bias)
