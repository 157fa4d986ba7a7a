"""Small FixedArray helpers shared by the reference kernels: constants, selection, slices."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.fixed.cast import canonical
from hls4ml.model.tables import take
from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType, PrecisionType, parse_precision

__all__ = ['as_samples', 'constant', 'greater_than', 'integer', 'select', 'take']


def as_samples(x: FixedArray) -> FixedArray:
    """The layer input as (n_samples, n): a single 1-D sample becomes one row."""
    if len(x.shape) == 1:
        return take(x, np.newaxis)
    if len(x.shape) != 2:
        raise ValueError(f'reference kernels take (n_samples, n) inputs, got shape {x.shape}')
    return x


def constant(value: float, precision: str | PrecisionType, family: str) -> FixedArray:
    """A double written into `precision`, as the C++ conversion of a literal argument does."""
    return quantize(np.float64(value), parse_precision(precision), family)


def integer(value: int, family: str) -> FixedArray:
    """A C `int` constant (the kernels write 0 and 1 into result types, and compare with them)."""
    return FixedArray.from_raw(np.array(value), IntegerPrecisionType(32), family)


def select(condition: np.ndarray, when_true: FixedArray, when_false: FixedArray) -> FixedArray:
    """Elementwise `condition ? when_true : when_false` of two arrays of the same type."""
    if when_true.type != when_false.type:
        raise TypeError(f'select between different types {when_true.type} and {when_false.type}')
    raw = np.where(condition, when_true.raw, when_false.raw)
    return FixedArray(canonical(np.asarray(raw), when_true.type), when_true.type, when_true.family)


def greater_than(a: FixedArray, b: FixedArray) -> np.ndarray:
    """a > b, exact (`nnet::greater_than`)."""
    return b < a


def exact_divide(value: FixedArray, divisor: FixedArray, quotient_type: FixedPrecisionType) -> FixedArray:
    """floor(value / divisor) at quotient_type's LSB by restoring division, both in the remainder type:
    one compare-subtract per quotient bit from weight 1 down to the LSB (requires 0 <= value <= divisor);
    the twin of `nnet::exact_divide` (nnet_common.h): the ReSOM's normalisation, Sinkhorn balancing."""
    remainder, remainder_type = value, value.type
    quotient = quantize(np.zeros(value.shape), quotient_type, value.family)
    weight = quantize(np.ones(value.shape), quotient_type, value.family)
    half = quantize(np.full(value.shape, 0.5), quotient_type, value.family)
    for _ in range(quotient_type.fractional + 1):
        take_bit = ~greater_than(divisor, remainder)
        remainder = select(take_bit, (remainder - divisor).cast(remainder_type), remainder)
        quotient = select(take_bit, (quotient + weight).cast(quotient_type), quotient)
        remainder = (remainder + remainder).cast(remainder_type)
        weight = (weight * half).cast(quotient_type)
    return quotient
