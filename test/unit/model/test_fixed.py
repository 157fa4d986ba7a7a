"""The numpy twin against an independent exact-rational reference, on random types, modes and values.

`reference_write` below is fixed-point.md section 3 written with `fractions.Fraction`, one value
at a time: slow and obvious. The twin's vectorised paths (float64 fast path, int64 and
Python-int integer paths) must agree with it bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hls4ml.model.fixed import FixedArray, quantize, result_type
from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType, RoundingMode, SaturationMode


def reference_round(y: Fraction, mode: RoundingMode) -> int:
    floor = math.floor(y)
    fraction = y - floor
    if fraction == 0 or mode is RoundingMode.TRN:
        return floor
    if mode is RoundingMode.TRN_ZERO:
        return floor + (y < 0)
    if fraction != Fraction(1, 2):
        return floor + (fraction > Fraction(1, 2))
    tie_up = {
        RoundingMode.RND: True,
        RoundingMode.RND_ZERO: y < 0,
        RoundingMode.RND_MIN_INF: False,
        RoundingMode.RND_INF: y > 0,
        RoundingMode.RND_CONV: floor % 2 == 1,
        RoundingMode.RND_CONV_ODD: floor % 2 == 0,
    }[mode]
    return floor + tie_up


def reference_overflow(z: int, y: Fraction, negative: bool, t: FixedPrecisionType) -> int:
    width, mode, n_bits = t.width, t.saturation_mode, t.saturation_bits
    if t.raw_min <= z <= t.raw_max:
        if mode is SaturationMode.SAT_SYM and t.signed and width > 1 and z == t.raw_min:
            return -t.raw_max
        return z
    if mode in (SaturationMode.SAT, SaturationMode.SAT_SYM):
        low = -t.raw_max if mode is SaturationMode.SAT_SYM and t.signed and width > 1 else t.raw_min
        return t.raw_max if z > t.raw_max else low
    if mode is SaturationMode.SAT_ZERO:
        return 0
    bits = [(z >> i) & 1 for i in range(width)]  # LSB first
    s = int(negative)
    if mode is SaturationMode.WRAP and n_bits:
        if t.signed:
            bits[width - 1] = s
            for i in range(width - n_bits, width - 1):
                bits[i] = 1 - s
        else:
            for i in range(width - n_bits, width):
                bits[i] = 1
    elif mode is SaturationMode.WRAP_SM:
        if n_bits == 0:
            d = (math.floor(y) >> width) & 1
            if d != bits[width - 1]:
                bits = [1 - b for b in bits]
                bits[width - 1] = d
        else:
            if (n_bits == 1 and s != bits[width - 1]) or (n_bits >= 2 and bits[width - n_bits] == s):
                bits = [1 - b for b in bits]
            for i in range(width - n_bits, width - 1):
                bits[i] = 1 - s
            bits[width - 1] = s
    pattern = sum(bit << i for i, bit in enumerate(bits))
    return pattern - (1 << width) if t.signed and bits[width - 1] else pattern


def reference_write(x: Fraction, t: FixedPrecisionType, family: str = 'ap') -> int:
    y = x * Fraction(2) ** t.fractional
    mode = (RoundingMode.TRN_ZERO if family == 'ap' else RoundingMode.TRN) if t.is_integer else t.rounding_mode
    return reference_overflow(reference_round(y, mode), y, x < 0, t)


# ---- strategies ------------------------------------------------------------------------------------

ROUNDING = [mode for mode in RoundingMode]
SATURATION = [mode for mode in SaturationMode]


@st.composite
def fixed_types(draw, max_width: int = 80) -> FixedPrecisionType:
    width = draw(st.integers(1, max_width))
    integer = draw(st.integers(-8, width + 8))
    signed = draw(st.booleans())
    saturation = draw(st.sampled_from(SATURATION if signed else SATURATION[:-1]))
    n_bits = draw(st.integers(0, min(3, width))) if saturation in (SaturationMode.WRAP, SaturationMode.WRAP_SM) else 0
    return FixedPrecisionType(width, integer, signed, draw(st.sampled_from(ROUNDING)), saturation, n_bits)


def doubles_near(t: FixedPrecisionType):
    """Doubles that land on ties, range edges and far outside, plus any finite double."""
    quantum = 2.0**-t.fractional
    edges = st.sampled_from([t.min, t.max, t.max + quantum / 2, t.min - quantum / 2, quantum / 2, -quantum / 2])
    multiples = st.integers(-(1 << min(t.width + 3, 60)), 1 << min(t.width + 3, 60)).map(
        lambda k: math.ldexp(k, -t.fractional - 1)
    )
    return st.one_of(edges, multiples, st.floats(allow_nan=False, allow_infinity=False), st.floats(-4, 4))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_writing_doubles_matches_the_exact_reference(data) -> None:
    t = data.draw(fixed_types())
    family = 'ac' if t.rounding_mode is RoundingMode.RND_CONV_ODD else data.draw(st.sampled_from(['ap', 'ac']))
    values = data.draw(st.lists(doubles_near(t), min_size=1, max_size=20))
    got = quantize(np.array(values), t, family).raw.tolist()
    assert got == [reference_write(Fraction(v), t, family) for v in values]


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_casting_between_fixed_types_matches_the_exact_reference(data) -> None:
    source, target = data.draw(fixed_types()), data.draw(fixed_types())
    raws = data.draw(st.lists(st.integers(source.raw_min, source.raw_max), min_size=1, max_size=20))
    got = FixedArray.from_raw(np.array(raws, dtype=object), source).cast(target).raw.tolist()
    quantum = Fraction(2) ** -source.fractional
    assert got == [reference_write(raw * quantum, target) for raw in raws]


def _value(raw: int, t: FixedPrecisionType) -> Fraction:
    return raw * Fraction(2) ** -t.fractional


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_arithmetic_is_exact_in_the_result_type(data) -> None:
    a_type, b_type = data.draw(fixed_types(70)), data.draw(fixed_types(70))
    a_raw = data.draw(st.integers(a_type.raw_min, a_type.raw_max))
    b_raw = data.draw(st.integers(b_type.raw_min, b_type.raw_max))
    a = FixedArray.from_raw(np.array([a_raw], dtype=object), a_type)
    b = FixedArray.from_raw(np.array([b_raw], dtype=object), b_type)
    exact_a, exact_b = _value(a_raw, a_type), _value(b_raw, b_type)
    for result, expected in (
        (a + b, exact_a + exact_b),
        (a - b, exact_a - exact_b),
        (a * b, exact_a * exact_b),
    ):
        assert _value(int(result.raw[0]), result.type) == expected
    assert bool((a < b)[0]) == (exact_a < exact_b)
    assert bool((a == b)[0]) == (exact_a == exact_b)
    if b_raw:
        quotient = a / b
        exact = exact_a / exact_b
        truncated = math.trunc(exact * Fraction(2) ** quotient.type.fractional)
        assert int(quotient.raw[0]) == truncated


def test_fast_path_falls_back_exactly_for_extreme_doubles() -> None:
    t = FixedPrecisionType(24, 8, True, 'RND_CONV', 'WRAP_SM', 2)
    values = [5e-324, -5e-324, 1e308, -1e308, np.inf, -np.inf, np.nan, 0.0, -0.0]
    got = quantize(np.array(values), t).raw.tolist()
    finite = [reference_write(Fraction(v), t) for v in values[:4]]
    assert got[:4] == finite
    assert got[7:] == [0, 0]


def test_non_finite_values_follow_the_vendor_rule() -> None:
    values = np.array([np.inf, -np.inf, np.nan])
    assert quantize(values, 'ap_fixed<8,4,AP_TRN,AP_SAT>').raw.tolist() == [127, -128, 127]
    assert quantize(values, 'ap_fixed<8,4>').raw.tolist() == [0, 0, 0]


def test_shapes_dtypes_and_inputs() -> None:
    x32 = np.array([[0.1, -0.7], [3.3, 9.0]], dtype=np.float32)
    q = quantize(x32, 'ap_fixed<8,4,AP_RND,AP_SAT>')
    assert q.shape == (2, 2) and q.raw.dtype == np.int64
    assert q.value.tolist() == [[0.125, -0.6875], [3.3125, 7.9375]]
    ints = quantize(np.array([300, -3]), 'ap_int<8>')
    assert ints.raw.tolist() == [44, -3]
    wide = quantize([1.5, -2.25], 'ap_fixed<100,50>')
    assert wide.raw.dtype == object and wide.value.tolist() == [1.5, -2.25]
    assert quantize([1.0], 'ap_ufixed<64,64>').raw.dtype == object


def test_integer_targets_round_by_family() -> None:
    x = np.array([-2.5, 2.7, -0.3])
    assert quantize(x, IntegerPrecisionType(8), 'ap').raw.tolist() == [-2, 2, 0]
    assert quantize(x, IntegerPrecisionType(8), 'ac').raw.tolist() == [-3, 2, -1]
    fixed = quantize([-2.5], 'ap_fixed<8,4>')
    assert fixed.cast(IntegerPrecisionType(8)).raw.tolist() == [-2]
    assert fixed.to_int().tolist() == [-2]
    assert FixedArray(fixed.raw, fixed.type, 'ac').to_int().tolist() == [-3]


def test_result_types_follow_the_tables() -> None:
    a, b = FixedPrecisionType(8, 4), FixedPrecisionType(6, 2, False)
    assert result_type('add', a, b) == FixedPrecisionType(9, 5)
    assert result_type('sub', b, b) == FixedPrecisionType(7, 3, True)
    assert result_type('mul', a, b) == FixedPrecisionType(14, 6)
    assert result_type('div', a, b) == FixedPrecisionType(12, 8)
    assert result_type('div', b, a) == FixedPrecisionType(11, 7)
    assert result_type('neg', b) == FixedPrecisionType(7, 3)
    assert result_type('neg', IntegerPrecisionType(1, True), family='ap') == IntegerPrecisionType(3)
    assert result_type('neg', IntegerPrecisionType(1, True), family='ac') == IntegerPrecisionType(2)
    assert result_type('add', IntegerPrecisionType(8), a) == FixedPrecisionType(13, 9)


def test_bad_uses_raise_clear_errors() -> None:
    a = quantize([1.0], 'ap_fixed<8,4>')
    with pytest.raises(ValueError, match=r'outside \[-128, 127\]'):
        FixedArray.from_raw([200], 'ap_fixed<8,4>')
    with pytest.raises(TypeError, match='cannot mix ap and ac'):
        a + quantize([1.0], 'ac_fixed<8,4,true>', 'ac')
    with pytest.raises(TypeError, match='both operands must be FixedArray'):
        a + 1.0
    with pytest.raises(ZeroDivisionError):
        a / quantize([0.0], 'ap_fixed<8,4>')
    with pytest.raises(ValueError, match='not a fixed-point or integer type'):
        quantize([1.0], 'auto')
    with pytest.raises(ValueError, match='% is defined for integer types only'):
        a % a


def test_zero_dimensional_arrays_keep_their_shape() -> None:
    """0-d object arrays turn into bare Python ints under numpy arithmetic; the twin must not care."""
    zero = FixedArray.from_raw(np.array(0), 'ap_int<8>')
    for target in ('fixed<40,12>', 'fixed<100,12>', 'fixed<8,4>'):
        cast = zero.cast(target)
        assert cast.raw.shape == () and int(cast.raw) == 0
    assert quantize(np.float64(1.5), 'fixed<70,10>').raw.shape == ()
