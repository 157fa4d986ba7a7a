"""Sparse soft top-k mask with p = 4/3 (seed-layers.md B.2 "General p"): the general-p float64 oracle
against the optimality conditions of the definition and a generic constrained solver (SLSQP), its
properties (B.4), and the fixed-point twin of nnet_softtopk_cubic.h against the oracle within the
error bound docs/topk.md derives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from hls4ml.model.fixed import quantize
from hls4ml.model.reference.soft_topk_cubic import soft_topk_cubic, soft_topk_cubic_error_bound, soft_topk_cubic_types
from hls4ml.model.reference.soft_topk_exact import soft_topk_mask_exact, soft_topk_mask_general
from hls4ml.model.types import FixedPrecisionType, parse_precision

P = 4 / 3


def _cases(count: int, seed: int):
    """(x, k, l): n in [2, 24], l log-uniform in [1e-2, 10], a third of the rows full of ties."""
    rng = np.random.default_rng(seed)
    for case in range(count):
        n = int(rng.integers(2, 25))
        x = rng.normal(0, 1, n) if case % 3 else rng.integers(-2, 3, n).astype(np.float64)
        yield x, int(rng.integers(1, n + 1)), float(10 ** rng.uniform(-2, 1))


def _optimality_gap(x: np.ndarray, y: np.ndarray, strength: float, p: float) -> float:
    """How far y is from the KKT conditions of max <x, y> - (l / p) sum y^p over {0 <= y <= 1, sum y = k}:
    with tau the multiplier of the sum, x_i - l y_i^(p-1) = tau inside, x_i <= tau at 0, x_i - l >= tau at 1."""
    inside = (y > 1e-9) & (y < 1 - 1e-9)
    marginal = x - strength * y ** (p - 1)
    if not inside.any():  # a hard mask: any tau between the kept and the dropped values
        kept, dropped = x[y > 0.5], x[y <= 0.5]
        return 0.0 if len(dropped) == 0 else max(dropped.max() - (kept.min() - strength) - 1e-9, 0.0)
    tau = marginal[inside].mean()
    gaps = [np.abs(marginal[inside] - tau).max()]
    gaps.append(max((x[y <= 1e-9] - tau).max(initial=-np.inf), 0.0))
    gaps.append(max((tau - (x[y >= 1 - 1e-9] - strength)).max(initial=-np.inf), 0.0))
    return float(max(gaps))


@pytest.mark.parametrize('p', [4 / 3, 1.5, 2.0])
def test_oracle_meets_the_optimality_conditions(p: float) -> None:
    for x, k, strength in _cases(120, 11):
        y = soft_topk_mask_general(x, k, strength, p)[0]
        assert abs(y.sum() - k) < 1e-9 and (y >= 0).all() and (y <= 1).all()
        assert _optimality_gap(x, y, strength, p) < 1e-7 * max(1.0, strength)


def test_oracle_matches_a_generic_constrained_solver() -> None:
    """SLSQP on the definition itself (small n): the objective values agree, and so do the masks."""
    checked = 0
    for x, k, strength in _cases(60, 12):
        if len(x) > 8 or k == len(x):
            continue
        checked += 1

        def negative(y: np.ndarray, x: np.ndarray = x, strength: float = strength) -> float:
            return -(x @ y - strength / P * np.sum(np.clip(y, 0, 1) ** P))

        start = np.full(len(x), k / len(x))
        constraint = {'type': 'eq', 'fun': lambda y, k=k: y.sum() - k}
        solved = minimize(
            negative, start, bounds=[(0, 1)] * len(x), constraints=[constraint], method='SLSQP', tol=1e-12
        )
        oracle = soft_topk_mask_general(x, k, strength, P)[0]
        assert negative(oracle) <= solved.fun + 1e-7
        np.testing.assert_allclose(oracle, solved.x, atol=2e-3)
    assert checked >= 10


def test_oracle_properties_and_the_p2_closed_form() -> None:
    for x, k, strength in _cases(120, 13):
        y = soft_topk_mask_general(x, k, strength, P)[0]
        np.testing.assert_allclose(soft_topk_mask_general(x + 2.75, k, strength, P)[0], y, atol=1e-9)  # shift
        for value in np.unique(x):
            assert np.ptp(y[x == value]) < 1e-9  # ties get equal values
        assert (np.diff(y[np.argsort(x, kind='stable')]) >= -1e-9).all()  # order preserved
        ordered = -np.sort(-x)
        if k < len(x) and ordered[k - 1] - ordered[k] >= strength:  # exactly hard past the gap
            np.testing.assert_array_equal(y, (x >= ordered[k - 1]).astype(float))
        np.testing.assert_allclose(
            soft_topk_mask_general(x, k, strength, 2.0), soft_topk_mask_exact(x, k, strength), atol=1e-9
        )


def test_oracle_worked_example() -> None:
    """x = (1, 0.8, 0.5, -1), k = 2, l = 2 (the C.4 row, with p = 4/3): u = (x - t) / 2 with
    sum u^3 = 2 over the three largest; the solution checked by hand from its threshold."""
    y = soft_topk_mask_general(np.array([1, 0.8, 0.5, -1.0]), 2, 2.0, P)[0]
    t = 1 - 2 * np.cbrt(y[0])
    np.testing.assert_allclose(y, np.clip((np.array([1, 0.8, 0.5, -1]) - t) / 2, 0, 1) ** 3, atol=1e-12)
    assert y[3] == 0 and abs(y.sum() - 2) < 1e-12 and -1 <= t < -0.1


# ---- the fixed-point twin ------------------------------------------------------------------------

INPUT = parse_precision('fixed<16,6>')
RESULT = FixedPrecisionType(13, 1, False)
CONFIGS = [(8, 2, 0.25, 14), (8, 3, 0.3, 14), (16, 4, 1.0, 12), (8, 1, 2.5, 12), (12, 2, 0.05, 14)]


def _inputs(n: int, seed: int, ties: bool = False):
    rng = np.random.default_rng(seed)
    return quantize(rng.integers(-4, 5, (300, n)) / 2 if ties else rng.normal(0, 1, (300, n)), INPUT)


@pytest.mark.parametrize('ties', [False, True])
@pytest.mark.parametrize('n, k, strength, iterations', CONFIGS)
def test_twin_within_the_error_bound(n: int, k: int, strength: float, iterations: int, ties: bool) -> None:
    x = _inputs(n, n + k, ties)
    types = soft_topk_cubic_types(INPUT, RESULT, n, k, strength, iterations)
    y = soft_topk_cubic(x, k, strength, iterations, types, RESULT).value
    rounded, bracket = soft_topk_cubic_error_bound(types, RESULT, strength, n)
    bound, lsb = rounded + bracket * 2.0**-iterations, 2.0**-RESULT.fractional
    error = np.abs(y - soft_topk_mask_general(x.value, k, strength, P))
    assert error.max() <= bound
    assert (y >= 0).all() and (y <= 1).all() and (np.abs(y.sum(axis=1) - k) <= n * bound).all()
    if iterations >= RESULT.fractional + 2:  # the recommended count: C.6's 2 LSB on 98% of the rows
        assert np.mean(error.max(axis=1) <= 2 * lsb) >= 0.98


def test_twin_fast_path_ties_and_k_equal_n() -> None:
    x, k, strength = _inputs(8, 7), 3, 0.25
    types = soft_topk_cubic_types(INPUT, RESULT, 8, k, strength, 6)
    y = soft_topk_cubic(x, k, strength, 6, types, RESULT).value
    ordered = -np.sort(-x.value, axis=1)
    gap = ordered[:, k - 1] - ordered[:, k] >= strength
    assert gap.sum() > 20
    np.testing.assert_array_equal(y[gap], (x.value >= ordered[:, k - 1 : k])[gap].astype(float))
    tied = quantize(np.array([[1, 1, 1, 1], [0.5, 0.5, 0.5, -1]]), INPUT)
    y = soft_topk_cubic(tied, 2, 1.0, 14, soft_topk_cubic_types(INPUT, RESULT, 4, 2, 1.0, 14), RESULT).value
    assert np.ptp(y[0]) == 0 and np.ptp(y[1, :3]) == 0 and y[1, 3] == 0
    every = soft_topk_cubic_types(INPUT, RESULT, 4, 4, 1.0, 14)
    np.testing.assert_array_equal(soft_topk_cubic(tied, 4, 1.0, 14, every, RESULT).value, 1)
