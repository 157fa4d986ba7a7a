"""Float scales as fixed-point constants, and the error bound of a rescale (docs/quantization.md).

A tensor quantized with a float scale is kept in the integer domain: the IR holds the integers
`v = q - z` and the float factor `c` stays pending (`scale.Scaled`). Products with integer weights are
exact; the pending factors meet the next quantizer's `1 / s` in ONE multiplier per channel,
`M = c / s`, applied just before that quantizer rounds:

    exact:     t = v * M + z             firmware:  t' = v' * M' + z

`M'` is `M` rounded to `p` significant bits (relative error `rho <= 2^-p`) and `v'` is `v` up to the
error `e` carried from upstream (a float bias written with finite fraction bits). Only values with
`|v * M| <= R` (R: the quantizer's integer range seen from the zero point, plus one) round to
something other than the clip limits, so

    |t' - t| <= R * rho + max|M'| * e  =: bound      (in LSBs of the quantizer's integers).

The rounded integer therefore equals the exactly rounded one unless `t` lies within `bound` of a
rounding threshold, where it can differ by one LSB; larger `|t|` saturate alike, because
`R * rho < 1/2`. `p = ceil(log2 R) + GUARD_BITS + 1` makes `R * rho <= 2^-(GUARD_BITS + 1)`.
A multiplier that is a dyadic rational of at most that many bits is written exactly (`rho = 0`),
and a rescale with `rho = 0` and `e = 0` is exact and silent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from hls4ml.model.passes.infer_precision import integer_bits
from hls4ml.model.types import MAX_WIDTH, FixedPrecisionType

GUARD_BITS = 12  # the bound is at most 2^-(GUARD_BITS + 1) LSB from the multiplier, plus the carried error
OUTPUT_BITS = 24  # significant bits of a scale applied to a model output (float32 has 24)
BIAS_FRACTION_BITS = GUARD_BITS + 2  # fraction bits of a float bias in units of the integer accumulator
MAX_FRACTION_BITS = 64  # a float64 constant needs at most 52 + its exponent; beyond, round


@dataclass(frozen=True)
class FixedConstant:
    """Constants written into a fixed-point type: the written values, their type and how far they are
    from the true ones (absolute, and relative to each value)."""

    values: np.ndarray
    precision: FixedPrecisionType
    absolute_error: float
    relative_error: float

    @property
    def exact(self) -> bool:
        return self.absolute_error == 0


def fraction_bits_needed(values: np.ndarray, limit: int = MAX_FRACTION_BITS) -> int | None:
    """The fewest fraction bits that hold every value exactly, or None when more than `limit` would."""
    for bits in range(limit + 1):
        scaled = np.asarray(values, dtype=np.float64) * 2.0**bits
        if np.all(scaled == np.round(scaled)):
            return bits
    return None


def fixed_constant(values: np.ndarray, fraction_bits: int) -> FixedConstant:
    """`values` rounded (half to even) to `fraction_bits` fraction bits, or exactly with fewer when they
    are dyadic rationals that allow it; the type holds the written values without saturating."""
    values = np.asarray(values, dtype=np.float64)
    needed = fraction_bits_needed(values, max(fraction_bits, 0))
    fraction = needed if needed is not None else fraction_bits
    written = np.round(values * 2.0**fraction) / 2.0**fraction
    fraction = fraction_bits_needed(written, fraction) or 0  # trailing zero bits dropped
    low, high = (float(written.min()), float(written.max())) if written.size else (0.0, 0.0)
    signed = low < 0
    integer = integer_bits(low, high, signed)
    width = max(integer + fraction, 1)
    if width > MAX_WIDTH:
        raise ValueError(f'a constant needs {width} bits (more than {MAX_WIDTH})')
    error = np.abs(written - values)
    magnitude = np.abs(values)
    relative = np.divide(error, magnitude, out=np.zeros_like(error), where=magnitude > 0)
    return FixedConstant(
        written,
        FixedPrecisionType(width, integer, signed),
        float(error.max(initial=0.0)),
        float(relative.max(initial=0)),
    )


def significant_constant(values: np.ndarray, significant_bits: int) -> FixedConstant:
    """Non-zero `values` written with `significant_bits` significant bits for the smallest magnitude
    (so a relative error of at most 2^-significant_bits for every value)."""
    magnitudes = np.abs(np.asarray(values, dtype=np.float64))
    smallest = float(magnitudes[magnitudes > 0].min()) if np.any(magnitudes > 0) else 1.0
    exponent = math.floor(math.log2(smallest))
    return fixed_constant(values, significant_bits - 1 - exponent)


@dataclass(frozen=True)
class Multiplier:
    """The rescale `t' = v' * M' + z` of one quantizer: the written multipliers and their bound."""

    constant: FixedConstant
    ratios: np.ndarray  # the exact ratios (as float64)
    reach: float  # R: |v * M| beyond it, every value saturates
    carried_error: float  # e: the error of v' in its own units
    exact_ratio: bool  # M' equals the exact ratio of the scales (not only its float64 rounding)

    @property
    def bound(self) -> float:
        """The largest |t' - t|, in LSBs of the quantizer's integers."""
        if self.exact:
            return 0.0
        largest = float(np.abs(self.constant.values).max(initial=0.0))
        return self.reach * self.constant.relative_error + largest * self.carried_error

    @property
    def exact(self) -> bool:
        return self.exact_ratio and self.carried_error == 0


def multiplier(numerators: np.ndarray, denominators: np.ndarray, reach: float, carried_error: float) -> Multiplier:
    """`M = numerators / denominators` (float scales, element-wise) written with enough significant bits
    that `reach * rho <= 2^-(GUARD_BITS + 1)`."""
    numerators = np.asarray(numerators, dtype=np.float64)
    denominators = np.asarray(denominators, dtype=np.float64)
    ratios = numerators / denominators
    significant = math.ceil(math.log2(max(reach, 1.0))) + GUARD_BITS + 1
    constant = significant_constant(ratios, significant)
    exact = all(
        Fraction(float(written)) * Fraction(float(denominator)) == Fraction(float(numerator))
        for written, numerator, denominator in np.nditer([constant.values, numerators, denominators])
    )
    return Multiplier(constant, ratios, reach, carried_error, exact)


def quantizer_reach(low: int, high: int, zero_point: np.ndarray) -> float:
    """R for integers clipped to [low, high] around `zero_point`: beyond it, the result is a limit."""
    zero = np.asarray(zero_point, dtype=np.float64)
    return float(np.maximum(high - zero, zero - low).max(initial=0.0)) + 1.0


def describe_bound(bound: float) -> str:
    return '0' if bound == 0 else f'2^{math.log2(bound):.1f} = {bound:.3g}'
