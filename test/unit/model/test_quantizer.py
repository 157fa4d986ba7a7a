"""The heterogeneous quantizer kind (hls4ml/model/quantizer.py, reference/quantizer.py): its reference
against the definition written independently in float64 numpy (HGQ2's formulas: SAT clamps then rounds,
WRAP rounds then wraps, zero-bit values are 0), its container type, constants and period."""

from __future__ import annotations

import numpy as np
import pytest
from quantizer_definition import ROUNDINGS, definition

from hls4ml.model.fixed import quantize
from hls4ml.model.kinds.arithmetic import quantizer_layer
from hls4ml.model.quantizer import (
    Triples,
    container_type,
    feeding_type,
    kernel_constants,
    period,
    triples_of,
)
from hls4ml.model.reference.quantizer import fixed_point_quantizer
from hls4ml.model.types import FixedPrecisionType


def _random_triples(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return rng.integers(0, 2, n), rng.integers(-3, 4, n), rng.integers(-2, 6, n)


@pytest.mark.parametrize('rounding', sorted(ROUNDINGS))
@pytest.mark.parametrize('overflow', ['WRAP', 'SAT', 'SAT_SYM'])
def test_reference_follows_the_definition(rounding: str, overflow: str) -> None:
    rng = np.random.default_rng(7)
    k, i, f = _random_triples(rng, 40)
    values = np.concatenate([rng.normal(0, 5, (300, 40)), np.round(rng.normal(0, 40, (100, 40))) / 16])
    triples = Triples(k, i, f, rounding, overflow)
    source = quantize(values, FixedPrecisionType(40, 14))  # exact: values have at most 30 fraction bits
    result = fixed_point_quantizer(source, triples, container_type(triples))
    expected = definition(source.value, k, i, f, rounding, overflow)
    np.testing.assert_array_equal(result.value, expected)


def test_sat_sym_single_bit_and_zero_bits_are_pruned() -> None:
    triples = Triples(np.array([1, 0, 1]), np.array([-2, 1, 0]), np.array([2, -1, 1]), 'RND', 'SAT_SYM')
    assert triples.live.tolist() == [False, False, True]
    constants = kernel_constants(triples)
    assert constants.arrays['lsb'].tolist() == [0.0, 0.0, 0.5]


def test_container_holds_every_triple_exactly() -> None:
    triples = Triples(np.array([0, 1]), np.array([3, 1]), np.array([1, 4]), 'RND', 'WRAP')
    assert container_type(triples) == FixedPrecisionType(8, 4, True)  # ufixed<4,3> and fixed<6,2>
    assert container_type(Triples(np.zeros(2, int), np.zeros(2, int), np.zeros(2, int), 'RND', 'SAT')) == (
        FixedPrecisionType(1, 1, False)
    )


def test_feeding_type_keeps_floor_based_rounding_exact() -> None:
    rng = np.random.default_rng(3)
    k, i, f = _random_triples(rng, 16)
    triples = Triples(k, i, f, 'RND', 'WRAP')
    feeding = feeding_type(triples)
    x = rng.uniform(-20, 20, (2000, 16)).astype(np.float32).astype(np.float64)
    direct = definition(x, k, i, f, 'RND', 'WRAP')
    through = fixed_point_quantizer(quantize(x, feeding), triples, container_type(triples))
    np.testing.assert_array_equal(through.value, direct)


def test_period_and_layer() -> None:
    per_channel = [np.tile([1.0, 2.0, 3.0], 4)] * 3
    assert period(per_channel, 3) == 3
    assert period([np.ones(6)] * 3, 3) == 1
    assert period([np.arange(6.0)] * 3, 3) == 6
    layer = quantizer_layer('q', 'x', tuple(per_channel), ('RND', 'SAT'), 3)
    assert layer.attributes['n_params'] == 3 and triples_of(layer).integer.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match='WRAP_SM'):
        quantizer_layer('q', 'x', tuple(per_channel), ('RND', 'WRAP_SM'), 3)
