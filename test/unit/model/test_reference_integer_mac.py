"""The integer matrix product of the Dense/Conv references against the step-by-step loop, on edge types."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference import conv as conv_reference
from hls4ml.model.reference.dense import dense, dense_by_columns
from hls4ml.model.reference.integer_mac import integer_product
from hls4ml.model.types import parse_precision


def _random(shape, precision: str, seed: int, family: str = 'ap') -> FixedArray:
    """Raw values spread over the whole range of `precision` (negative ones and the extremes included)."""
    target = parse_precision(precision)
    rng = np.random.default_rng(seed)
    raw = rng.integers(target.raw_min, target.raw_max, size=shape, endpoint=True)
    raw.flat[0], raw.flat[-1] = target.raw_min, target.raw_max
    return FixedArray.from_raw(raw, target, family)


def _both_paths(x_type: str, weight_type: str, accum_type: str, family: str = 'ap', n_in: int = 24, n_out: int = 7):
    x = _random((9, n_in), x_type, 1, family)
    weights = _random((n_in, n_out), weight_type, 2, family)
    start = _random((n_out,), 'ap_fixed<12,6>', 3, family).cast(accum_type)
    return integer_product(x, weights, start, accum_type), dense_by_columns(x, weights, start, accum_type)


# (data, weight, accumulator): wrapping accumulators of every separable rounding, narrow and wide
EXACT_CASES = [
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6>'),  # 10 dropped bits, truncated, wraps a lot
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_RND>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_RND_MIN_INF>'),
    ('ap_fixed<8,3>', 'ap_fixed<6,1>', 'ap_fixed<32,12>'),  # nothing dropped: one exact matrix product
    ('ap_fixed<8,3>', 'ap_fixed<6,1>', 'ap_fixed<24,20>'),  # the product shifted up to the accumulator LSB
    ('ap_ufixed<12,4>', 'ap_fixed<9,2>', 'ap_fixed<20,8,AP_RND>'),  # unsigned data
    ('ap_fixed<31,11>', 'ap_fixed<30,9>', 'ap_fixed<48,22>'),  # 61-bit products: no float shortcut
    ('ap_fixed<32,12>', 'ap_fixed<30,10>', 'ap_fixed<32,12>'),  # the guard's widened types
    ('ap_int<8>', 'ap_int<8>', 'ap_int<12>'),  # integers wrapping
    ('ap_fixed<28,4>', 'ap_fixed<28,4>', 'ap_fixed<62,14>'),  # nothing dropped, sums beyond float64's 2^53
    ('ap_fixed<1,1>', 'ap_fixed<2,1>', 'ap_fixed<3,1>'),  # one-bit data
]


@pytest.mark.parametrize(('x_type', 'weight_type', 'accum_type'), EXACT_CASES)
def test_integer_product_equals_the_loop(x_type: str, weight_type: str, accum_type: str) -> None:
    fast, loop = _both_paths(x_type, weight_type, accum_type)
    assert fast is not None, 'the integer path should take these types'
    assert fast.type == loop.type
    np.testing.assert_array_equal(fast.raw, loop.raw)


def test_integer_product_in_the_ac_family() -> None:
    fast, loop = _both_paths('ac_fixed<16,6,true>', 'ac_fixed<10,2,true>', 'ac_fixed<18,8,true,AC_RND>', 'ac')
    assert fast is not None
    np.testing.assert_array_equal(fast.raw, loop.raw)


# Saturation, saturation bits, sign- or parity-dependent rounding, too wide: the loop keeps them.
REFUSED_CASES = [
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_TRN,AP_SAT>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_TRN,AP_WRAP,2>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_RND_CONV>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_RND_ZERO>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<16,6,AP_TRN_ZERO>'),
    ('ap_fixed<16,6>', 'ap_fixed<16,6>', 'ap_fixed<70,30>'),  # accumulator wider than int64 arithmetic
    ('ap_fixed<40,10>', 'ap_fixed<40,10>', 'ap_fixed<60,20>'),  # products beyond int64
    ('ap_fixed<33,11>', 'ap_fixed<31,9>', 'ap_fixed<60,20>'),  # products fit, their sum over n_in might not
]


@pytest.mark.parametrize(('x_type', 'weight_type', 'accum_type'), REFUSED_CASES)
def test_other_types_keep_the_loop(x_type: str, weight_type: str, accum_type: str) -> None:
    fast, _ = _both_paths(x_type, weight_type, accum_type, n_in=64)
    assert fast is None


def test_the_bound_looks_at_the_values_not_only_the_types() -> None:
    """Small values of wide types fit: the same bits as the loop."""
    x = quantize(np.linspace(-1, 1, 40).reshape(4, 10), 'ap_fixed<40,10>')
    weights = quantize(np.linspace(-0.5, 0.5, 30).reshape(10, 3), 'ap_fixed<40,10>')
    start = quantize(np.zeros(3), 'ap_fixed<60,20>')
    fast = integer_product(x, weights, start, 'ap_fixed<60,20>')
    assert fast is not None
    np.testing.assert_array_equal(fast.raw, dense_by_columns(x, weights, start, 'ap_fixed<60,20>').raw)


def test_dense_result_is_the_same_either_way() -> None:
    x = _random((5, 16), 'ap_fixed<10,4>', 4)
    weights = _random((16, 6), 'ap_fixed<8,2>', 5)
    biases = _random((6,), 'ap_fixed<8,2>', 6)
    start = biases.cast('ap_fixed<18,8>')
    loop = dense_by_columns(x, weights, start, 'ap_fixed<18,8>').cast('ap_fixed<8,3,AP_RND,AP_SAT>')
    np.testing.assert_array_equal(
        dense(x, weights, biases, 'ap_fixed<18,8>', 'ap_fixed<8,3,AP_RND,AP_SAT>').raw, loop.raw
    )


CONV_ACCUMULATORS = [
    ('ap_fixed<14,6>', True),
    ('ap_fixed<14,6,AP_RND>', True),
    ('ap_fixed<14,6,AP_RND_CONV,AP_SAT>', False),
]


@pytest.mark.parametrize(('accum_type', 'integer_path'), CONV_ACCUMULATORS)
def test_conv2d_integer_path_equals_the_loop(
    accum_type: str, integer_path: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = _random((3, 5 * 6 * 2), 'ap_fixed<9,3>', 7)
    weights = _random((3, 2, 2, 4), 'ap_fixed<8,2>', 8)
    biases = _random((4,), 'ap_fixed<8,2>', 9)
    geometry = {'in_height': 5, 'in_width': 6, 'strides': (2, 1), 'padding': (1, 1, 0, 1)}
    taken = []
    monkeypatch.setattr(
        conv_reference, 'integer_product', lambda *arguments: taken.append(integer_product(*arguments)) or taken[-1]
    )
    fast = conv_reference.conv2d(x, weights, biases, accum_type, 'ap_fixed<10,4>', **geometry)
    assert (taken[0] is not None) == integer_path
    monkeypatch.setattr(conv_reference, 'integer_product', lambda *arguments: None)
    loop = conv_reference.conv2d(x, weights, biases, accum_type, 'ap_fixed<10,4>', **geometry)
    np.testing.assert_array_equal(fast.raw, loop.raw)


def test_conv1d_integer_path_equals_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    x = _random((2, 7 * 3), 'ap_fixed<9,3>', 10)
    weights = _random((3, 3, 5), 'ap_fixed<8,2>', 11)
    biases = _random((5,), 'ap_fixed<8,2>', 12)
    arguments = (x, weights, biases, 'ap_fixed<12,4>', 'ap_fixed<16,6>')
    fast = conv_reference.conv1d(*arguments, stride=2, padding=(1, 1))
    monkeypatch.setattr(conv_reference, 'integer_product', lambda *given: None)
    loop = conv_reference.conv1d(*arguments, stride=2, padding=(1, 1))
    assert fast.shape == (2, 4 * 5)
    np.testing.assert_array_equal(fast.raw, loop.raw)
