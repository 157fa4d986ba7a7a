"""Reference of `nnet::layernorm` (templates/nnet/nnet_layernorm.h): layer normalization per row of
n values, with an exact square root and an exact division (docs/sequence.md derives the bound).

Per row, with S = sum x and D_i = n x_i - S (= n (x_i - mean)), Q = sum D_i^2 (= n^3 var):

    (x_i - mean) / sqrt(var + eps) = n D_i / sqrt(V),   V = n Q + eps n^4

S, D_i, Q and V are exact in their types; root = floor(sqrt(V)) on root_t's grid and
q_i = trunc(n D_i / root) on norm_t's grid (toward zero, saturating at norm_t's largest magnitude,
0 when root is 0) are each the unique largest value of its grid that the C++ bit loops find; the
only other rounding is eps n^4 written into variance_t. Then res_i = q_i * scale_i + bias_i.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, constant, take
from hls4ml.model.types import FixedPrecisionType, PrecisionType


@dataclass(frozen=True)
class LayerNormTypes:
    """The C++ typedefs of the kernel's intermediate values, in the order it computes them."""

    sum: FixedPrecisionType
    diff: FixedPrecisionType
    variance: FixedPrecisionType
    root: FixedPrecisionType
    norm: FixedPrecisionType
    count: FixedPrecisionType  # holds n exactly


def _shifted_floor(raw: np.ndarray, shift: int) -> np.ndarray:
    """floor(raw * 2**shift) of non-negative Python integers."""
    return raw * (1 << shift) if shift >= 0 else raw // (1 << -shift)


def floor_root(square: FixedArray, root_type: FixedPrecisionType) -> FixedArray:
    """The largest root on root_type's grid (and in its range) with root * root <= square >= 0."""
    from math import isqrt

    scaled = _shifted_floor(square.raw.astype(object), 2 * root_type.fractional - square.type.fractional)
    roots = np.frompyfunc(lambda value: min(isqrt(int(value)), root_type.raw_max), 1, 1)(scaled)
    return FixedArray.from_raw(np.asarray(roots, dtype=object), root_type, square.family)


def truncated_quotient(numerator: FixedArray, root: FixedArray, norm_type: FixedPrecisionType) -> FixedArray:
    """numerator / root truncated toward zero on norm_type's grid, its magnitude at most norm_type's
    largest value; 0 where root is 0 (the kernel's guard)."""
    magnitude = np.abs(numerator.raw.astype(object))
    shift = norm_type.fractional + root.type.fractional - numerator.type.fractional
    scaled = magnitude * (1 << shift) if shift >= 0 else magnitude
    divisor = root.raw.astype(object) * (1 if shift >= 0 else 1 << -shift)
    safe = np.where(divisor == 0, 1, divisor)
    quotient = np.minimum(np.where(divisor == 0, 0, scaled // safe), norm_type.raw_max)
    signed = np.where(numerator.raw.astype(object) < 0, -quotient, quotient)
    return FixedArray.from_raw(np.asarray(signed, dtype=object), norm_type, numerator.family)


def layernorm(
    x: FixedArray,
    scale: FixedArray,
    bias: FixedArray,
    n_slice: int,
    epsilon: float,
    types: LayerNormTypes,
    result_type: str | PrecisionType,
) -> FixedArray:
    """Layer normalization of every row of n_slice consecutive values (the last axis)."""
    x = as_samples(x)
    rows = FixedArray(x.raw.reshape(-1, n_slice), x.type, x.family)
    count = constant(n_slice, types.count, x.family)
    total = _running_sum(rows, types.sum)
    diff = (rows * count - total).cast(types.diff)
    sum_squares = _running_sum(diff * diff, types.variance)
    variance = (sum_squares * count + constant(epsilon * n_slice**4, types.variance, x.family)).cast(types.variance)
    root = floor_root(variance, types.root)
    norm = truncated_quotient(diff * count, root, types.norm)
    column = np.arange(n_slice)
    result = (norm * take(scale, column) + take(bias, column)).cast(result_type)
    return FixedArray(result.raw.reshape(x.shape), result.type, x.family)


def _running_sum(rows: FixedArray, sum_type: FixedPrecisionType) -> FixedArray:
    """total += value, column by column, each sum written into sum_type; shape (rows, 1)."""
    total = constant(0, sum_type, rows.family)
    for column in range(rows.shape[1]):
        total = (total + take(rows, (slice(None), slice(column, column + 1)))).cast(sum_type)
    return total
