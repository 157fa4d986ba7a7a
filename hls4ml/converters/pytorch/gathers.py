"""Slicing a tensor (`x[:, 2:10]`, steps, negative bounds, integer indices, `...`), reductions over
axes (`sum`, `amax`, `amin`; `mean` over other axes than the spatial ones) and nearest-neighbour
upsampling (`nn.Upsample`, `F.interpolate`): Gather, Reduce and Resize layers.

The batch axis is never indexed nor reduced: `x[:, ...]` must take all of it, and `dim` must be given.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, functions, modules, sample_axis, tensor
from hls4ml.converters.resampling import linear_taps, nearest_sources


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


def _output_sizes(step: Step, x: Value, size: Any, scale_factor: Any) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The spatial output sizes and, per axis, the input step per output step (PyTorch's rule: 1 /
    scale_factor when it is given, else in / out)."""
    spatial = x.shape[1:]
    if (size is None) == (scale_factor is None):
        raise step.refuse('give exactly one of size and scale_factor')
    if size is not None:
        sizes = tuple(int(s) for s in (size if isinstance(size, (tuple, list)) else [size] * len(spatial)))
        return sizes, tuple(length / out for length, out in zip(spatial, sizes, strict=True))
    factors = [
        float(f) for f in (scale_factor if isinstance(scale_factor, (tuple, list)) else [scale_factor] * len(spatial))
    ]
    return tuple(int(length * f) for length, f in zip(spatial, factors, strict=True)), tuple(1 / f for f in factors)


@functions(F.interpolate, F.upsample_nearest)
def interpolate(
    step: Step,
    x: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = 'nearest',
    align_corners: Any = None,
    recompute_scale_factor: Any = None,
    antialias: bool = False,
) -> Value:
    """mode 'nearest' and 'nearest-exact' of a (C, L) or (C, H, W) tensor: each output reads one input
    value (integer factors: a Resize, else a Gather); 'linear' and 'bilinear' (align_corners either way):
    an Interpolate of 2 or 4 weighted values; the other modes are refused by name."""
    x = tensor(step, x)
    if mode not in ('nearest', 'nearest-exact', 'linear', 'bilinear') or antialias:
        raise step.refuse(f"mode {mode!r} is not supported ('nearest', 'nearest-exact', 'linear', 'bilinear')")
    if x.rank not in (2, 3):
        raise step.refuse(f'upsampling a tensor of shape {x.shape} is not supported ((C, L) or (C, H, W))')
    sizes, steps = _output_sizes(step, x, size, scale_factor)
    if recompute_scale_factor:
        steps = tuple(length / out for length, out in zip(x.shape[1:], sizes, strict=True))
    if mode in ('linear', 'bilinear'):
        taps = [
            linear_taps(length, out, ratio, bool(align_corners))
            for length, out, ratio in zip(x.shape[1:], sizes, steps, strict=True)
        ]
        return step.builder.interpolate(step.origin, x, taps)
    factors = [out // length for out, length in zip(sizes, x.shape[1:], strict=True)]
    if mode == 'nearest' and all(f * length == out for f, length, out in zip(factors, x.shape[1:], sizes, strict=True)):
        return step.builder.upsample(step.origin, x, tuple(factors))
    sources = [
        nearest_sources(length, out, ratio, mode == 'nearest-exact')
        for out, ratio, length in zip(sizes, steps, x.shape[1:], strict=True)
    ]
    picked = step.builder.positions(x)[np.ix_(np.arange(x.shape[0]), *sources)]
    return step.builder.gather(step.origin, x, picked)


@modules('Upsample', 'UpsamplingNearest2d')
def upsample_module(step: Step, module: Any, x: Any) -> Value:
    mode = getattr(module, 'mode', 'nearest')
    align = getattr(module, 'align_corners', None)
    recompute = getattr(module, 'recompute_scale_factor', None)
    return interpolate(step, x, module.size, module.scale_factor, mode, align, recompute)
