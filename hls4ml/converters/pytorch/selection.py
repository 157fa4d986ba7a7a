"""Selection: `torch.topk` / `x.topk` (values and indices, along the last axis of a vector, largest or
smallest; `abs` too, so that top-k by magnitude converts), the hand-written router subgraph
(softmax -> topk -> optional renormalisation, matched by `router_pattern`), and the modules of
`hls4ml.nn.torch_moe` (TopKRouter, SparseSoftTopK).

PyTorch returns both outputs at once; the IR has one output per layer, so each output becomes its
own TopK (or Router) layer, made only when the model reads it (`topk(...)[0]`, `values, indices = ...`,
`.values`, `.indices`). PyTorch leaves the order of ties open; the IR's rule is the lower index first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from hls4ml.converters.builder import Origin, Value
from hls4ml.converters.pytorch.registry import Step, functions, module_forwards, sample_axis, tensor
from hls4ml.converters.pytorch.router_pattern import softmax_topk
from hls4ml.nn.torch_moe import expert_choice, sparse_soft_topk, topk_router

TOPK_FIELDS = ('values', 'indices')
ROUTER_FIELDS = {'values': 'weights', 'indices': 'indices'}  # torch.topk's field -> the Router's output


class TopKResult:
    """`torch.topk`'s (values, indices); each IR layer is made by `make(origin, field)` when its item
    is first read: the values layer named after the node, the indices `<name>_indices`."""

    def __init__(self, step: Step, make: Callable[[Origin, str], Value]) -> None:
        self.step, self.make = step, make
        self.made: dict[str, Value] = {}

    def __getitem__(self, index: int) -> Value:
        return self.field(TOPK_FIELDS[index])

    def __len__(self) -> int:
        return len(TOPK_FIELDS)

    def field(self, output: str) -> Value:
        if output not in self.made:
            origin = self.step.origin if output == 'values' else self.step.part(output)
            self.made[output] = self.make(origin, output)
        return self.made[output]


@functions(torch.abs, methods=('abs',))
def absolute(step: Step, x: Any) -> Value:
    """|x| = max(x, -x): a negation (`<name>_negated`) and a maximum, both exact, so that top-k by
    magnitude (`x.abs().topk(k)`) converts; its values are |x|, as PyTorch's."""
    x = tensor(step, x)
    negated = step.builder.affine(step.part('negated'), x, scale=-1.0)
    return step.builder.merge(step.origin, x, negated, 'maximum')


@functions(torch.topk, methods=('topk',))
def topk(step: Step, x: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopKResult:
    """The k largest (or smallest) along the last axis of a vector; sorted=False leaves the order
    open, so the sorted result serves it too."""
    x = tensor(step, x)
    if x.rank != 1 or sample_axis(step, x, dim) != 0:
        raise step.refuse(
            f'top-k along dim {dim} of a tensor of shape {x.shape} (only vectors, along the last axis); '
            'flatten or permute the axis to the end first'
        )
    if not 1 <= int(k) <= x.shape[0]:
        raise step.refuse(f'k={k} must be between 1 and {x.shape[0]}')
    return TopKResult(step, lambda origin, output: step.builder.topk(origin, x, int(k), output, largest=bool(largest)))


@functions(softmax_topk)
def softmax_topk_router(
    step: Step, logits: Any, k: int, softmax_dim: int, topk_dim: int, sum_dim: int | None = None
) -> TopKResult:
    """A matched router subgraph (router_pattern.py): Router layers for the weights (renormalised when
    the subgraph divides by their sum) and the indices."""
    logits = tensor(step, logits, 'the router logits')
    dims = (softmax_dim, topk_dim) if sum_dim is None else (softmax_dim, topk_dim, sum_dim)
    if logits.rank != 1 or any(sample_axis(step, logits, dim) != 0 for dim in dims):
        raise step.refuse(
            f'softmax -> top-k of logits of shape {logits.shape} along dims {dims} is not supported '
            '(only one vector of expert logits per sample, along its last axis)'
        )
    if not 1 <= int(k) <= logits.shape[0]:
        raise step.refuse(f'k={k} must be between 1 and {logits.shape[0]}')
    renormalize = sum_dim is not None
    return TopKResult(
        step, lambda origin, output: step.builder.router(origin, logits, int(k), renormalize, ROUTER_FIELDS[output])
    )


@module_forwards(topk_router)
def router(
    step: Step, logits: Any, k: int, renormalize: bool, output: str, capacity: int = 0, sinkhorn_iterations: int = 0
) -> Value:
    """`hls4ml.nn.torch_moe.TopKRouter` after its gate Linear: one IR Router layer, each token (row of
    the last axis) routed on its own, or the sample's tokens as one group with a capacity per expert."""
    logits = tensor(step, logits, 'the router logits')
    settings = (int(capacity), int(sinkhorn_iterations))
    return step.builder.router(step.origin, logits, int(k), bool(renormalize), str(output), *settings)


@module_forwards(expert_choice)
def expert_choice_router(
    step: Step, logits: Any, capacity: int, strength: float = 0.0, iterations: int = 12, p: float = 2.0
) -> Value:
    """`hls4ml.nn.torch_moe.ExpertChoiceRouter`: one IR ExpertChoiceRouter layer over (tokens, experts)."""
    logits = tensor(step, logits, 'the router logits')
    soft = (float(strength), int(iterations), float(p))
    return step.builder.expert_choice(step.origin, logits, int(capacity), *soft)


@module_forwards(sparse_soft_topk)
def soft_topk(step: Step, x: Any, k: int, strength: float, mode: str, iterations: int = 12, p: float = 2.0) -> Value:
    """`hls4ml.nn.torch_moe.SparseSoftTopK`: one IR SoftTopK layer (any l > 0; p = 2, or 4/3 for the mask)."""
    value = tensor(step, x)
    return step.builder.soft_topk(step.origin, value, int(k), float(strength), str(mode), int(iterations), float(p))
