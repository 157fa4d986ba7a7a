"""Sparse soft top-k, p = 2: the exact float reference against the spec's vectors (seed-layers.md C.4)
and properties (B.4), and the fixed-point reference (the twin of nnet_softtopk.h) against the exact
one within the documented error bound (docs/topk.md), with its exactly-hard fast path."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.reference import soft_topk
from hls4ml.model.reference.soft_topk import check_strength, soft_topk_error_bound, soft_topk_types
from hls4ml.model.reference.soft_topk_exact import soft_topk_magnitude_exact, soft_topk_mask_exact, soft_topk_mask_pav
from hls4ml.model.types import FixedPrecisionType, parse_precision

SPEC = [  # x, k, l, mask, magnitude (C.4)
    ((-5, -2, 3, 1), 2, 0.01, (0, 0, 1, 1), (-5, 0, 3, 0)),
    ((0, 0, -5, 5), 2, 0.01, (0.5, 0.5, 0, 1), (0, 0, -5, 5)),
    ((1, 0.8, 0.5, -1), 2, 0.5, (1, 0.8, 0.2, 0), (0.9, 0.3, 0, -0.9)),
    ((1, 0.8, 0.5, -1), 2, 2, (0.783333, 0.683333, 0.533333, 0), (0.88125, 0.58125, 0.13125, -0.88125)),
    ((3, 1, 0.5, 0.5), 2, 1, (1, 0.666667, 0.166667, 0.166667), (3, 1, 0, 0)),
    ((2, 1.5, 1, 0, -1), 1, 1, (0.75, 0.25, 0, 0, 0), (1.666667, 0.666667, 0, 0, 0)),
    ((0.3, 0.1, 0.2, 0.4), 3, 0.25, (1, 0.3, 0.7, 1), (0.3, 0, 0.2, 0.4)),
    ((1, 1, 1, 1), 2, 0.1, (0.5,) * 4, (0.52381,) * 4),
]
SWEEP = [  # x = (0.9, 0.2, 0.5, 0.49, -0.3), k = 2
    (1, (0.8775, 0.1775, 0.4775, 0.4675, 0), (0.9, 0, 0.34, 0.32, 0)),
    (0.1, (1, 0, 0.55, 0.45, 0), (0.9, 0, 0.314286, 0.204286, 0)),
    (0.02, (1, 0, 0.75, 0.25, 0), (0.9, 0, 0.5, 0, 0)),
    (0.01, (1, 0, 1, 0, 0), (0.9, 0, 0.5, 0, 0)),
]


@pytest.mark.parametrize('x, k, strength, mask, magnitude', SPEC)
def test_spec_vectors(x, k: int, strength: float, mask, magnitude) -> None:
    np.testing.assert_allclose(soft_topk_mask_exact(x, k, strength)[0], mask, atol=1e-6)
    np.testing.assert_allclose(soft_topk_mask_pav(x, k, strength)[0], mask, atol=1e-6)
    np.testing.assert_allclose(soft_topk_magnitude_exact(x, k, strength)[0], magnitude, atol=1e-5)


@pytest.mark.parametrize('strength, mask, magnitude', SWEEP)
def test_strength_sweep(strength: float, mask, magnitude) -> None:
    x = (0.9, 0.2, 0.5, 0.49, -0.3)
    np.testing.assert_allclose(soft_topk_mask_exact(x, 2, strength)[0], mask, atol=1e-6)
    np.testing.assert_allclose(soft_topk_magnitude_exact(x, 2, strength)[0], magnitude, atol=1e-6)
    np.testing.assert_allclose(soft_topk_mask_exact(x, 2, 1e4)[0], 0.4, atol=1e-4)  # l -> inf: k / n


def _random_cases(count: int, seed: int):
    """(x, k, l) with n in [2, 64], l log-uniform in [1e-2, 10], a third of them full of ties."""
    rng = np.random.default_rng(seed)
    for case in range(count):
        n = int(rng.integers(2, 65))
        x = rng.normal(0, 1, n) if case % 3 else rng.integers(-2, 3, n).astype(np.float64)
        yield x, int(rng.integers(1, n + 1)), float(10 ** rng.uniform(-2, 1))


def test_mask_properties() -> None:
    for x, k, strength in _random_cases(150, 0):
        y = soft_topk_mask_exact(x, k, strength)[0]
        assert abs(y.sum() - k) < 1e-9 and (y >= 0).all() and (y <= 1).all()
        np.testing.assert_allclose(soft_topk_mask_exact(x + 3.25, k, strength)[0], y, atol=1e-9)  # shift
        np.testing.assert_allclose(soft_topk_mask_pav(x, k, strength)[0], y, atol=1e-9)
        for value in np.unique(x):  # ties get equal values; order is preserved
            assert np.ptp(y[x == value]) < 1e-12
        assert (np.diff(y[np.argsort(x)]) >= -1e-12).all()
        if k < len(x):  # sparse: y_i = 0 exactly below the threshold; hard when the gap is >= l
            ordered = np.sort(x)[::-1]
            if ordered[k - 1] - ordered[k] >= strength:
                np.testing.assert_allclose(y, (x >= ordered[k - 1]).astype(float), atol=1e-12)
            zeros = y == 0
            assert not zeros.any() or x[zeros].max() < x[~zeros].min()


def test_magnitude_properties() -> None:
    for x, k, strength in _random_cases(150, 1):
        out = soft_topk_magnitude_exact(x, k, strength)[0]
        assert (np.abs(out) <= np.abs(x) + 1e-12).all()
        assert ((np.sign(out) == np.sign(x)) | (out == 0)).all()
        np.testing.assert_allclose(soft_topk_magnitude_exact(2.5 * x, k, strength)[0], 2.5 * out, atol=1e-9)
        np.testing.assert_allclose(soft_topk_magnitude_exact(-x, k, strength)[0], -out, atol=1e-12)
        magnitudes = np.sort(np.abs(x))[::-1]
        if k < len(x) and magnitudes[k - 1] >= (1 + strength) * magnitudes[k]:
            kept = np.abs(x) >= magnitudes[k - 1]
            np.testing.assert_allclose(out, np.where(kept, x, 0), atol=1e-12)


# ---- the fixed-point reference ------------------------------------------------------------------

INPUT = parse_precision('fixed<16,6>')
CONFIGS = [  # n, k, l, mode, iterations
    (8, 2, 0.25, 'mask', 12),
    (16, 4, 1.0, 'mask', 8),
    (8, 1, 4.0, 'mask', 10),
    (8, 2, 0.25, 'magnitude', 12),
    (16, 3, 1.0, 'magnitude', 10),
]


def _result(mode: str) -> FixedPrecisionType:
    return FixedPrecisionType(13, 1, False) if mode == 'mask' else FixedPrecisionType(20, 6, True)


def _inputs(n: int, seed: int, ties: bool = False):
    rng = np.random.default_rng(seed)
    values = rng.integers(-4, 5, (300, n)) / 2 if ties else rng.normal(0, 1, (300, n))
    return quantize(values, INPUT)


@pytest.mark.parametrize('ties', [False, True])
@pytest.mark.parametrize('n, k, strength, mode, iterations', CONFIGS)
def test_fixed_point_within_the_error_bound(n: int, k: int, strength: float, mode: str, iterations: int, ties: bool):
    x, result = _inputs(n, n + k, ties), _result(mode)
    types = soft_topk_types(INPUT, result, n, k, strength, iterations, mode)
    y = soft_topk(x, k, strength, mode, iterations, types, result).value
    exact = (soft_topk_mask_exact if mode == 'mask' else soft_topk_magnitude_exact)(x.value, k, strength)
    polished, bracket = soft_topk_error_bound(types, result, strength, mode)
    error = np.abs(y - exact)
    assert error.max() <= polished + bracket * 2.0**-iterations
    lsb = 2.0**-result.fractional
    assert np.mean(error.max(axis=1) <= 2 * lsb) >= 0.98  # C.6: 2 LSB but where the last bracket matters
    if mode == 'mask':
        assert (np.abs(y.sum(axis=1) - k) <= n * (polished + bracket * 2.0**-iterations)).all()
        assert (y >= 0).all() and (y <= 1).all()
    else:
        assert (np.abs(y) <= np.abs(x.value)).all()


@pytest.mark.parametrize('mode', ['mask', 'magnitude'])
def test_fast_path_is_exactly_hard(mode: str) -> None:
    x, result, k, strength = _inputs(8, 7), _result(mode), 3, 0.25
    types = soft_topk_types(INPUT, result, 8, k, strength, 6, mode)
    y = soft_topk(x, k, strength, mode, 6, types, result).value
    keys = x.value if mode == 'mask' else np.abs(x.value)
    ordered = -np.sort(-keys, axis=1)
    gap = ordered[:, k - 1] - ordered[:, k] >= strength if mode == 'mask' else ordered[:, k - 1] >= 1.25 * ordered[:, k]
    assert gap.sum() > 20
    kept = keys >= ordered[:, k - 1 : k]
    hard = kept.astype(float) if mode == 'mask' else np.where(kept, x.value, 0)
    np.testing.assert_array_equal(y[gap], hard[gap])


def test_ties_get_equal_values_and_k_equal_n_is_all_ones() -> None:
    result = _result('mask')
    x = quantize(np.array([[1, 1, 1, 1], [0.5, 0.5, 0.5, -1]]), INPUT)
    types = soft_topk_types(INPUT, result, 4, 2, 1.0, 12, 'mask')
    y = soft_topk(x, 2, 1.0, 'mask', 12, types, result).value
    np.testing.assert_array_equal(y[0], [0.5] * 4)
    assert np.ptp(y[1, :3]) == 0 and abs(y[1].sum() - 2) < 1e-3
    all_types = soft_topk_types(INPUT, result, 4, 4, 1.0, 12, 'mask')
    np.testing.assert_array_equal(soft_topk(x, 4, 1.0, 'mask', 12, all_types, result).value, 1)


def test_bad_parameters_are_refused() -> None:
    for strength in (-1.0, 0.0, float('inf'), float('nan'), '0.5'):
        with pytest.raises(ValueError, match='positive'):
            check_strength(strength)
    types = soft_topk_types(INPUT, _result('mask'), 4, 2, 1.0, 4, 'mask')
    with pytest.raises(ValueError, match='unknown soft top-k mode'):
        soft_topk(_inputs(4, 0), 2, 1.0, 'sparsemax', 4, types, _result('mask'))


# ---- sign symmetry (B.4) and any positive l ------------------------------------------------------

SIGNED_RESULTS = [
    'fixed<20,6>',
    'fixed<12,6>',
    'fixed<12,6,RND,SAT>',
    'fixed<10,4,RND_CONV,WRAP>',
    'fixed<12,6,RND,WRAP_SM>',
]


@pytest.mark.parametrize('result', SIGNED_RESULTS)
@pytest.mark.parametrize('strength', [0.25, 0.3])
def test_magnitude_is_sign_symmetric_bit_for_bit(result: str, strength: float) -> None:
    """out(-x) = -out(x) on 1000 rows (the result type rounds |out|, then the sign is applied), and the
    most negative input is passed through exactly where the exact solution keeps it."""
    precision = parse_precision(result)
    rng = np.random.default_rng(5)
    values = rng.normal(0, 1.5, (1000, 8))
    values[::50, 0] = -32  # the most negative fixed<16,6>, a clear winner: kept as it is
    x = quantize(values, INPUT)
    flipped = quantize(-x.value, INPUT)  # exact but for -32, whose negation is not a fixed<16,6>
    types = soft_topk_types(INPUT, precision, 8, 2, strength, 12, 'magnitude')
    out = soft_topk(x, 2, strength, 'magnitude', 12, types, precision).value
    mirrored = soft_topk(flipped, 2, strength, 'magnitude', 12, types, precision).value
    symmetric = (x.value > -32).all(axis=1)
    assert symmetric.sum() == 980
    np.testing.assert_array_equal(out[symmetric], -mirrored[symmetric])
    if precision.integer >= INPUT.integer:
        np.testing.assert_array_equal(out[::50, 0], -32)


@pytest.mark.parametrize('mode', ['mask', 'magnitude'])
@pytest.mark.parametrize('strength', [0.3, 0.1, 1.7, 5.0, 0.013])
def test_any_positive_strength_within_the_error_bound(mode: str, strength: float) -> None:
    """l not a power of two: the firmware's l is l rounded finely; the bound (exact solution at the
    layer's own l) adds the rounding of l and of 1 / l or (1 + l) / l, and stays near one LSB."""
    x, result = _inputs(8, 3), _result(mode)
    types = soft_topk_types(INPUT, result, 8, 2, strength, 12, mode)
    assert abs(types.strength - strength) / strength < 2.0**-result.fractional  # 5.0 is exact
    y = soft_topk(x, 2, strength, mode, 12, types, result).value
    exact = (soft_topk_mask_exact if mode == 'mask' else soft_topk_magnitude_exact)(x.value, 2, strength)
    polished, bracket = soft_topk_error_bound(types, result, strength, mode)
    lsb = 2.0**-result.fractional
    assert polished <= 1.25 * lsb
    error = np.abs(y - exact)
    assert error.max() <= polished + bracket * 2.0**-12
    assert np.mean(error.max(axis=1) <= 2 * lsb) >= 0.98
    if mode == 'mask':
        assert (y >= 0).all() and (y <= 1).all()


def test_power_of_two_strength_is_used_exactly() -> None:
    result = _result('mask')
    for strength in (0.25, 1.0, 4.0, 2.0**-7):
        assert soft_topk_types(INPUT, result, 8, 2, strength, 12, 'mask').strength == strength
