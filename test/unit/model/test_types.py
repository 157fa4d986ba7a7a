"""Precision types: values, parsing of every config spelling, printing per backend family, errors."""

from __future__ import annotations

import pytest

from hls4ml.model.types import (
    MAX_WIDTH,
    FixedPrecisionType,
    IntegerPrecisionType,
    RoundingMode,
    SaturationMode,
    UnspecifiedPrecisionType,
    parse_precision,
)

FIXED_16_6 = FixedPrecisionType(16, 6, True)
RND_CONV_SAT = FixedPrecisionType(16, 6, True, RoundingMode.RND_CONV, SaturationMode.SAT)


@pytest.mark.parametrize(
    'text, expected',
    [
        ('ap_fixed<16,6>', FIXED_16_6),
        ('ap_fixed<16, 6>', FIXED_16_6),
        ('fixed<16,6>', FIXED_16_6),
        ('fixed<16,6,TRN,WRAP,0>', FIXED_16_6),
        ('ac_fixed<16,6,true>', FIXED_16_6),
        ('ac_fixed<16,6>', FIXED_16_6),
        ('ap_fixed<16,6,AP_RND_CONV,AP_SAT>', RND_CONV_SAT),
        ('fixed<16,6,RND_CONV,SAT>', RND_CONV_SAT),
        ('ac_fixed<16,6,true,AC_RND_CONV,AC_SAT>', RND_CONV_SAT),
        ('ap_ufixed<8,0>', FixedPrecisionType(8, 0, False)),
        ('ufixed<8,0,RND,SAT_SYM>', FixedPrecisionType(8, 0, False, 'RND', 'SAT_SYM')),
        (
            'ac_fixed<8,0,false,AC_RND_CONV_ODD,AC_SAT_ZERO>',
            FixedPrecisionType(8, 0, False, 'RND_CONV_ODD', 'SAT_ZERO'),
        ),
        ('ap_fixed<8,4,AP_TRN,AP_WRAP,2>', FixedPrecisionType(8, 4, True, saturation_bits=2)),
        ('ap_fixed<8,-3>', FixedPrecisionType(8, -3, True)),
        ('ap_fixed<4,6>', FixedPrecisionType(4, 6, True)),
        ('ap_int<8>', IntegerPrecisionType(8, True)),
        ('ap_uint<4>', IntegerPrecisionType(4, False)),
        ('int<8>', IntegerPrecisionType(8, True)),
        ('uint<4>', IntegerPrecisionType(4, False)),
        ('ac_int<8,false>', IntegerPrecisionType(8, False)),
        ('ac_int<8>', IntegerPrecisionType(8, True)),
        ('auto', UnspecifiedPrecisionType()),
        (' AUTO ', UnspecifiedPrecisionType()),
    ],
)
def test_every_config_spelling_parses(text: str, expected) -> None:
    assert parse_precision(text) == expected


@pytest.mark.parametrize(
    'text, problem',
    [
        ('ap_fixed<16>', 'takes 2 to 5 template arguments, got 1'),
        ('ap_fixed<16,6,AP_SAT>', 'must be a rounding mode; the rounding mode comes before'),
        ('ap_fixed<16,6,AP_RND,AP_RND>', 'must be a saturation mode'),
        ('ap_fixed<16,6,AP_FOO>', "argument 3 ('AP_FOO') is not a rounding mode"),
        ('ap_fixed<16,x>', "integer bits must be an integer, got 'x'"),
        ('ap_fixed<0,0>', 'width must be between 1 and 1024 bits, got 0'),
        (f'ap_fixed<{MAX_WIDTH + 1},6>', 'width must be between 1 and 1024 bits'),
        ('ap_fixed<16,6', 'expected a form like ap_fixed<16,6>'),
        ('ap_fixd<16,6>', "unknown type name 'ap_fixd'"),
        ('ac_int<8,maybe>', 'signedness argument must be true or false'),
        ('ap_int<8,4>', 'takes 1 template arguments, got 2'),
        ('ap_fixed<16,,6>', 'empty template argument'),
        ('ap_ufixed<8,4,AP_TRN,AP_WRAP_SM>', 'WRAP_SM (sign-magnitude wrap) needs a signed type'),
        ('ap_fixed<8,4,AP_TRN,AP_WRAP,9>', 'saturation_bits must be between 0 and the width 8'),
        ('float', 'expected a form like'),
    ],
)
def test_malformed_strings_raise_a_value_error_that_quotes_them(text: str, problem: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_precision(text)
    assert repr(text) in str(info.value)
    assert problem in str(info.value)


def test_error_names_where_the_string_came_from() -> None:
    with pytest.raises(ValueError, match=r"^layer 'dense_1', result: invalid precision 'ap_fixed<9999,6>'"):
        parse_precision('ap_fixed<9999,6>', where="layer 'dense_1', result")


@pytest.mark.parametrize(
    'precision, ap, ac, neutral',
    [
        (FIXED_16_6, 'ap_fixed<16,6>', 'ac_fixed<16,6,true>', 'fixed<16,6>'),
        (
            RND_CONV_SAT,
            'ap_fixed<16,6,AP_RND_CONV,AP_SAT>',
            'ac_fixed<16,6,true,AC_RND_CONV,AC_SAT>',
            'fixed<16,6,RND_CONV,SAT>',
        ),
        (FixedPrecisionType(8, 0, False), 'ap_ufixed<8,0>', 'ac_fixed<8,0,false>', 'ufixed<8,0>'),
        (
            FixedPrecisionType(8, 4, True, 'RND', 'WRAP', 2),
            'ap_fixed<8,4,AP_RND,AP_WRAP,2>',
            None,
            'fixed<8,4,RND,WRAP,2>',
        ),
        (IntegerPrecisionType(8), 'ap_int<8>', 'ac_int<8,true>', 'int<8>'),
        (IntegerPrecisionType(4, False), 'ap_uint<4>', 'ac_int<4,false>', 'uint<4>'),
    ],
)
def test_spellings_round_trip(precision, ap: str, ac: str | None, neutral: str) -> None:
    assert precision.spelling('ap') == ap
    assert str(precision) == neutral
    assert parse_precision(ap) == precision
    assert parse_precision(neutral) == precision
    if ac is None:
        with pytest.raises(ValueError, match='saturation bits exist only in ap_fixed'):
            precision.spelling('ac')
    else:
        assert precision.spelling('ac') == ac
        assert parse_precision(ac) == precision


def test_family_only_modes_refuse_the_other_family() -> None:
    with pytest.raises(ValueError, match='RND_CONV_ODD exists only in ac_fixed'):
        FixedPrecisionType(8, 4, True, 'RND_CONV_ODD').spelling('ap')
    with pytest.raises(ValueError, match='WRAP_SM exists only in ap_fixed'):
        FixedPrecisionType(8, 4, True, 'TRN', 'WRAP_SM').spelling('ac')
    with pytest.raises(ValueError, match="unknown type family 'xilinx'"):
        FIXED_16_6.spelling('xilinx')


def test_types_are_immutable_values() -> None:
    with pytest.raises(AttributeError, match='immutable'):
        FIXED_16_6.width = 8  # type: ignore[misc]
    assert FIXED_16_6 == FixedPrecisionType(16, 6)
    assert len({FIXED_16_6, FixedPrecisionType(16, 6), RND_CONV_SAT}) == 2
    assert FIXED_16_6.replace(width=18) == FixedPrecisionType(18, 6)
    assert IntegerPrecisionType(8) != FixedPrecisionType(8, 8)
    assert IntegerPrecisionType(8).replace(signed=False) == IntegerPrecisionType(8, False)


def test_derived_quantities() -> None:
    precision = FixedPrecisionType(8, 4)
    assert (precision.fractional, precision.raw_min, precision.raw_max) == (4, -128, 127)
    assert (precision.min, precision.max) == (-8.0, 7.9375)
    unsigned = FixedPrecisionType(4, 6, False)
    assert (unsigned.fractional, unsigned.min, unsigned.max) == (-2, 0.0, 60.0)


def test_modes_parse_with_or_without_family_prefix() -> None:
    assert RoundingMode.from_string('AP_RND_CONV') is RoundingMode.RND_CONV
    assert RoundingMode.from_string('ac_rnd') is RoundingMode.RND
    assert SaturationMode.from_string('SAT_SYM') is SaturationMode.SAT_SYM
    with pytest.raises(ValueError, match="unknown saturation mode 'CLAMP'"):
        SaturationMode.from_string('CLAMP')


def test_non_integer_fields_are_refused() -> None:
    with pytest.raises(ValueError, match='width must be an integer'):
        FixedPrecisionType(16.0, 6)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='expected a RoundingMode'):
        FixedPrecisionType(16, 6, True, 3)  # type: ignore[arg-type]
