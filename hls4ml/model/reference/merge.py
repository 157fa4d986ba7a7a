"""References of the merge kernels (`templates/nnet/nnet_merge.h`): elementwise merges, concatenate, dot.

Two-input kernels take two `FixedArray`s of shape (n_samples, n) (possibly of different types) and
return one write into the result type of the full-precision value the C++ computes.
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.fixed.cast import canonical
from hls4ml.model.reference.arrays import as_samples, constant, greater_than, integer, select, take
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType

HALF_TYPE = 'ufixed<1,0>'
"""The default `half_t` of `nnet::average`: the smallest type holding 0.5 exactly."""


def _pair(x1: FixedArray, x2: FixedArray, kernel: str) -> tuple[FixedArray, FixedArray]:
    x1, x2 = as_samples(x1), as_samples(x2)
    if x1.shape != x2.shape:
        raise ValueError(f'{kernel}: inputs of shapes {x1.shape} and {x2.shape} differ')
    return x1, x2


def add(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    x1, x2 = _pair(x1, x2, 'add')
    return (x1 + x2).cast(result_type)


def subtract(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    x1, x2 = _pair(x1, x2, 'subtract')
    return (x1 - x2).cast(result_type)


def multiply(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    x1, x2 = _pair(x1, x2, 'multiply')
    return (x1 * x2).cast(result_type)


def average(x1: FixedArray, x2: FixedArray, result_type: Type, half_type: Type = HALF_TYPE) -> FixedArray:
    """(x1 + x2) * half with half = 0.5 written into `half_type`: the exact half of the exact sum."""
    x1, x2 = _pair(x1, x2, 'average')
    return ((x1 + x2) * constant(0.5, half_type, x1.family)).cast(result_type)


def maximum(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    """x2 > x1 ? x2 : x1 (exact comparison), one write."""
    x1, x2 = _pair(x1, x2, 'maximum')
    return select(greater_than(x2, x1), x2.cast(result_type), x1.cast(result_type))


def minimum(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    """x1 > x2 ? x2 : x1 (exact comparison), one write."""
    x1, x2 = _pair(x1, x2, 'minimum')
    return select(greater_than(x1, x2), x2.cast(result_type), x1.cast(result_type))


def _concatenate(
    x1: FixedArray, x2: FixedArray, shape1: tuple[int, ...], shape2: tuple[int, ...], axis: int, result_type: Type
) -> FixedArray:
    """Blocks of `outer` (sizes before the axis): each block of x1 (sizes from the axis on), then x2's."""
    x1, x2 = as_samples(x1), as_samples(x2)
    shape1, shape2 = tuple(shape1), tuple(shape2)
    rank = len(shape1)
    if len(shape2) != rank or not 0 <= axis < rank:
        raise ValueError(f'concatenate: shapes {shape1}, {shape2} and axis {axis} do not match')
    if any(a != b for k, (a, b) in enumerate(zip(shape1, shape2, strict=True)) if k != axis):
        raise ValueError(f'concatenate: shapes {shape1} and {shape2} differ off axis {axis}')
    if x1.shape[1] != math.prod(shape1) or x2.shape[1] != math.prod(shape2):
        raise ValueError(f'concatenate: inputs {x1.shape}, {x2.shape} do not hold shapes {shape1}, {shape2}')
    outer, n_samples = math.prod(shape1[:axis]), x1.shape[0]
    first, second = x1.cast(result_type), x2.cast(result_type)
    blocks = (first.raw.reshape(n_samples, outer, -1), second.raw.reshape(n_samples, outer, -1))
    raw = np.concatenate(blocks, axis=2).reshape(n_samples, -1)
    return FixedArray(canonical(raw, first.type), first.type, first.family)


def concatenate1d(x1: FixedArray, x2: FixedArray, result_type: Type) -> FixedArray:
    x1, x2 = as_samples(x1), as_samples(x2)
    return _concatenate(x1, x2, (x1.shape[1],), (x2.shape[1],), 0, result_type)


def concatenate2d(
    x1: FixedArray, x2: FixedArray, shape1: tuple[int, int], shape2: tuple[int, int], axis: int, result_type: Type
) -> FixedArray:
    """`shape1`, `shape2`: (n_elem*_0, n_elem*_1); `axis` 0 or 1 (without the batch axis)."""
    if len(shape1) != 2:
        raise ValueError(f'concatenate2d: shape {shape1} is not of rank 2')
    return _concatenate(x1, x2, shape1, shape2, axis, result_type)


def concatenate3d(
    x1: FixedArray,
    x2: FixedArray,
    shape1: tuple[int, int, int],
    shape2: tuple[int, int, int],
    axis: int,
    result_type: Type,
) -> FixedArray:
    """`shape1`, `shape2`: (n_elem*_0, n_elem*_1, n_elem*_2); `axis` 0, 1 or 2 (without the batch axis)."""
    if len(shape1) != 3:
        raise ValueError(f'concatenate3d: shape {shape1} is not of rank 3')
    return _concatenate(x1, x2, shape1, shape2, axis, result_type)


def dot1d(x1: FixedArray, x2: FixedArray, accum_type: Type, result_type: Type) -> FixedArray:
    """acc = 0; acc += x1_i * x2_i for i in order (each += a write into accum_type); res = acc. Shape (n, 1)."""
    x1, x2 = _pair(x1, x2, 'dot1d')
    zero = integer(0, x1.family).cast(accum_type)
    acc = FixedArray(canonical(np.full((x1.shape[0], 1), zero.raw), zero.type), zero.type, zero.family)
    for i in range(x1.shape[1]):
        column = (slice(None), slice(i, i + 1))
        acc = (acc + take(x1, column) * take(x2, column)).cast(accum_type)
    return acc.cast(result_type)
