"""`FixedArray`: a numpy array of raw integers with a precision type, computing like the C++ headers.

    x = quantize([0.3, -1.7], 'ap_fixed<8,4,AP_RND>')   # write doubles into a type
    y = x * w + b                                      # full-precision results, exact
    z = y.cast(acc_t)                                  # a write: quantize + overflow
    z.raw, z.value                                     # raw integers, doubles

`family` ('ap' or 'ac') selects the few behaviours where ap_fixed and ac_fixed differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.model.fixed import cast as _cast
from hls4ml.model.fixed.result_types import result_type
from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType, PrecisionType, parse_precision

FAMILIES = ('ap', 'ac')


def _as_type(precision: str | PrecisionType) -> FixedPrecisionType:
    parsed = parse_precision(precision)
    if not isinstance(parsed, FixedPrecisionType):
        raise ValueError(f'{parsed} is not a fixed-point or integer type')
    return parsed


def quantize(x: Any, precision: str | PrecisionType, family: str = 'ap') -> FixedArray:
    """Write values into `precision` as `T v = x;` does: floats exactly, integer arrays as C integers."""
    target = _as_type(precision)
    values = np.asarray(x)
    if values.dtype.kind in 'iub':
        source = (
            IntegerPrecisionType(64, values.dtype.kind == 'i')
            if values.dtype.kind != 'b'
            else (IntegerPrecisionType(1, False))
        )
        return FixedArray(_cast.canonical(values, source), source, family).cast(target)
    if values.dtype.kind != 'f' and values.dtype != object:
        raise ValueError(f'cannot quantize an array of dtype {values.dtype}')
    return FixedArray(_cast.quantize_doubles(values.astype(np.float64), target, family), target, family)


class FixedArray:
    """Raw integers (int64, or Python ints in an object array when wider) and their type."""

    __slots__ = ('raw', 'type', 'family')
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, raw: np.ndarray, precision: FixedPrecisionType, family: str = 'ap') -> None:
        if family not in FAMILIES:
            raise ValueError(f"unknown type family {family!r}; expected 'ap' or 'ac'")
        self.raw, self.type, self.family = raw, precision, family

    @classmethod
    def from_raw(cls, raw: Any, precision: str | PrecisionType, family: str = 'ap') -> FixedArray:
        """Wrap raw integers (the W-bit pattern as a signed or unsigned integer) as values of `precision`."""
        target = _as_type(precision)
        values = np.asarray(raw)
        if values.dtype.kind not in 'iuO':
            raise ValueError(f'raw values must be integers, got dtype {values.dtype}')
        values = values.astype(object)
        if values.size and (values.min() < target.raw_min or values.max() > target.raw_max):
            raise ValueError(f'raw values outside [{target.raw_min}, {target.raw_max}] of {target}')
        return cls(_cast.canonical(values, target), target, family)

    # ---- conversions out --------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self.raw.shape

    @property
    def value(self) -> np.ndarray:
        """The values as float64, correctly rounded (`to_double()`)."""
        return self.to_double()

    def to_double(self) -> np.ndarray:
        return self._to_binary_float(np.float64, 53)

    def to_float(self) -> np.ndarray:
        """Values rounded once, directly to float32 (ap `to_float()`)."""
        return self._to_binary_float(np.float32, 24)

    def _to_binary_float(self, dtype: Any, mantissa_bits: int) -> np.ndarray:
        if self.raw.dtype == np.int64:
            return np.ldexp(self.raw.astype(dtype), -self.type.fractional)
        shape = self.raw.shape
        flat = [_round_to_bits(int(r), mantissa_bits) for r in self.raw.ravel()]
        scaled = np.array([np.ldexp(float(m), e) for m, e in flat], dtype=np.float64).reshape(shape)
        return np.ldexp(scaled, -self.type.fractional).astype(dtype)

    def to_int(self, bits: int = 32) -> np.ndarray:
        """`to_int()` (bits=32) / `to_int64()` (bits=64): ap truncates toward zero, ac floors; then wraps."""
        raw = self.raw.astype(object)
        fraction = self.type.fractional
        if fraction <= 0:
            whole = raw * (1 << -fraction)
        else:
            whole = raw >> fraction
            if self.family == 'ap':
                whole = np.where((raw < 0) & ((raw & ((1 << fraction) - 1)) != 0), whole + 1, whole)
        return _cast.wrap(whole, bits, True).astype(np.int64)

    # ---- writes -----------------------------------------------------------------------------------
    def cast(self, precision: str | PrecisionType) -> FixedArray:
        """`Target v = self;`: quantize and overflow with the target's modes."""
        target = _as_type(precision)
        rounding = _cast.write_mode(target, self.family)
        drop = self.type.fractional - target.fractional
        raw = _cast.requantize(self.raw, drop, self.type.width + 1, target, rounding)
        return FixedArray(raw, target, self.family)

    # ---- arithmetic -------------------------------------------------------------------------------
    def _binary(self, other: Any, op: str) -> tuple[FixedArray, FixedPrecisionType, np.ndarray, np.ndarray]:
        if not isinstance(other, FixedArray):
            raise TypeError(f'{op}: both operands must be FixedArray, got {type(other).__name__}')
        if other.family != self.family:
            raise TypeError(f'{op}: cannot mix {self.family} and {other.family} types')
        result = result_type(op, self.type, other.type, self.family)
        return other, result, self.raw, other.raw

    def _aligned(self, other: Any, op: str) -> tuple[FixedPrecisionType, np.ndarray, np.ndarray]:
        """Both raw arrays on the finer binary point, in a dtype wide enough for the result."""
        other, result, left, right = self._binary(other, op)
        fraction = max(self.type.fractional, other.type.fractional)
        left = _cast.integer_domain(left, result.width + 2) << (fraction - self.type.fractional)
        right = _cast.integer_domain(right, result.width + 2) << (fraction - other.type.fractional)
        return result, left, right

    def _result(self, raw: np.ndarray, result: FixedPrecisionType) -> FixedArray:
        return FixedArray(_cast.canonical(raw, result), result, self.family)

    def __add__(self, other: FixedArray) -> FixedArray:
        result, left, right = self._aligned(other, 'add')
        return self._result(left + right, result)

    def __sub__(self, other: FixedArray) -> FixedArray:
        result, left, right = self._aligned(other, 'sub')
        return self._result(left - right, result)

    def __and__(self, other: FixedArray) -> FixedArray:
        result, left, right = self._aligned(other, 'and')
        return self._result(left & right, result)

    def __or__(self, other: FixedArray) -> FixedArray:
        result, left, right = self._aligned(other, 'or')
        return self._result(left | right, result)

    def __xor__(self, other: FixedArray) -> FixedArray:
        result, left, right = self._aligned(other, 'xor')
        return self._result(left ^ right, result)

    def __mul__(self, other: FixedArray) -> FixedArray:
        other, result, left, right = self._binary(other, 'mul')
        domain = result.width + 1
        return self._result(_cast.integer_domain(left, domain) * _cast.integer_domain(right, domain), result)

    def __truediv__(self, other: FixedArray) -> FixedArray:
        """Quotient truncated toward zero, keeping the dividend's fraction bits (section 6.2)."""
        other, result, left, right = self._binary(other, 'div')
        if np.any(right == 0):
            raise ZeroDivisionError('fixed-point division by zero (undefined in the firmware)')
        domain = max(self.type.width + max(other.type.fractional, 0), other.type.width) + 2
        dividend = _cast.integer_domain(left, domain) << max(other.type.fractional, 0)
        return self._result(_truncating_divide(dividend, _cast.integer_domain(right, domain)), result)

    def __mod__(self, other: FixedArray) -> FixedArray:
        """C remainder (sign of the dividend); integer types only."""
        other, result, left, right = self._binary(other, 'mod')
        if np.any(right == 0):
            raise ZeroDivisionError('integer remainder by zero (undefined in the firmware)')
        left, right = left.astype(object), right.astype(object)
        return self._result(left - right * _truncating_divide(left, right), result)

    def __neg__(self) -> FixedArray:
        result = result_type('neg', self.type, family=self.family)
        return self._result(-_cast.integer_domain(self.raw, result.width + 1), result)

    def _shifted(self, amount: Any, left: bool) -> FixedArray:
        """Shifts keep the type: raw bits move, nothing saturates; a negative amount shifts the other way."""
        amounts = np.asarray(amount, dtype=np.int64)
        width, signed = self.type.width, self.type.signed
        towards_left = amounts if left else -amounts
        raw = self.raw.astype(object)
        up = np.minimum(np.maximum(towards_left, 0), width).astype(object)
        down = np.minimum(np.maximum(-towards_left, 0), width + 1).astype(object)
        shifted = np.where(towards_left >= 0, _cast.wrap(raw << up, width, signed), raw >> down)
        return FixedArray(_cast.canonical(np.asarray(shifted), self.type), self.type, self.family)

    def __lshift__(self, amount: Any) -> FixedArray:
        return self._shifted(amount, left=True)

    def __rshift__(self, amount: Any) -> FixedArray:
        return self._shifted(amount, left=False)

    def _compare(self, other: FixedArray) -> tuple[np.ndarray, np.ndarray]:
        fraction = max(self.type.fractional, other.type.fractional)
        left = self.raw.astype(object) << (fraction - self.type.fractional)
        return left, other.raw.astype(object) << (fraction - other.type.fractional)

    def __lt__(self, other: FixedArray) -> np.ndarray:
        left, right = self._compare(other)
        return np.asarray(left < right, dtype=bool)

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, FixedArray):
            return NotImplemented
        left, right = self._compare(other)
        return np.asarray(left == right, dtype=bool)

    def __repr__(self) -> str:
        return f'FixedArray({self.type.spelling(self.family)}, {self.to_double()!r})'


def _truncating_divide(dividend: np.ndarray, divisor: np.ndarray) -> np.ndarray:
    quotient = dividend // divisor
    inexact = (quotient < 0) & (quotient * divisor != dividend)
    return np.where(inexact, quotient + 1, quotient)


def _round_to_bits(value: int, bits: int) -> tuple[int, int]:
    """`value` rounded to `bits` significant bits (ties to even), as (mantissa, exponent)."""
    excess = abs(value).bit_length() - bits
    if excess <= 0:
        return value, 0
    magnitude = abs(value)
    kept, rest = magnitude >> excess, magnitude & ((1 << excess) - 1)
    half = 1 << (excess - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    return (kept if value > 0 else -kept), excess
