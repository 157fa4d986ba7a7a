"""Lookup-table grids, index math and values (hls4ml/model/tables.py)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hls4ml.model import tables
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.types import FixedPrecisionType, parse_precision

TABLE = 'fixed<18,8,RND,SAT>'
INPUT_TYPES = [
    'fixed<16,6>',
    'fixed<38,18>',  # auto-widened accumulator feeding an activation
    'ufixed<8,4>',
    'ufixed<6,2>',
    'fixed<8,-2>',  # negative integer bits: |x| < 1/8
    'fixed<6,8>',  # LSB 4
    'fixed<4,1>',
    'fixed<53,20>',
    'int<12>',
]
ACTIVATIONS = ['sigmoid', 'tanh', 'softsign', 'softplus', 'elu', 'selu']


def _edge_inputs(spec: tables.TableSpec, input_type: str, family: str = 'ap') -> FixedArray:
    """Every edge of the input type plus the table boundaries and their neighbours."""
    kind = parse_precision(input_type)
    lsb = 2.0**-kind.fractional
    raws = {kind.raw_min, kind.raw_min + 1, -1, 0, 1, kind.raw_max - 1, kind.raw_max}
    for point in (spec.lo, spec.hi, 0.0):
        for offset in (-spec.step, -lsb, 0.0, lsb, spec.step):
            raws.add(math.floor((point + offset) / lsb))
    raws = sorted(raw for raw in raws if kind.raw_min <= raw <= kind.raw_max)
    return FixedArray.from_raw(np.array(raws, dtype=object), kind, family)


def _exact_slots(spec: tables.TableSpec, x: FixedArray) -> np.ndarray:
    """floor(x / step) - start from exact rationals, clipped to [-1, size] (below / inside / above)."""
    fraction = x.type.fractional
    slots = [math.floor(Fraction(int(raw), 1) / Fraction(2) ** fraction / Fraction(spec.step)) for raw in x.raw]
    return np.clip(np.array(slots, dtype=object) - spec.start, -1, spec.size).astype(np.int64)


@pytest.mark.parametrize('input_type', INPUT_TYPES)
@pytest.mark.parametrize('function', ACTIVATIONS)
def test_activation_slots_are_exact_on_edges(function: str, input_type: str) -> None:
    spec = tables.activation_table(function, input_type, TABLE, 256)
    for family in ('ap', 'ac'):
        x = _edge_inputs(spec, input_type, family)
        assert np.array_equal(np.clip(spec.slots(x), -1, spec.size), _exact_slots(spec, x))


@pytest.mark.parametrize('input_type', INPUT_TYPES)
@pytest.mark.parametrize('implementation', ['stable', 'latency'])
def test_softmax_slots_are_exact_on_edges(input_type: str, implementation: str) -> None:
    exp_spec, inv_spec = tables.softmax_tables(input_type, TABLE, TABLE, 'fixed<24,12,RND,SAT>', 8, 512, implementation)
    differences = _edge_inputs(exp_spec, input_type)
    if implementation == 'stable':  # the kernel indexes x - max, a full-precision signed difference
        differences = differences - quantize(parse_precision(input_type).max, input_type)
    assert np.array_equal(np.clip(exp_spec.slots(differences), -1, exp_spec.size), _exact_slots(exp_spec, differences))
    sums = _edge_inputs(inv_spec, 'fixed<24,12,RND,SAT>')
    assert np.array_equal(np.clip(inv_spec.slots(sums), -1, inv_spec.size), _exact_slots(inv_spec, sums))


@settings(max_examples=150, deadline=None)
@given(
    width=st.integers(1, 60),
    integer=st.integers(-8, 40),
    signed=st.booleans(),
    function=st.sampled_from(ACTIVATIONS),
    size_bits=st.integers(1, 12),
)
def test_any_input_type_gets_an_exact_index(width, integer, signed, function, size_bits) -> None:
    input_type = FixedPrecisionType(width, integer, signed)
    spec = tables.activation_table(function, input_type, TABLE, 1 << size_bits)
    x = _edge_inputs(spec, str(input_type))
    assert np.array_equal(np.clip(spec.slots(x), -1, spec.size), _exact_slots(spec, x))
    assert spec.index_type.width <= tables.MAX_INDEX_WIDTH


@pytest.mark.parametrize('input_type', INPUT_TYPES)
def test_index_type_range_strictly_contains_the_table(input_type: str) -> None:
    for function in ACTIVATIONS:
        spec = tables.activation_table(function, input_type, TABLE)
        index = spec.index_type
        assert index.fractional == spec.shift
        assert index.rounding_mode.name == 'TRN' and index.saturation_mode.name == 'SAT'
        assert index.raw_min <= spec.start - 1 and index.raw_max >= spec.start + spec.size


def test_step_is_never_finer_than_the_input_lsb() -> None:
    spec = tables.activation_table('sigmoid', 'fixed<8,4>', TABLE, 1024)
    assert spec.step == 2.0**-4  # a finer grid would have entries no input can reach
    wide = tables.activation_table('sigmoid', 'fixed<16,6>', TABLE, 1024)
    assert wide.step == 2.0**-6 and wide.lo <= -7.6 and wide.hi >= 7.6


def test_sigmoid_window_follows_the_table_precision() -> None:
    coarse = tables.activation_table('sigmoid', 'fixed<32,16>', 'ufixed<8,1,RND,SAT>')
    fine = tables.activation_table('sigmoid', 'fixed<32,16>', 'ufixed<20,1,RND,SAT>')
    assert fine.hi > coarse.hi  # finer entries: the function reaches its limit later
    entries = tables.table_values(coarse).value
    assert entries[0] == 0.0 and 1.0 - entries[-1] <= 2.0**-7  # the ends meet the limits within an LSB


def test_stable_softmax_has_exp_zero_exactly_one() -> None:
    for input_type in INPUT_TYPES:
        exp_spec, _ = tables.softmax_tables(input_type, TABLE, TABLE, 'fixed<24,12>', 10)
        zero = FixedArray.from_raw(np.array([0]), input_type)
        assert exp_spec.lookup(zero).value[0] == 1.0
        assert exp_spec.hi > 0 >= exp_spec.lo


def test_wide_softmax_input_keeps_its_resolution() -> None:
    """hls4ml 1.3.0 indexed the table with the top bits of a wide type (every output 1/N)."""
    exp_spec, _ = tables.softmax_tables('fixed<38,18>', TABLE, TABLE, 'fixed<24,12>', 10)
    assert exp_spec.step <= 2.0**-6
    x = quantize(np.array([0.0, -0.5, -1.0, -2.0]), 'fixed<39,19>')
    assert np.allclose(exp_spec.lookup(x).value, np.exp([0.0, -0.5, -1.0, -2.0]), atol=0.01)


def test_reciprocal_covers_the_possible_sums() -> None:
    exp_spec, inv_spec = tables.softmax_tables('fixed<16,6>', TABLE, TABLE, 'fixed<24,12>', 10)
    assert inv_spec.lo <= 1.0 and inv_spec.hi > 10.0  # stable: 1 <= sum <= n
    _, latency_inv = tables.softmax_tables('fixed<16,6>', TABLE, TABLE, 'fixed<24,12>', 10, implementation='latency')
    values = tables.table_values(latency_inv)
    assert latency_inv.lo == 0.0 and values.raw[0] == values.type.raw_max  # 1/0 saturates, never wraps


@pytest.mark.parametrize('function', ACTIVATIONS + ['exp', 'reciprocal'])
def test_values_are_the_quantized_function(function: str) -> None:
    spec = tables.make_table(function, 0.25, 6.0, 2.0**-10, 256, TABLE)
    values = tables.table_values(spec)
    exact = tables.FUNCTIONS[function](spec.points())
    lsb = 2.0**-spec.table_type.fractional
    assert np.all(np.abs(values.value - np.clip(exact, values.type.min, values.type.max)) <= lsb / 2)
    assert np.array_equal(tables.table_values(spec, 'ac').raw, values.raw)


def test_limits_must_fit_the_table_type() -> None:
    with pytest.raises(ValueError, match='cannot hold the limit 1'):
        tables.activation_table('sigmoid', 'fixed<16,6>', 'fixed<8,0>')  # WRAP: 1 would become -1
    tables.activation_table('sigmoid', 'fixed<16,6>', 'ufixed<8,0,RND,SAT>')  # saturates to 1 - LSB: fine


@pytest.mark.parametrize('size', [0, 1, 3, 1000])
def test_size_must_be_a_power_of_two(size: int) -> None:
    with pytest.raises(ValueError, match='power of two'):
        tables.activation_table('tanh', 'fixed<16,6>', TABLE, size)


def test_bad_requests_are_explained() -> None:
    with pytest.raises(ValueError, match='no table function'):
        tables.make_table('cosh', 0.0, 1.0, 0.5, 64, TABLE)
    with pytest.raises(ValueError, match='has no tables'):
        tables.softmax_tables('fixed<16,6>', TABLE, TABLE, TABLE, 4, implementation='argmax')
    with pytest.raises(ValueError, match='wider than 53'):
        tables.activation_table('tanh', 'fixed<16,6>', 'fixed<60,4>')
