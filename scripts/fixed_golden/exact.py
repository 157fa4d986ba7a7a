"""The clean fixed-point rules, in exact rational arithmetic.

This is the generator's own statement of the rules (the fixed-point specification, sections 1-9): a
value is a raw integer times 2**(I - W); a write into a type scales, quantizes, then handles overflow;
arithmetic is exact in a full-precision result type. It is written independently of the project's
Python twin (`hls4ml/model/fixed`) on purpose: the golden vectors exist to check that twin, so they
must not be judged by it. Everything here is `int` and `Fraction`; no float takes part in a rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Shape:
    """A fixed-point format <W, I, S>: `width` bits, `integer` of them left of the binary point."""

    width: int
    integer: int
    signed: bool

    @property
    def fraction(self) -> int:
        return self.width - self.integer

    @property
    def raw_min(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def raw_max(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    def value(self, raw: int) -> Fraction:
        """The exact value of a raw integer of this format."""
        return Fraction(raw) / Fraction(2) ** self.fraction

    def scale(self, value: Fraction) -> Fraction:
        """A value in units of this format's least significant bit."""
        return value * Fraction(2) ** self.fraction

    def wrap(self, number: int) -> int:
        """The low `width` bits of an integer, read back with this format's signedness."""
        low = number & ((1 << self.width) - 1)
        return low - (1 << self.width) if self.signed and low >> (self.width - 1) else low

    def holds(self, raw: int) -> bool:
        return self.raw_min <= raw <= self.raw_max


def integer_shape(width: int, signed: bool) -> Shape:
    """ap_int / ac_int as a fixed-point format with I = W."""
    return Shape(width, width, signed)


@dataclass(frozen=True)
class Modes:
    """How a write into a type rounds and overflows; mode names without the AP_/AC_ prefix."""

    quantization: str = 'TRN'
    overflow: str = 'WRAP'
    saturation_bits: int = 0


# ---- a write into a type: quantize, then overflow (section 3) -------------------------------------


def _round_tie(floor: int, negative: bool, mode: str) -> int:
    """The integer chosen for an exact tie floor + 1/2."""
    up = {
        'RND': True,
        'RND_ZERO': negative,
        'RND_MIN_INF': False,
        'RND_INF': not negative,
        'RND_CONV': floor % 2 == 1,
        'RND_CONV_ODD': floor % 2 == 0,
    }[mode]
    return floor + 1 if up else floor


def quantize(scaled: Fraction, mode: str) -> int:
    """The integer a quantization mode makes of a value given in target LSBs."""
    floor = math.floor(scaled)
    tail = scaled - floor
    if tail == 0 or mode == 'TRN':
        return floor
    if mode == 'TRN_ZERO':
        return floor if scaled > 0 else floor + 1
    if tail != HALF:
        return floor + 1 if tail > HALF else floor
    return _round_tie(floor, scaled < 0, mode)


def _wrap_saturating_bits(wrapped: int, negative: bool, shape: Shape, bits: int) -> int:
    """AP_WRAP with N > 0: the top N bits saturate, the rest wrap."""
    top = shape.width - 1
    if not shape.signed:
        return wrapped | (((1 << bits) - 1) << (shape.width - bits))
    wrapped = _set_bit(wrapped, top, negative)
    for position in range(shape.width - bits, top):
        wrapped = _set_bit(wrapped, position, not negative)
    return wrapped


def _wrap_sign_magnitude(wrapped: int, floor: int, negative: bool, shape: Shape, bits: int) -> int:
    """AP_WRAP_SM: invert the wrapped bits when the kept sign disagrees, then force the sign bit(s)."""
    top = shape.width - 1
    everything = (1 << shape.width) - 1
    if bits == 0:
        sign = (floor >> shape.width) & 1 == 1
        if sign != bool(wrapped >> top & 1):
            wrapped = _set_bit(wrapped ^ everything, top, sign)
        return wrapped
    if bits == 1:
        if negative != bool(wrapped >> top & 1):
            wrapped ^= everything
        return _set_bit(wrapped, top, negative)
    if bool(wrapped >> (shape.width - bits) & 1) == negative:
        wrapped ^= everything
    for position in range(shape.width - bits, top):
        wrapped = _set_bit(wrapped, position, not negative)
    return _set_bit(wrapped, top, negative)


def _set_bit(number: int, position: int, value: bool) -> int:
    return number | (1 << position) if value else number & ~(1 << position)


def overflow(quantized: int, scaled: Fraction, shape: Shape, modes: Modes) -> int:
    """The raw result of an overflow mode for a quantized integer (section 3.2)."""
    low, high = shape.raw_min, shape.raw_max
    mode = modes.overflow
    if mode == 'SAT_SYM' and shape.signed and shape.width > 1:
        low = -high  # the minimum itself is excluded, also when it is reached in range
    if low <= quantized <= high:
        return quantized
    if mode in ('SAT', 'SAT_SYM'):
        return high if quantized > high else low
    if mode == 'SAT_ZERO':
        return 0
    wrapped = quantized & ((1 << shape.width) - 1)
    negative = scaled < 0
    if mode == 'WRAP' and modes.saturation_bits:
        wrapped = _wrap_saturating_bits(wrapped, negative, shape, modes.saturation_bits)
    elif mode == 'WRAP_SM':
        floor = math.floor(scaled)
        wrapped = _wrap_sign_magnitude(wrapped, floor, negative, shape, modes.saturation_bits)
    return shape.wrap(wrapped)


def cast(value: Fraction, shape: Shape, modes: Modes) -> int:
    """The raw bits (as an integer) of `value` written into `shape` with `modes`."""
    scaled = shape.scale(value)
    return overflow(quantize(scaled, modes.quantization), scaled, shape, modes)


def integer_from_double(value: Fraction, shape: Shape, family: str) -> int:
    """ap_int(double) truncates toward zero, ac_int(double) floors; both then wrap (section 4)."""
    whole = math.trunc(value) if family == 'ap' else math.floor(value)
    return shape.wrap(whole)


# ---- arithmetic: full-precision result types and exact values (sections 4 and 6) ------------------


def _joint_integer(a: Shape, b: Shape) -> int:
    """The integer bits both operands fit in: an unsigned one gains a bit beside a signed one."""
    return max(a.integer + (b.signed and not a.signed), b.integer + (a.signed and not b.signed))


def result_shape(op: str, a: Shape, b: Shape | None) -> Shape:
    """The C++ result type of `a op b` (or `-a`) for fixed-point and integer operands alike."""
    if op == 'neg':
        return Shape(a.width + 1, a.integer + 1, True)
    assert b is not None
    either = a.signed or b.signed
    if op in ('add', 'sub'):
        integer = _joint_integer(a, b) + 1
        return Shape(integer + max(a.fraction, b.fraction), integer, either or op == 'sub')
    if op == 'mul':
        return Shape(a.width + b.width, a.integer + b.integer, either)
    if op == 'div':
        return Shape(a.width + max(b.fraction, 0) + b.signed, a.integer + b.fraction + b.signed, either)
    if op == 'mod':  # integers only
        width = min(a.width, b.width + (a.signed and not b.signed))
        return Shape(width, width, a.signed)
    raise ValueError(f'no result type for operator {op!r}')


def _truncate(value: Fraction) -> int:
    return math.trunc(value)


def exact_result(op: str, a: Fraction, b: Fraction | None) -> Fraction | bool:
    """The true result of an operator: exact, except `/` truncated toward zero in the result LSB
    (applied by `operate`) and `%` the C remainder (sign of the dividend)."""
    if op == 'neg':
        return -a
    assert b is not None
    results = {
        'add': lambda: a + b,
        'sub': lambda: a - b,
        'mul': lambda: a * b,
        'div': lambda: a / b,
        'mod': lambda: a - b * _truncate(a / b),
        'lt': lambda: a < b,
        'eq': lambda: a == b,
    }
    return results[op]()


def operate(op: str, a: Shape, a_raw: int, b: Shape | None, b_raw: int) -> tuple[Shape | None, int]:
    """The clean (result shape, raw result) of an operator; comparisons give (None, 0 or 1).

    Raises ValueError when the exact result does not fit its result type (a rule broken)."""
    b_value = b.value(b_raw) if b is not None else None
    result = exact_result(op, a.value(a_raw), b_value)
    if isinstance(result, bool):
        return None, int(result)
    shape = result_shape(op, a, b)
    raw = _truncate(shape.scale(result))
    if shape.scale(result) != raw and op != 'div':
        raise ValueError(f'{op} of {a} and {b} is not exact in {shape}')
    if not shape.holds(raw):
        raise ValueError(f'{op} of {a} and {b} does not fit {shape}')
    return shape, raw


def shift(shape: Shape, raw: int, amount: int, left: bool) -> int:
    """x << k or x >> k: the raw bits move, the type stays; a negative k shifts the other way."""
    if amount < 0:
        amount, left = -amount, not left
    if left:
        return shape.wrap(raw << amount)
    return raw >> amount  # Python's >> floors, which is the arithmetic (or logical) shift


# ---- conversions out of a fixed-point value (section 9) -------------------------------------------


def to_double(value: Fraction) -> float:
    """The nearest double, ties to even (int / int true division is correctly rounded)."""
    return value.numerator / value.denominator


def to_float(value: Fraction) -> float:
    """The nearest binary32, ties to even, rounded once from the exact value (as a Python float)."""
    if value == 0:
        return 0.0
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    if not -126 <= exponent <= 127:
        raise ValueError(f'{value} is outside the normal binary32 range')
    lsb = Fraction(2) ** (exponent - 23)
    significand = quantize(magnitude / lsb, 'RND_CONV')
    result = float(significand * lsb)
    return -result if value < 0 else result


def to_integer(value: Fraction, bits: int, family: str) -> int:
    """to_int (32 bits) / to_int64 (64 bits): ap truncates toward zero, ac floors; low bits kept."""
    whole = math.trunc(value) if family == 'ap' else math.floor(value)
    return integer_shape(bits, True).wrap(whole)
