"""Slicing a tensor (`x[:, 2:10]`, steps, negative bounds, integer indices, `...`) and reductions over
axes (`sum`, `amax`, `amin`; `mean` over other axes than the spatial ones): Gather and Reduce layers.

The batch axis is never indexed nor reduced: `x[:, ...]` must take all of it, and `dim` must be given.
"""

from __future__ import annotations

import builtins
from typing import Any

import torch

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, functions, sample_axis, tensor


def slice_tensor(step: Step, x: Value, index: Any) -> Value:
    """`x[index]` with slices, integers and one Ellipsis; the batch axis taken whole."""
    entries = index if isinstance(index, tuple) else (index,)
    for entry in entries:
        if entry is None or not isinstance(entry, (builtins.slice, int, type(Ellipsis))) or isinstance(entry, bool):
            raise step.refuse(f'indexing with {entry!r} is not supported (slices, integers and ... only)')
    if entries[0] is not Ellipsis and entries[0] != builtins.slice(None):
        raise step.refuse(f'indexing {entries[0]!r} along the batch axis is not supported; write x[:, ...]')
    sample_index = entries if entries[0] is Ellipsis else entries[1:]
    try:
        picked = step.builder.positions(x)[sample_index]
    except IndexError as error:
        raise step.refuse(f'the index {index!r} does not fit a tensor of shape {x.shape}: {error}') from error
    if picked.ndim == 0:
        picked = picked.reshape(1)  # one value per sample
    return step.builder.gather(step.origin, x, picked)


def reduce(step: Step, x: Any, dim: Any, keepdim: bool, op: str) -> Value:
    x = tensor(step, x)
    if dim is None:
        raise step.refuse(f'a {op} over every axis would reduce the batch too; give dim (e.g. dim=1)')
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(sample_axis(step, x, axis) for axis in dims)
    return step.builder.reduce(step.origin, x, axes, op, bool(keepdim))


@functions(torch.sum, methods=('sum',))
def sum_(step: Step, x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Value:
    return reduce(step, x, dim, keepdim, 'sum')


@functions(torch.amax, methods=('amax',))
def amax(step: Step, x: Any, dim: Any = (), keepdim: bool = False) -> Value:
    """torch's default dim=() reduces every axis."""
    return reduce(step, x, dim if dim not in ((), []) else None, keepdim, 'max')


@functions(torch.amin, methods=('amin',))
def amin(step: Step, x: Any, dim: Any = (), keepdim: bool = False) -> Value:
    return reduce(step, x, dim if dim not in ((), []) else None, keepdim, 'min')
