"""PyTorch modules of the top-k family that the PyTorch frontend converts (docs/moe.md, docs/topk.md).

* `TopKRouter`: token-choice MoE gating, gate Linear -> softmax -> top-k -> optional renormalisation
  (Mixtral / Qwen-MoE with `renormalize=True`; V-MoE, Switch with False). `output_mode` picks what the
  module returns: 'gates' (the dense combine weights, 0 for experts not chosen), 'weights' (the k
  gates, best first) or 'indices' (the k experts). `capacity` caps the tokens per expert of a sample
  (capacity-limited token choice, seed-layers.md B.5.4); `sinkhorn_iterations` selects on the sample's
  Sinkhorn-balanced scores (B.5.7).
* `ExpertChoiceRouter`: expert-choice gating of a group of tokens' router logits; with `l`, soft
  expert choice (the sparse soft top-k of each expert's column of tokens).
* `SparseSoftTopK`: the sparse soft top-k of Sander et al. 2023, as a soft mask (`mode='mask'`, p = 2 or
  the reference's default p = 4/3) or in magnitude (`mode='magnitude'`, p = 2); l > 0 is the
  regularisation strength.

Their forward passes are single calls of `topk_router`, `expert_choice` and `sparse_soft_topk`, which torch.fx keeps as
one node each (`torch.fx.wrap`), so the frontend sees the whole operation. Ties go to the lower index
(a stable sort), the rule of the IR; `torch.topk` leaves it open.
"""

from __future__ import annotations

import numpy as np
import torch

from hls4ml.model.kinds import ROUTER_OUTPUTS, SOFT_TOPK_MODES
from hls4ml.model.reference.soft_topk import SOFT_TOPK_P_CHOICES, soft_topk_power
from hls4ml.model.reference.soft_topk_exact import (
    soft_topk_magnitude_exact,
    soft_topk_mask_exact,
    soft_topk_mask_general,
)


def _check(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f'{what} {value!r} is not one of {allowed}')
    return value


def _capacity(capacity: int | None, output_mode: str) -> int:
    """0 for dropless (None); a positive capacity needs the gates or the weights (a drop is a gate of 0)."""
    if capacity is None:
        return 0
    if int(capacity) < 1 or output_mode == 'indices':
        raise ValueError(f"TopKRouter: capacity={capacity} must be positive and output_mode 'gates' or 'weights'")
    return int(capacity)


def topk_router(
    logits: torch.Tensor, k: int, renormalize: bool, output: str, capacity: int = 0, sinkhorn_iterations: int = 0
) -> torch.Tensor:
    """Gating of a batch of expert logits (batch, experts) or (batch, tokens, experts): softmax, the k
    best (ties to the lower index), optionally renormalised to sum to 1; `capacity` > 0: each expert
    takes at most that many of a sample's tokens (`capacity_kept`), a dropped choice's gate is 0;
    `sinkhorn_iterations` > 0: the k best of each token's row of the sample's Sinkhorn-balanced scores
    (`sinkhorn_balance`), the gates still the softmax's."""
    probabilities = torch.softmax(logits, dim=-1)
    keys = probabilities
    if sinkhorn_iterations > 0:
        grouped = logits if logits.dim() > 2 else logits.unsqueeze(-2)
        keys = sinkhorn_balance(grouped, sinkhorn_iterations).reshape(logits.shape)
    indices = torch.sort(keys, dim=-1, descending=True, stable=True).indices[..., :k]
    values = probabilities.gather(-1, indices)
    if renormalize:
        values = values / values.sum(dim=-1, keepdim=True)
    if capacity > 0:
        grouped = indices if indices.dim() > 2 else indices.unsqueeze(-2)  # (batch, tokens, k)
        kept = capacity_kept(grouped, logits.shape[-1], capacity).reshape(values.shape)
        values = torch.where(kept, values, torch.zeros_like(values))
    if output == 'weights':
        return values
    if output == 'indices':
        return indices
    return torch.zeros_like(probabilities).scatter(-1, indices, values)


def sinkhorn_balance(logits: torch.Tensor, iterations: int) -> torch.Tensor:
    """exp(logits - row max) of (batch, tokens, experts) groups, then `iterations` times rows divided by
    their sums (to 1) and columns by theirs (to tokens / experts): seed-layers.md B.5.7."""
    plan = torch.exp(logits - logits.amax(dim=-1, keepdim=True))
    tokens, experts = plan.shape[-2:]
    for _ in range(iterations):
        plan = plan / plan.sum(dim=-1, keepdim=True)
        plan = plan / plan.sum(dim=-2, keepdim=True) * (tokens / experts)
    return plan


def capacity_kept(indices: torch.Tensor, n_experts: int, capacity: int) -> torch.Tensor:
    """Which of the (batch, tokens, k) chosen experts accept their token: every first choice before any
    second (earlier tokens first), and a choice is kept when fewer than `capacity` before it went to its
    expert (vmoe's priority without batch-priority routing)."""
    priority = indices.transpose(-1, -2).reshape(*indices.shape[:-2], -1)  # (batch, k * tokens)
    hot = torch.nn.functional.one_hot(priority, n_experts)
    before = ((torch.cumsum(hot, dim=-2) - hot) * hot).sum(dim=-1)
    kept = (before < capacity).reshape(*indices.shape[:-2], indices.shape[-1], indices.shape[-2])
    return kept.transpose(-1, -2)


def sparse_soft_topk(
    x: torch.Tensor, k: int, strength: float, mode: str, iterations: int = 12, p: float = 2.0
) -> torch.Tensor:
    """Sparse soft top-k of a batch of vectors. The threshold's segment comes from the exact solver
    (hls4ml.model.reference.soft_topk_exact); the closed form on it is differentiable (p = 4/3: one
    Newton step from the exact threshold, which carries the implicit gradient). `iterations` is the
    firmware's search steps, read by the converter (this float forward is exact)."""
    if soft_topk_power(p, mode) == 3:
        return _cubic_mask(x, k, strength)
    exact = soft_topk_mask_exact if mode == 'mask' else soft_topk_magnitude_exact
    solved = exact(x.detach().cpu().double().numpy().reshape(-1, x.shape[-1]), k, strength)
    solved_tensor = torch.as_tensor(np.asarray(solved), dtype=x.dtype, device=x.device).reshape(x.shape)
    if mode == 'mask':
        return _mask_closed_form(x, solved_tensor, k, strength)
    return _magnitude_closed_form(x, solved_tensor, k, strength)


def _cubic_mask(x: torch.Tensor, k: int, strength: float) -> torch.Tensor:
    """y = clip((x - t) / l, 0, 1)^3 with sum y = k. t is the exact threshold plus a Newton step on the
    budget whose value is 0 at the solution and whose gradient is dt/dx by the implicit function theorem."""
    solved = soft_topk_mask_general(x.detach().cpu().double().numpy().reshape(-1, x.shape[-1]), k, strength, 4 / 3)
    ramp = torch.as_tensor(np.cbrt(solved), dtype=x.dtype, device=x.device).reshape(x.shape)
    middle = (ramp > 0) & (ramp < 1)  # without a middle entry the solution is hard: y does not move with x
    exact_t = torch.nan_to_num((x.detach() - strength * ramp).where(middle, torch.nan).nanmean(-1, keepdim=True))
    u = torch.clamp((x - exact_t) / strength, 0, 1)
    slope = (3 / strength * ramp**2 * middle).sum(-1, keepdim=True)
    step = ((u**3).sum(-1, keepdim=True) - k) / slope.clamp(min=1e-30)
    t = exact_t + torch.where(slope > 0, step, torch.zeros_like(step))
    return torch.where(slope > 0, torch.clamp((x - t) / strength, 0, 1) ** 3, ramp**3)


def _mask_closed_form(x: torch.Tensor, solved: torch.Tensor, k: int, strength: float) -> torch.Tensor:
    """t = (sum_M x_i - l (k - a)) / m on the exact solution's sets; without a middle set, the solution."""
    middle = ((solved > 0) & (solved < 1)).to(x.dtype)
    saturated = (solved >= 1).to(x.dtype).sum(dim=-1, keepdim=True)
    count = middle.sum(dim=-1, keepdim=True)
    t = ((x * middle).sum(dim=-1, keepdim=True) - strength * (k - saturated)) / count.clamp(min=1)
    soft = torch.clamp((x - t) / strength, 0, 1)
    return torch.where(count > 0, soft, solved)


def _magnitude_closed_form(x: torch.Tensor, solved: torch.Tensor, k: int, strength: float) -> torch.Tensor:
    """theta = sum_M |x_i| / (m + l (k - a)) on the exact solution's sets; else the solution."""
    magnitude = x.abs()
    passed = (solved.abs() >= magnitude) & (magnitude > 0)
    middle = ((solved != 0) & ~passed).to(x.dtype)
    saturated = passed.to(x.dtype).sum(dim=-1, keepdim=True)
    count = middle.sum(dim=-1, keepdim=True)
    theta = (magnitude * middle).sum(dim=-1, keepdim=True) / (count + strength * (k - saturated)).clamp(min=1e-30)
    ramp = (1 + strength) / strength * torch.relu(magnitude - theta)
    soft = torch.sign(x) * torch.minimum(magnitude, ramp)
    return torch.where(count > 0, soft, solved)


def expert_choice(
    logits: torch.Tensor, capacity: int, strength: float = 0.0, iterations: int = 12, p: float = 2.0
) -> torch.Tensor:
    """Expert-choice gating of groups of tokens (batch, tokens, experts): the softmax of each token's
    logits, kept where the token is among its expert's `capacity` best (ties to the lower token); with
    `strength` (l) > 0, times the sparse soft top-k mask (k = capacity, p = 2 or 4/3) of each expert's
    column instead (`iterations`: the firmware's search steps)."""
    probabilities = torch.softmax(logits, dim=-1)
    if strength > 0:
        columns = probabilities.transpose(-1, -2)
        mask = sparse_soft_topk(columns, capacity, strength, 'mask', iterations, p)
        return probabilities * mask.transpose(-1, -2)
    order = torch.sort(probabilities, dim=-2, descending=True, stable=True).indices[..., :capacity, :]
    kept = torch.zeros_like(probabilities, dtype=torch.bool).scatter(-2, order, True)
    return torch.where(kept, probabilities, torch.zeros_like(probabilities))


torch.fx.wrap('topk_router')
torch.fx.wrap('sparse_soft_topk')
torch.fx.wrap('expert_choice')


class TopKRouter(torch.nn.Module):
    """Token-choice MoE router: `gate` (Linear, no bias by default, as V-MoE and Mixtral), then
    `topk_router`. Input (batch, in_features) or (batch, tokens, in_features), each token routed on its
    own; output (..., num_experts) gates or (..., k)."""

    def __init__(
        self,
        in_features: int,
        num_experts: int,
        k: int = 2,
        renormalize: bool = True,
        output_mode: str = 'gates',
        bias: bool = False,
        capacity: int | None = None,
        sinkhorn_iterations: int = 0,
    ) -> None:
        super().__init__()
        if not 1 <= int(k) <= int(num_experts):
            raise ValueError(f'TopKRouter: k={k} must be between 1 and num_experts={num_experts}')
        self.gate = torch.nn.Linear(in_features, num_experts, bias=bias)
        self.k, self.renormalize = int(k), bool(renormalize)
        self.output_mode = _check(output_mode, ROUTER_OUTPUTS, 'TopKRouter output_mode')
        self.capacity = _capacity(capacity, self.output_mode)
        self.sinkhorn_iterations = int(sinkhorn_iterations)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.gate(x)
        return topk_router(gate, self.k, self.renormalize, self.output_mode, self.capacity, self.sinkhorn_iterations)


class ExpertChoiceRouter(torch.nn.Module):
    """Expert-choice router (Zhou et al. 2022) over a group of tokens: input the router logits
    (batch, tokens, experts), output the gates of the same shape; each expert takes exactly
    `capacity` tokens, a token may get none or several experts. With l, soft expert choice: the soft
    top-k mask with p = 2 (a linear ramp) or 4/3 (a cubic ramp)."""

    def __init__(self, capacity: int, l: float | None = None, iterations: int = 12, p: float = 2) -> None:  # noqa: E741
        super().__init__()
        if int(capacity) < 1 or (l is not None and float(l) <= 0):
            raise ValueError(f'ExpertChoiceRouter: capacity={capacity} must be at least 1 and l={l} positive')
        if soft_topk_power(p, 'mask') is None:
            raise ValueError(f'ExpertChoiceRouter: p={p}: {SOFT_TOPK_P_CHOICES}')
        self.capacity, self.l, self.iterations, self.p = int(capacity), float(l or 0.0), int(iterations), float(p)

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        # p only when it is not the default: the ONNX custom op's attributes follow the arguments passed
        cubic = (self.p,) if self.p != 2 else ()
        return expert_choice(logits, self.capacity, self.l, self.iterations, *cubic)


class SparseSoftTopK(torch.nn.Module):
    """Sparse soft top-k along the last axis: any l > 0; p = 2 (a linear ramp) or, for the mask, the
    reference's p = 4/3 (a cubic ramp). `iterations` sets the firmware's search steps (docs/topk.md)."""

    def __init__(self, k: int, l: float = 0.25, mode: str = 'mask', p: float = 2, iterations: int = 12) -> None:  # noqa: E741
        super().__init__()
        if not (int(k) >= 1 and float(l) > 0):
            raise ValueError(f'SparseSoftTopK: k={k} must be at least 1 and l={l} positive')
        self.k, self.l, self.iterations = int(k), float(l), int(iterations)
        self.mode = _check(mode, SOFT_TOPK_MODES, 'SparseSoftTopK mode')
        if soft_topk_power(p, self.mode) is None:
            raise ValueError(f'SparseSoftTopK: p={p} with mode {mode!r}: {SOFT_TOPK_P_CHOICES}')
        self.p = float(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return sparse_soft_topk(x, self.k, self.l, self.mode, self.iterations, self.p)
