"""Property tests: our C++ headers and the numpy twin agree bit for bit on random types, modes and values.

Hypothesis draws batches of cases (casts from doubles, casts between fixed types, + - * / and
comparisons); each batch becomes one C++ driver (one instantiation per case), compiled once and
cached. Values enter the C++ as raw bits (built from 32-bit chunks, written with `range`/`set_slc`)
and leave as raw bits (read with `operator[]`), so no double conversion hides a difference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.types import FixedPrecisionType, RoundingMode, SaturationMode

pytestmark = pytest.mark.csim

AP_ROUNDING = [mode for mode in RoundingMode if mode is not RoundingMode.RND_CONV_ODD]
AC_SATURATION = [mode for mode in SaturationMode if mode is not SaturationMode.WRAP_SM]

PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
#include <string>
#include "ap_fixed.h"
#include "ap_int.h"
#include "ac_fixed.h"
#include "ac_int.h"

template <class T> static void print_raw(const T &x) {
    std::string bits;
    for (int i = T::width - 1; i >= 0; i--) bits += x[i] ? '1' : '0';
    std::printf("%s\n", bits.c_str());
}
template <int W> static ap_uint<W> ap_from_chunks(const unsigned *chunks, int count) {
    ap_uint<W> value = 0;
    for (int k = 0; k < count; k++) { value <<= 32; value |= ap_uint<W>(chunks[k]); }
    return value;
}
template <int W> static ac_int<W, false> ac_from_chunks(const unsigned *chunks, int count) {
    ac_int<W, false> value = 0;
    for (int k = 0; k < count; k++) { value <<= 32; value |= ac_int<W, false>(chunks[k]); }
    return value;
}
"""


def spell(precision: FixedPrecisionType, family: str) -> str:
    return precision.spelling(family)


@st.composite
def fixed_types(draw, family: str, max_width: int = 70) -> FixedPrecisionType:
    width = draw(st.integers(1, max_width))
    signed = draw(st.booleans())
    if family == 'ap':
        saturation = draw(st.sampled_from(list(SaturationMode) if signed else AC_SATURATION))
        rounding = draw(st.sampled_from(AP_ROUNDING))
        n_bits = (
            draw(st.integers(0, min(3, width))) if saturation in (SaturationMode.WRAP, SaturationMode.WRAP_SM) else 0
        )
    else:
        saturation, rounding, n_bits = (
            draw(st.sampled_from(AC_SATURATION)),
            draw(st.sampled_from(list(RoundingMode))),
            0,
        )
    integer = draw(st.integers(-6, width + 6))
    return FixedPrecisionType(width, integer, signed, rounding, saturation, n_bits)


def _chunks(raw: int, width: int) -> tuple[str, int]:
    pattern = raw & ((1 << width) - 1)
    count = max(1, math.ceil(width / 32))
    words = [(pattern >> (32 * k)) & 0xFFFFFFFF for k in reversed(range(count))]
    return ', '.join(f'{word}u' for word in words), count


def _load(variable: str, precision: FixedPrecisionType, raw: int, family: str) -> str:
    """C++ statements declaring `variable` of `precision` holding `raw`."""
    chunks, count = _chunks(raw, precision.width)
    width = precision.width
    setter = (
        f'{variable}.range({width - 1}, 0) = ap_from_chunks<{width}>({variable}_chunks, {count});'
        if family == 'ap'
        else f'{variable}.set_slc(0, ac_from_chunks<{width}>({variable}_chunks, {count}));'
    )
    return f'{{ const unsigned {variable}_chunks[] = {{{chunks}}}; {setter} }}'


def _value(raw: int, precision: FixedPrecisionType) -> float:
    return raw * 2.0**-precision.fractional


def _bits(raw: int, width: int) -> str:
    return format(raw & ((1 << width) - 1), f'0{width}b')


def _run(cpp_builder, body: list[str]) -> list[str]:
    source = PRELUDE + 'int main() {\n' + '\n'.join(body) + '\nreturn 0;\n}\n'
    result = cpp_builder.build(source, ['-O0', '-w'], name='twin_vs_headers')
    assert result.executable is not None, result.output[:3000]
    import subprocess

    return subprocess.run([str(result.executable)], capture_output=True, text=True, check=True).stdout.split()


@st.composite
def cast_cases(draw):
    family = draw(st.sampled_from(['ap', 'ac']))
    target = draw(fixed_types(family))
    quantum = 2.0**-target.fractional
    values = draw(
        st.lists(
            st.one_of(
                st.floats(allow_nan=False, allow_infinity=False, width=64),
                st.integers(-(1 << 40), 1 << 40).map(lambda k: k * quantum / 2),
                st.sampled_from([target.max + quantum / 2, target.min - quantum / 2, -quantum / 2]),
            ),
            min_size=1,
            max_size=4,
        )
    )
    return family, target, values


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(cast_cases(), min_size=25, max_size=25))
def test_double_casts_agree(cpp_builder, cases) -> None:
    body, expected = [], []
    for index, (family, target, values) in enumerate(cases):
        for position, value in enumerate(values):
            name = f'v{index}_{position}'
            body.append(f'{{ {spell(target, family)} {name} = {float(value).hex()}; print_raw({name}); }}')
            raw = int(quantize(np.array([value]), target, family).raw[0])
            expected.append(_bits(raw, target.width))
    assert _run(cpp_builder, body) == expected


@st.composite
def binary_cases(draw):
    family = draw(st.sampled_from(['ap', 'ac']))
    left, right, target = draw(fixed_types(family, 40)), draw(fixed_types(family, 40)), draw(fixed_types(family))
    left_raw = draw(st.integers(left.raw_min, left.raw_max))
    right_raw = draw(st.integers(right.raw_min, right.raw_max))
    return family, left, right, target, left_raw, right_raw


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(binary_cases(), min_size=20, max_size=20))
def test_arithmetic_and_writes_agree(cpp_builder, cases) -> None:
    body, expected = [], []
    for family, left, right, target, left_raw, right_raw in cases:
        a = FixedArray.from_raw(np.array([left_raw], dtype=object), left, family)
        b = FixedArray.from_raw(np.array([right_raw], dtype=object), right, family)
        body.append(f'{{ {spell(left, family)} a; {spell(right, family)} b;')
        body += [_load('a', left, left_raw, family), _load('b', right, right_raw, family)]
        for op, symbol in (('add', '+'), ('sub', '-'), ('mul', '*')):
            result = getattr(a, f'__{op}__')(b)
            body.append(
                f'{{ auto r = a {symbol} b; print_raw(r); {spell(target, family)} t = a {symbol} b; print_raw(t); }}'
            )
            expected += [
                _bits(int(result.raw[0]), result.type.width),
                _bits(int(result.cast(target).raw[0]), target.width),
            ]
        if right_raw != 0:
            quotient = a / b
            body.append('{ auto r = a / b; print_raw(r); }')
            expected.append(_bits(int(quotient.raw[0]), quotient.type.width))
        body.append(f'{{ {spell(target, family)} t = a; print_raw(t); std::printf("%d\\n", int(a == b)); }}')
        expected += [_bits(int(a.cast(target).raw[0]), target.width), str(int((a == b)[0]))]
        if left.signed == right.signed:  # ap's mixed-sign < is a vendor quirk (fixed-point.md section 12)
            body.append('std::printf("%d\\n", int(a < b));')
            expected.append(str(int((a < b)[0])))
        body.append('}')
    assert _run(cpp_builder, body) == expected
