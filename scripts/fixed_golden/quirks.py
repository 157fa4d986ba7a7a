"""The named vendor quirks: where the real headers deviate from the clean rules (`exact.py`).

Each function states one quirk of the fixed-point specification (section 12) as an exact rule. It
returns what the vendor header computes in that case, or None when the quirk does not apply, so the
generator can tag a row only when the vendor result differs from the clean rule AND equals what the
quirk predicts. A row that matches neither is a finding, never silently tagged.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fixed_golden import strings
from fixed_golden.exact import Modes, Shape, cast, integer_shape, result_shape

UNDEFINED = 'UB'


def _aligned(shape: Shape, raw: int, fraction: int) -> int:
    return raw << (fraction - shape.fraction)


def ap_cmp_mixed_sign(a: Shape, a_raw: int, b: Shape, b_raw: int) -> bool | None:
    """ap `<` between a signed and an unsigned operand. The binary points are aligned (the operand
    with fewer fraction bits widens; the left one by one more bit). Exact when both aligned widths
    are below 32 bits or the signed side is the wider one; otherwise both aligned raws are compared
    as unsigned numbers modulo 2**(wider width + 1), so a negative value looks huge."""
    if a.signed == b.signed:
        return None
    a_width, b_width = a.width, b.width
    if a.fraction > b.fraction:
        b_width += a.fraction - b.fraction
    elif a.fraction < b.fraction:
        a_width += b.fraction - a.fraction + 1
    signed_width, unsigned_width = (a_width, b_width) if a.signed else (b_width, a_width)
    if (signed_width < 32 and unsigned_width < 32) or signed_width > unsigned_width:
        return None
    fraction = max(a.fraction, b.fraction)
    modulus = 1 << (max(a_width, b_width) + 1)
    return _aligned(a, a_raw, fraction) % modulus < _aligned(b, b_raw, fraction) % modulus


def ap_int_eq_mixed_sign(a: Shape, a_raw: int, b: Shape, b_raw: int) -> bool | None:
    """ap_int `==` between a signed and an unsigned operand (found by this generator, not in
    section 12): both are extended to M bits by their own signedness and compared as M-bit
    patterns, with M = max(W1, W2, 32) for different widths, M = W for equal widths of 64 bits or
    more (narrower equal widths compare exactly). So ap_uint<40>(2**40 - 1) == ap_int<8>(-1)."""
    if a.signed == b.signed:
        return None
    if a.width == b.width and a.width < 64:
        return None
    bits = a.width if a.width == b.width else max(a.width, b.width, 32)
    mask = (1 << bits) - 1
    return a_raw & mask == b_raw & mask


def ap_int_divmod_mixed_sign(op: str, a: Shape, a_raw: int, b: Shape, b_raw: int) -> int | None:
    """ap_int `/` and `%` between a signed and an unsigned operand: both are extended to
    max(W1, W2) + 1 bits and re-read with the signedness of the wider operand (signed when equally
    wide); `/` truncates, `%` is the C remainder for a signed dividend type and the unsigned remainder
    of the extended patterns otherwise; the result wraps into the usual result type."""
    if op not in ('div', 'mod') or a.signed == b.signed:
        return None
    common_width = max(a.width, b.width) + 1
    common_signed = a.signed if a.width > b.width else b.signed if b.width > a.width else True
    common = integer_shape(common_width, common_signed)
    dividend, divisor = common.wrap(a_raw), common.wrap(b_raw)
    if divisor == 0:
        return None
    quotient = math.trunc(Fraction(dividend, divisor))
    if op == 'div':
        result = quotient
    elif a.signed:
        result = dividend - divisor * quotient
    else:
        mask = (1 << common_width) - 1
        result = (dividend & mask) % (divisor & mask)
    return result_shape(op, a, b).wrap(result)


def ap_fixed_div_overflow(a: Shape, a_raw: int, b: Shape, b_raw: int) -> int | None:
    """ap_fixed `/` (found by this generator, not in section 12): the quotient is computed as an
    integer of max(W1 + max(F2, 0) + [S2 and not S1], W2 + [S1 and not S2]) bits, signed when either
    operand is, and wraps there before it is widened to the result type, one bit wider. So the
    dividend's minimum divided by -1 LSB (both signed) comes out negative."""
    if b_raw == 0:
        return None
    extra = max(b.fraction, 0)
    width = max(a.width + extra + (b.signed and not a.signed), b.width + (a.signed and not b.signed))
    quotient = math.trunc(Fraction(a_raw << extra, b_raw))
    return integer_shape(width, a.signed or b.signed).wrap(quotient)


def ap_int_neg_tiny(value: Fraction, shape: Shape) -> int | None:
    """ap_int / ap_uint from a double strictly between -0.5 and 0 is +1 (wrapped)."""
    return shape.wrap(1) if Fraction(-1, 2) < value < 0 else None


def ap_toint_i0(shape: Shape, raw: int) -> int | None:
    """ap_fixed<W, 0> (signed) holding a negative value: to_int()/to_int64()/(int) give -1, not 0."""
    return -1 if shape.signed and shape.integer == 0 and raw < 0 else None


def ap_toint_neg_i(shape: Shape) -> str | None:
    """ap_fixed<W, I < 0>: the integer conversions read an uninitialized value (undefined)."""
    return UNDEFINED if shape.integer < 0 else None


def ac_w32_satzero(value: Fraction, shape: Shape, modes: Modes) -> int | None:
    """ac_fixed<W multiple of 32, signed, AC_SAT_ZERO> from a double below the minimum that rounds up
    to the minimum: 0 instead of the minimum."""
    if not (shape.signed and shape.width % 32 == 0 and modes.overflow == 'SAT_ZERO'):
        return None
    below = value < shape.value(shape.raw_min)
    return 0 if below and cast(value, shape, modes) == shape.raw_min else None


def ac_satsym_src(source: Shape, source_overflow: str, raw: int, target: Shape, modes: Modes) -> int | None:
    """ac fixed -> fixed, both AC_SAT_SYM, signed source, no fraction bits lost and no integer bits
    lost: the header skips the overflow step, so the aligned source bits are kept (wrapped)."""
    applies = (
        modes.overflow == 'SAT_SYM'
        and source_overflow == 'SAT_SYM'
        and source.signed
        and source.fraction <= target.fraction
        and target.integer - target.signed >= source.integer - source.signed
    )
    return target.wrap(raw << (target.fraction - source.fraction)) if applies else None


def ac_todouble_2round(shape: Shape, raw: int) -> float | None:
    """ac_fixed::to_double() sums the 32-bit words in double arithmetic, most significant (signed)
    word first, each step rounded to nearest even, then scales by 2**(I - W)."""
    words = -(-(shape.width + (not shape.signed)) // 32)
    total = float(raw >> (32 * (words - 1)))  # the top word, signed
    for index in range(words - 2, -1, -1):
        word = (raw >> (32 * index)) & 0xFFFFFFFF
        total = total * 4294967296.0 + float(word)
    return math.ldexp(total, -shape.fraction)


def ac_int_tiny_double(value: float, shape: Shape) -> int | None:
    """ac_int<W, S>(x) first scales x by 2**(-32 N) in double (N = its 32-bit words); when that
    underflows to zero, a tiny negative x floors to 0 instead of -1."""
    words = -(-(shape.width + (not shape.signed)) // 32)
    if value < 0 and math.ldexp(value, -32 * words) == 0.0:
        return 0
    return None


# ---- to_string deviations found by this generator (not in the specification's section 12) --------


def ap_tostring_i_gt_w(shape: Shape, raw: int, radix: int) -> str | None:
    """ap_fixed<W, I > W>::to_string prints its integer part modulo 2**(W+1): decimal and hex the
    magnitude's, binary the two's complement value's (as a non-negative number), e.g.
    ap_fixed<4,6>(-32) prints "-0", "0b0", "-0x0"."""
    if shape.integer <= shape.width:
        return None
    modulus = 1 << (shape.width + 1)
    value = int(shape.value(raw))  # an integer: the LSB is above 1
    sign = '-' if value < 0 else ''
    if radix == 10:
        return sign + str(abs(value) % modulus)
    if radix == 2:
        pattern = value % modulus
        return '0b' + ('0' + format(pattern, 'b') if pattern else '0')
    return sign + '0x' + strings.grouped_hex(abs(value) % modulus)


def ap_tostring_i64(shape: Shape, raw: int, radix: int) -> str | None:
    """ap_fixed<W, I >= 64>::to_string(2 or 16) spells the integer part like the wide ap_int does:
    a zero integer part loses its prefix ("0" for zero, "0.00000001", "-0.01p0"), and hex digits are
    upper-case with one "0" put in front when there are fewer than ceil((I+1)/4) of them."""
    if shape.integer < 64 or radix == 10:
        return None
    value = shape.value(raw)
    if radix == 2:
        whole = math.floor(value)
        integer = '0b' + strings.ap_binary_integer(shape, raw) if whole else '0'
        return integer + strings.ap_binary_fraction(shape, raw)
    whole = math.floor(abs(value))
    text = format(whole, 'X')
    if len(text) < strings.ceil_div(shape.integer + 1, 4):
        text = '0' + text
    integer = '0x' + text if whole else '0'
    return ('-' if value < 0 else '') + integer + strings.ap_hex_fraction(shape, raw)
