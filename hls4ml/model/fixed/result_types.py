"""The full-precision result type of each operator (fixed-point.md sections 4 and 6.1).

Arithmetic never rounds or saturates: the result type is wide enough for the exact result
(division: the quotient truncated toward zero). Both families agree on all of these except the
negation of an integer (`family` below).
"""

from __future__ import annotations

from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType


def _make(width: int, integer: int, signed: bool, as_integer: bool) -> FixedPrecisionType:
    if as_integer:
        return IntegerPrecisionType(width, signed)
    return FixedPrecisionType(width, integer, signed)


def _integer_bits_of_either(a: FixedPrecisionType, b: FixedPrecisionType) -> int:
    """Integer bits that hold either operand: an unsigned one gains a bit beside a signed one."""
    return max(a.integer + (b.signed and not a.signed), b.integer + (a.signed and not b.signed))


def result_type(op: str, a: FixedPrecisionType, b: FixedPrecisionType | None = None, family: str = 'ap'):
    """Type of `a op b` (or `op a` for 'neg'); op is add, sub, mul, div, mod, and, or, xor or neg."""
    if op == 'neg':
        return _negation_type(a, family)
    assert b is not None, f'{op} needs two operands'
    as_integer = a.is_integer and b.is_integer
    signed = a.signed or b.signed
    fraction = max(a.fractional, b.fractional)
    if op in ('add', 'sub'):
        integer = _integer_bits_of_either(a, b) + 1
        return _make(integer + fraction, integer, signed or op == 'sub', as_integer)
    if op == 'mul':
        return _make(a.width + b.width, a.integer + b.integer, signed, as_integer)
    if op == 'div':
        return _make(a.width + max(b.fractional, 0) + b.signed, a.integer + b.fractional + b.signed, signed, as_integer)
    if op == 'mod':
        if not as_integer:
            raise ValueError('% is defined for integer types only')
        return IntegerPrecisionType(min(a.width, b.width + (a.signed and not b.signed)), a.signed)
    if op in ('and', 'or', 'xor'):
        integer = _integer_bits_of_either(a, b)
        return _make(integer + fraction, integer, signed, as_integer)
    raise ValueError(f'unknown operator {op!r}')


def _negation_type(a: FixedPrecisionType, family: str) -> FixedPrecisionType:
    if a.is_integer and family == 'ap':
        return IntegerPrecisionType(max(a.width, 1 + a.signed) + 1, True)
    return _make(a.width + 1, a.integer + 1, True, a.is_integer)
