"""PyTorch MoE routers beyond hard top-k that the PyTorch frontend converts (docs/moe.md).

* `SoftTopKRouter`: token choice with a sparse soft top-k mask (Sander et al. 2023, seed-layers.md B.5.8):
  m = the soft top-k mask (p = 2 or 4/3, strength l) of the logits or of the probabilities, gate = m * softmax(r),
  optionally renormalised. The number of routed experts, |supp m|, is data dependent (k to num_experts);
  `k_max` bounds it: the k_max largest m are kept (the best keys, ties to the lower index) and the gates
  renormalised; `output_mode='overflow'` returns how many experts the bound dropped, per token.

The forward is one call of `soft_topk_router`, which torch.fx keeps as one node (`torch.fx.wrap`).
"""

from __future__ import annotations

from typing import Any

import torch

from hls4ml.model.reference.soft_router import SOFT_ROUTER_MASK_ON, SOFT_ROUTER_OUTPUTS, soft_router_settings
from hls4ml.nn.torch_moe import sparse_soft_topk


def _ranks(keys: torch.Tensor) -> torch.Tensor:
    """How many keys beat each one along the last axis (a higher key, or an equal one at a lower index)."""
    order = torch.sort(keys, dim=-1, descending=True, stable=True).indices
    return torch.argsort(order, dim=-1)


def soft_topk_router(
    logits: torch.Tensor,
    k: int,
    strength: float,
    k_max: int,
    mask_on: str,
    renormalize: bool,
    output: str,
    iterations: int = 12,
    p: float = 2.0,
) -> torch.Tensor:
    """Sparse-soft-top-k gating of expert logits along the last axis: the (..., experts) gates, or the
    (..., 1) overflow counts; the mask with p = 2 or 4/3 (the exact solver of `sparse_soft_topk`).
    `iterations` is the firmware's search steps (this float forward is exact)."""
    probabilities = torch.softmax(logits, dim=-1)
    keys = logits if mask_on == 'logits' else probabilities
    mask = sparse_soft_topk(keys, k, strength, 'mask', iterations, p)
    support = mask > 0
    kept = support & (_ranks(keys) < k_max)
    if output == 'overflow':
        return (support.sum(dim=-1, keepdim=True) - kept.sum(dim=-1, keepdim=True)).to(logits.dtype)
    gates = torch.where(kept, mask * probabilities, torch.zeros_like(probabilities))
    if renormalize:
        gates = gates / gates.sum(dim=-1, keepdim=True)
    return gates


torch.fx.wrap('soft_topk_router')


class SoftTopKRouter(torch.nn.Module):
    """Token-choice MoE router with a sparse soft top-k mask: `gate` (Linear, no bias by default), then
    `soft_topk_router`. Input (batch, in_features) or (batch, tokens, in_features), each token routed on
    its own; output (..., num_experts) gates or (..., 1) overflow counts. k_max defaults to num_experts
    (nothing dropped); a smaller bound needs renormalize=True."""

    def __init__(
        self,
        in_features: int,
        num_experts: int,
        k: int = 2,
        l: float = 0.25,  # noqa: E741  (the paper's name)
        p: float = 2,
        k_max: int | None = None,
        mask_on: str = 'logits',
        renormalize: bool = True,
        output_mode: str = 'gates',
        iterations: int = 12,
        bias: bool = False,
    ) -> None:
        super().__init__()
        routing = (mask_on, renormalize, output_mode, iterations)
        self.settings: dict[str, Any] = soft_router_settings(num_experts, k, l, p, k_max, routing)
        self.gate = torch.nn.Linear(in_features, num_experts, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.settings
        # p only when it is not the default: the ONNX custom op's attributes follow the arguments passed
        routing = (s['mask_on'], s['renormalize'], s['output'], s['iterations'], *((s['p'],) if s['p'] != 2 else ()))
        return soft_topk_router(self.gate(x), s['k'], s['l'], s['k_max'], *routing)


__all__ = ['SOFT_ROUTER_MASK_ON', 'SOFT_ROUTER_OUTPUTS', 'SoftTopKRouter', 'soft_topk_router']
