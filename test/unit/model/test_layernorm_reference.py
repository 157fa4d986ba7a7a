"""The layer normalization reference (the twin of nnet_layernorm.h): exact root and division, and the
documented bound |norm - exact| <= 1.5 * 2**-F on the quantized input (docs/sequence.md)."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.kinds.sequence import layernorm_internals
from hls4ml.model.reference.layernorm import LayerNormTypes, floor_root, layernorm, truncated_quotient
from hls4ml.model.types import FixedPrecisionType, parse_precision

INPUT = parse_precision('fixed<16,6>')


def normalized(x: np.ndarray, n: int, epsilon: float, width: int = 16) -> tuple[np.ndarray, FixedPrecisionType]:
    """The kernel's normalized values (scale 1, bias 0, a result wide enough to hold them exactly)."""
    types = layernorm_internals(INPUT, n, epsilon, width)
    ones, zeros = quantize(np.ones(n), 'ufixed<2,2>'), quantize(np.zeros(n), 'ufixed<2,2>')
    result = FixedPrecisionType(types['norm'].width + 2, types['norm'].integer + 2, True)
    out = layernorm(quantize(x, INPUT), ones, zeros, n, epsilon, LayerNormTypes(**types), result)
    return out.to_double(), types['norm']


@pytest.mark.parametrize(('n', 'epsilon'), [(4, 1e-3), (8, 1e-5), (16, 1e-6), (6, 1e-3), (64, 1e-5)])
def test_the_normalized_values_are_within_the_documented_bound(n: int, epsilon: float) -> None:
    rng = np.random.default_rng(n)
    x = quantize(rng.normal(0, rng.uniform(0.01, 4, (300, 1)), (300, n)), INPUT).to_double()
    got, norm = normalized(x, n, epsilon)
    mean, variance = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    exact = (x - mean) / np.sqrt(variance + epsilon)
    assert np.abs(got - exact).max() <= 1.5 * 2.0**-norm.fractional


def test_a_constant_row_normalizes_to_zero() -> None:
    got, _ = normalized(np.full((2, 8), 1.5), 8, 1e-5)
    assert not got.any()


def test_the_root_is_the_largest_on_its_grid() -> None:
    square = quantize(np.array([[0.0, 2.0, 1e-3, 1000.0]]), 'ufixed<40,12>')
    root = floor_root(square, FixedPrecisionType(20, 6, False)).to_double()
    step = 2.0**-14
    assert np.all(root**2 <= square.to_double()) and np.all((root + step) ** 2 > square.to_double())


def test_the_quotient_truncates_toward_zero_and_saturates() -> None:
    numerator = quantize(np.array([[7.0, -7.0, 100.0, 3.0]]), 'fixed<16,8>')
    divisor = FixedArray.from_raw(np.array([[3 << 4, 3 << 4, 1, 0]]), 'ufixed<8,4>')
    got = truncated_quotient(numerator, divisor, FixedPrecisionType(8, 3, True)).to_double()
    np.testing.assert_array_equal(got, [[2.3125, -2.3125, 3.96875, 0.0]])  # steps of 1/32: 74/32 = 2.3125
