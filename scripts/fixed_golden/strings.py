"""The to_string() formats of both families (fixed-point specification, section 9.2), made exact.

ap: `to_string(10)` is the exact decimal with a leading zero ("-0.0625"); `to_string(2)` prints the
integer part as I+1-bit two's complement (leading zeros dropped but one, "0" when I <= 0), then the
F fraction bits when they are not all zero; `to_string(16)` (sign = S) prints sign and magnitude,
the integer digits being those of the binary text grouped by four from the point ("0x0f" for 15,
"0x2" for 2), then the fraction digits (padded to whole digits) and "p0" when there is a fraction.

ac: `AC_DEC` is the exact decimal without a leading zero (".5", "-.0625"; "0" for zero) and, for
types with more than 32 fraction bits, ".0" after integral values ("100.0", ".0"); `AC_BIN` and
`AC_HEX` print two's complement with the fewest integer digits that keep the sign, upper-case hex,
then always all the fraction digits.

The ap deviations (integer part modulo 2**(W+1) when I > W; the wide-integer spelling when I >= 64)
are quirks, in quirks.py.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fixed_golden.exact import Shape


def ceil_div(number: int, divisor: int) -> int:
    return -(-number // divisor)


def decimal(magnitude: Fraction, leading_zero: bool) -> str:
    """The exact decimal text of a non-negative dyadic value, without trailing zeros."""
    whole = math.floor(magnitude)
    tail = magnitude - whole
    text = str(whole) if whole or leading_zero else ''
    if tail:
        places = tail.denominator.bit_length() - 1  # a power of two: that many decimals suffice
        text += '.' + str(int(tail * 10**places)).zfill(places).rstrip('0')
    return text


def digits(number: int, count: int, radix: int, upper: bool = False) -> str:
    """A non-negative number in radix 2 or 16, zero-padded to `count` digits."""
    code = 'b' if radix == 2 else 'X' if upper else 'x'
    return format(number, f'0{count}{code}')


def fraction_digits(tail: int, bits: int, radix: int, upper: bool = False) -> str:
    """`bits` fraction bits as radix digits, the last one padded with zero bits on the right."""
    group = 1 if radix == 2 else 4
    count = ceil_div(bits, group)
    return digits(tail << (count * group - bits), count, radix, upper)


def grouped_hex(whole: int) -> str:
    """The hex digits of a non-negative integer part: its binary text with one leading zero
    ("0" + binary), grouped by four."""
    bits = whole.bit_length() + 1 if whole else 1
    return digits(whole, ceil_div(bits, 4), 16)


def ap_decimal(shape: Shape, raw: int) -> str:
    value = shape.value(raw)
    return ('-' if value < 0 else '') + decimal(abs(value), leading_zero=True)


def ap_binary_integer(shape: Shape, raw: int) -> str:
    whole = math.floor(shape.value(raw))
    if shape.integer <= 0 or whole == 0:
        return '0'
    if whole > 0:
        return '0' + format(whole, 'b')
    return digits(whole % (1 << (shape.integer + 1)), shape.integer + 1, 2)


def ap_binary_fraction(shape: Shape, raw: int) -> str:
    tail = raw % (1 << shape.fraction) if shape.fraction > 0 else 0
    return '.' + digits(tail, shape.fraction, 2) if tail else ''


def ap_hex_fraction(shape: Shape, raw: int) -> str:
    magnitude = abs(shape.value(raw))
    tail = int((magnitude - math.floor(magnitude)) * 2**shape.fraction) if shape.fraction > 0 else 0
    return '.' + fraction_digits(tail, shape.fraction, 16) + 'p0' if tail else ''


def ap_string(shape: Shape, raw: int, radix: int) -> str:
    """ap_fixed::to_string(radix) with its default sign argument (S)."""
    if radix == 10:
        return ap_decimal(shape, raw)
    if radix == 2:
        return '0b' + ap_binary_integer(shape, raw) + ap_binary_fraction(shape, raw)
    value = shape.value(raw)
    sign = '-' if value < 0 else ''
    return sign + '0x' + grouped_hex(math.floor(abs(value))) + ap_hex_fraction(shape, raw)


def ac_decimal(shape: Shape, raw: int) -> str:
    value = shape.value(raw)
    text = decimal(abs(value), leading_zero=False)
    if value.denominator == 1 and shape.fraction > 32:
        text += '.0'
    return ('-' if value < 0 else '') + (text or '0')


def ac_twos_complement(shape: Shape, raw: int, radix: int) -> str:
    """AC_BIN / AC_HEX: the integer part in the fewest digits that keep its sign, then all fraction
    digits."""
    whole = math.floor(shape.value(raw))
    group = 1 if radix == 2 else 4
    count = ceil_div((whole if whole >= 0 else ~whole).bit_length() + 1, group)
    text = ('0b' if radix == 2 else '0x') + digits(whole % (1 << (count * group)), count, radix, upper=True)
    if shape.fraction > 0:
        text += '.' + fraction_digits(raw % (1 << shape.fraction), shape.fraction, radix, upper=True)
    return text


def ac_string(shape: Shape, raw: int, radix: int) -> str:
    """ac_fixed::to_string(AC_DEC / AC_BIN / AC_HEX)."""
    return ac_decimal(shape, raw) if radix == 10 else ac_twos_complement(shape, raw, radix)


def to_string(family: str, shape: Shape, raw: int, radix: int) -> str:
    return ap_string(shape, raw, radix) if family == 'ap' else ac_string(shape, raw, radix)
