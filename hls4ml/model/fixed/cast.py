"""Writing a value into a fixed-point type: scale, quantize, then overflow (fixed-point.md section 3).

Raw integers live in numpy arrays: `int64` when every intermediate fits, else `object` arrays of
Python ints, which are exact at any width. The same integer algorithm (`requantize`) serves both
dtypes; doubles take a float64/uint64 fast path (`_quantize_doubles_fast`) that is exact by
construction and falls back to the integer algorithm for the values it cannot handle.

`family` is 'ap' or 'ac': it only matters for integer targets (ap truncates toward zero, ac floors).
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.types import FixedPrecisionType, RoundingMode, SaturationMode

INT64_SAFE_BITS = 62
"""Intermediates up to this many bits (plus sign) are computed in int64, wider ones exactly in Python ints."""


def write_mode(target: FixedPrecisionType, family: str) -> RoundingMode:
    """The rounding actually applied when writing into `target` in `family`."""
    if target.is_integer:
        return RoundingMode.TRN_ZERO if family == 'ap' else RoundingMode.TRN
    return target.rounding_mode


def fits_int64(target: FixedPrecisionType) -> bool:
    """Whether raw values of `target` are stored in int64 arrays (else object arrays)."""
    return target.width + (0 if target.signed else 1) <= 64


def canonical(raw: np.ndarray, target: FixedPrecisionType) -> np.ndarray:
    """Raw values in the dtype `target` uses: int64 when it fits, object (Python ints) otherwise."""
    return raw.astype(np.int64 if fits_int64(target) else object)


def integer_domain(raw: np.ndarray, bits: int) -> np.ndarray:
    """`raw` in a dtype that holds `bits`-bit intermediates exactly."""
    return raw.astype(np.int64 if bits <= INT64_SAFE_BITS else object)


# ---- the integer algorithm ------------------------------------------------------------------------


def requantize(
    values: np.ndarray, drop: int, source_bits: int, target: FixedPrecisionType, rounding: RoundingMode
) -> np.ndarray:
    """Write `values / 2**drop` (in units of the target LSB) into `target`; return raw integers.

    `values` holds integers of at most `source_bits` bits (sign included); `drop` < 0 shifts left.
    """
    work_bits = max(source_bits - min(drop, 0), target.width) + 3
    shape = np.shape(values)
    # 1-D inside: numpy turns 0-d object-array arithmetic into bare Python ints
    values = integer_domain(np.asarray(values).reshape(-1), work_bits)
    negative = values < 0
    if drop > 0:
        if drop > source_bits:  # |value| < 1/2 LSB: an equivalent small value classifies the same way
            values, drop = _sign_of(values), 2
        floor = values >> drop
        half = ((values >> (drop - 1)) & 1).astype(bool)
        below = (values & ((1 << (drop - 1)) - 1)) != 0
        odd = (floor & 1).astype(bool)
        quantized = floor + round_increment(rounding, odd, half, below, negative).astype(values.dtype)
    else:
        floor = quantized = values << -drop
    return canonical(np.asarray(overflow(quantized, floor, negative, target)), target).reshape(shape)


def _sign_of(values: np.ndarray) -> np.ndarray:
    return (values > 0).astype(values.dtype) - (values < 0).astype(values.dtype)


def round_increment(
    rounding: RoundingMode, odd: np.ndarray, half: np.ndarray, below: np.ndarray, negative: np.ndarray
) -> np.ndarray:
    """0 or 1 (as bools) to add to floor(y); `odd` says floor(y) is odd.

    The discarded fraction f is described by `half` (f >= 1/2) and `below` (a lower bit is set):
    f > 1/2 is `half & below`, f == 1/2 is `half & ~below`, f == 0 is `~half & ~below`.
    """
    above = half & below
    tie = half & ~below
    if rounding is RoundingMode.TRN:
        return np.zeros_like(half)
    if rounding is RoundingMode.TRN_ZERO:
        return negative & (half | below)
    if rounding is RoundingMode.RND:
        return half
    if rounding is RoundingMode.RND_MIN_INF:
        return above
    if rounding is RoundingMode.RND_ZERO:
        return above | (tie & negative)
    if rounding is RoundingMode.RND_INF:
        return above | (tie & ~negative)
    if rounding is RoundingMode.RND_CONV:
        return above | (tie & odd)
    return above | (tie & ~odd)  # RND_CONV_ODD


def overflow(quantized: np.ndarray, floor: np.ndarray, negative: np.ndarray, target: FixedPrecisionType) -> np.ndarray:
    """Apply the target's overflow mode to quantized integers (fixed-point.md section 3.2)."""
    width, mode = target.width, target.saturation_mode
    above = quantized > target.raw_max
    below = quantized < target.raw_min
    outside = above | below
    if mode is SaturationMode.WRAP and target.saturation_bits == 0:
        return wrap(quantized, width, target.signed)
    if mode in (SaturationMode.SAT, SaturationMode.SAT_SYM):
        raw = np.where(above, target.raw_max, np.where(below, target.raw_min, quantized))
        if mode is SaturationMode.SAT_SYM and target.signed and width > 1:
            raw = np.where(raw == target.raw_min, -target.raw_max, raw)
        return raw
    if mode is SaturationMode.SAT_ZERO:
        return np.where(outside, 0, quantized)
    low_bits = quantized & ((1 << width) - 1)
    if mode is SaturationMode.WRAP:
        pattern = _saturate_top_bits(low_bits, negative, target)
    else:
        floor_bit = ((floor >> width) & 1).astype(bool)
        pattern = _sign_magnitude_wrap(low_bits, negative, floor_bit, target)
    return np.where(outside, _from_pattern(pattern, width, target.signed), quantized)


def wrap(values: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """Keep the low `width` bits, read back as two's complement when `signed`."""
    return _from_pattern(values & ((1 << width) - 1), width, signed)


def _from_pattern(pattern: np.ndarray, width: int, signed: bool) -> np.ndarray:
    if not signed:
        return pattern
    return pattern - (((pattern >> (width - 1)) & 1) << width)


def _bit_mask(high: int, low: int) -> int:
    """Bits high..low set (empty when high < low)."""
    return ((1 << (high + 1)) - 1) ^ ((1 << low) - 1) if high >= low else 0


def _saturate_top_bits(pattern: np.ndarray, negative: np.ndarray, target: FixedPrecisionType) -> np.ndarray:
    """AP_WRAP with N > 0: the top N bits saturate, the rest wrap."""
    width, n_bits = target.width, target.saturation_bits
    if not target.signed:
        return pattern | _bit_mask(width - 1, width - n_bits)
    sign_bit = 1 << (width - 1)
    rest = _bit_mask(width - 2, width - n_bits)
    cleared = pattern & ~(sign_bit | rest)
    return np.where(negative, cleared | sign_bit, cleared | rest)


def _sign_magnitude_wrap(
    pattern: np.ndarray, negative: np.ndarray, floor_bit: np.ndarray, target: FixedPrecisionType
) -> np.ndarray:
    """AP_WRAP_SM (signed only), with N = 0, 1 or more saturation bits."""
    width, n_bits = target.width, target.saturation_bits
    all_bits, sign_bit = (1 << width) - 1, 1 << (width - 1)
    top = ((pattern >> (width - 1)) & 1).astype(bool)
    if n_bits == 0:
        sign, invert = floor_bit, floor_bit != top
    elif n_bits == 1:
        sign, invert = negative, negative != top
    else:
        sign, invert = negative, ((pattern >> (width - n_bits)) & 1).astype(bool) == negative
    pattern = np.where(invert, pattern ^ all_bits, pattern)
    if n_bits >= 2:
        rest = _bit_mask(width - 2, width - n_bits)
        pattern = np.where(sign, pattern & ~rest, pattern | rest)
    return np.where(sign, pattern | sign_bit, pattern & ~sign_bit)


# ---- doubles ---------------------------------------------------------------------------------------


def quantize_doubles(x: np.ndarray, target: FixedPrecisionType, family: str = 'ap') -> np.ndarray:
    """Raw integers of `target` holding the doubles `x` (each taken as its exact binary value)."""
    x = np.asarray(x, dtype=np.float64)
    rounding = write_mode(target, family)
    if fits_int64(target):
        raw, exact = _quantize_doubles_fast(x, target, rounding)
        if exact.all():
            return raw
        raw = raw.astype(object)
        raw[~exact] = _quantize_doubles_exact(x[~exact], target, rounding)
        return canonical(raw, target)
    return _quantize_doubles_exact(x, target, rounding)


def _quantize_doubles_exact(x: np.ndarray, target: FixedPrecisionType, rounding: RoundingMode) -> np.ndarray:
    """The integer algorithm on exact Python ints: any width, any exponent."""
    flat = x.ravel()
    finite = np.isfinite(flat)
    ratios = [value.as_integer_ratio() if ok else (0, 1) for value, ok in zip(flat.tolist(), finite, strict=True)]
    scale = max(denominator.bit_length() - 1 for _, denominator in ratios) if ratios else 0
    numerators = np.empty(len(ratios), dtype=object)
    numerators[:] = [num << (scale - (den.bit_length() - 1)) for num, den in ratios]
    source_bits = max((abs(n).bit_length() + 1 for n in numerators), default=1)
    raw = requantize(numerators, scale - target.fractional, source_bits, target, rounding).astype(object)
    if not finite.all():
        raw[~finite] = _non_finite_raw(flat[~finite], target, rounding).astype(object)
    return canonical(raw, target).reshape(x.shape)


def _non_finite_raw(x: np.ndarray, target: FixedPrecisionType, rounding: RoundingMode) -> np.ndarray:
    """NaN behaves like +inf; an infinity overflows, its wrapped low bits are zero."""
    negative = x < 0
    huge = np.where(negative, -1, 1).astype(object) << (target.width + 2)
    return requantize(huge, 0, target.width + 4, target, rounding)


def _quantize_doubles_fast(
    x: np.ndarray, target: FixedPrecisionType, rounding: RoundingMode
) -> tuple[np.ndarray, np.ndarray]:
    """Exact double -> fixed in float64/uint64 arithmetic for types whose raw fits int64.

    y = x * 2**F is exact unless it under/overflows (those values are flagged not exact);
    floor(y) is exact and y is compared with floor(y) + 1/2, which is exact while |y| < 2**52
    (larger y are integers, so the comparison is not needed). Returns (raw, exact mask).
    """
    with np.errstate(invalid='ignore', over='ignore'):
        finite = np.isfinite(x)
        x_finite = np.where(finite, x, 0.0)
        y = np.ldexp(x_finite, target.fractional)
        exact = np.isfinite(y) & (np.ldexp(y, -target.fractional) == x_finite)
        y = np.where(exact, y, 0.0)  # the inexact ones are redone exactly by the caller
        floor = np.floor(y)
        whole = y == floor
        middle = floor + 0.5
        half = ~whole & (y >= middle)
        below = ~whole & (y != middle)
        negative = np.where(finite, x < 0, x == -np.inf)
        odd = np.fmod(floor, 2.0) != 0
        increment = round_increment(rounding, odd, half, below, negative)
        quantized = floor + increment
    raw = _overflow_doubles(quantized, floor, negative, finite, target)
    return raw, exact


def _overflow_doubles(
    quantized: np.ndarray,
    floor: np.ndarray,
    negative: np.ndarray,
    finite: np.ndarray,
    target: FixedPrecisionType,
) -> np.ndarray:
    """The overflow step for integer-valued doubles: range tests are exact against powers of two.

    Values outside the range (and the minimum, which SAT_SYM moves) go through `overflow` as
    stand-ins: integers with the same sign, the same low width+1 bits and the same range status.
    """
    width = target.width
    top = 2.0 ** (width - 1) if target.signed else 2.0**width
    bottom = -top if target.signed else 0.0
    above = np.where(finite, quantized >= top, ~negative)
    below = np.where(finite, quantized < bottom, negative)
    inside = ~(above | below)
    raw = np.where(inside, quantized, 0.0).astype(np.int64)
    special = np.flatnonzero(~inside | (quantized == bottom))
    if special.size == 0:
        return raw
    low_bits = _low_64_bits(quantized.flat[special])
    if width < 64:
        low_bits &= np.uint64((1 << width) - 1)
    floor_bit = np.fmod(np.floor(np.ldexp(floor.flat[special], -width)), 2.0) != 0
    dtype = np.int64 if width <= 60 else object
    stand_in = low_bits.astype(dtype) | (floor_bit.astype(dtype) << width)
    sign = negative.flat[special]
    stand_in = np.where(sign, stand_in - (1 << (width + 2)), stand_in + (1 << (width + 1)))
    stand_in = np.where(inside.flat[special], raw.flat[special].astype(dtype), stand_in)
    raw.flat[special] = overflow(stand_in, stand_in, sign, target).astype(np.int64)
    return raw


def _low_64_bits(integral: np.ndarray) -> np.ndarray:
    """The two's complement pattern (mod 2**64) of integer-valued finite doubles, as uint64."""
    small = np.abs(integral) < 2.0**62
    direct = np.where(small, integral, 0.0).astype(np.int64).view(np.uint64)
    mantissa, exponent = np.frexp(np.where(small, 1.0, integral))
    shift = (exponent - 53).astype(np.int64)
    significand = np.ldexp(mantissa, 53).astype(np.int64).view(np.uint64)
    shifted = np.where(shift < 64, significand << np.minimum(shift, 63).astype(np.uint64), np.uint64(0))
    return np.where(small, direct, shifted)
