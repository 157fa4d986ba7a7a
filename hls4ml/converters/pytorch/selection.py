"""Selection: `torch.topk` / `x.topk` (values and indices, along the last axis of a vector).

PyTorch returns both outputs at once; the IR has one output per layer, so each output becomes its
own TopK layer, made only when the model reads it (`topk(...)[0]`, `values, indices = ...`,
`.values`, `.indices`). PyTorch leaves the order of ties open; the IR's rule is the lower index first.
"""

from __future__ import annotations

from typing import Any

import torch

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, functions, sample_axis, tensor

TOPK_FIELDS = ('values', 'indices')


class TopKResult:
    """`torch.topk`'s (values, indices); each IR layer is made when its item is first read."""

    def __init__(self, step: Step, x: Value, k: int) -> None:
        self.step, self.x, self.k = step, x, k
        self.made: dict[str, Value] = {}

    def __getitem__(self, index: int) -> Value:
        return self.field(TOPK_FIELDS[index])

    def __len__(self) -> int:
        return len(TOPK_FIELDS)

    def field(self, output: str) -> Value:
        if output not in self.made:
            origin = self.step.origin if output == 'values' else self.step.part(output)
            self.made[output] = self.step.builder.topk(origin, self.x, self.k, output)
        return self.made[output]


@functions(torch.topk, methods=('topk',))
def topk(step: Step, x: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopKResult:
    """sorted=False leaves the order open, so the sorted result serves it too."""
    x = tensor(step, x)
    if x.rank != 1 or sample_axis(step, x, dim) != 0:
        raise step.refuse(f'top-k along dim {dim} of a tensor of shape {x.shape} (only vectors, along the last axis)')
    if not largest:
        raise step.refuse('topk(largest=False) is not supported')
    if not 1 <= int(k) <= x.shape[0]:
        raise step.refuse(f'k={k} must be between 1 and {x.shape[0]}')
    return TopKResult(step, x, int(k))
