"""Exact float64 sparse soft top-k, p = 2 (seed-layers.md B.2, B.3): the accuracy oracle of `nnet::soft_topk`.

Both forms solve for one scalar threshold of a piecewise-linear budget function: all of its
breakpoints are known, so the crossing is found by evaluating the function at every breakpoint and
interpolating linearly on the segment that holds it (exact up to float rounding, O(n^2) per row).
`soft_topk_mask_pav` is the paper's route (isotonic regression by pool adjacent violators), kept to
cross-check the threshold form.
"""

from __future__ import annotations

import numpy as np


def _crossing(breakpoints: np.ndarray, budget, k: int) -> float:
    """The t where the non-increasing, piecewise-linear `budget(t)` equals k, given its breakpoints."""
    points = np.unique(breakpoints)
    values = np.array([budget(point) for point in points])
    above = np.nonzero(values >= k)[0]
    if len(above) == 0:  # never reaches k (cannot happen for 1 <= k <= n): the smallest breakpoint
        return float(points[0])
    last = above[-1]
    if last == len(points) - 1 or values[last] == k:
        return float(points[last])
    low, high = points[last], points[last + 1]
    return float(low + (values[last] - k) / (values[last] - values[last + 1]) * (high - low))


def soft_topk_mask_exact(x: np.ndarray, k: int, strength: float) -> np.ndarray:
    """Proj onto {y in [0,1]^n : sum y = k} of x / l, per row: y_i = clip((x_i - t) / l, 0, 1)."""
    rows = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = np.ones_like(rows)
    if k == rows.shape[1]:
        return out
    for row, values in enumerate(rows):

        def budget(t: float, values: np.ndarray = values) -> float:
            return float(np.clip((values - t) / strength, 0, 1).sum())

        t = _crossing(np.concatenate([values, values - strength]), budget, k)
        out[row] = np.clip((values - t) / strength, 0, 1)
    return out


def soft_topk_magnitude_exact(x: np.ndarray, k: int, strength: float) -> np.ndarray:
    """sign(x) min(|x|, (1 + l) / l max(0, |x| - theta)) with sum_i clip((|x_i| - theta) / (l theta), 0, 1) = k.

    In rho = 1 / theta the budget is piecewise linear and non-decreasing, with breakpoints 1 / |x_i|
    and (1 + l) / |x_i|; at most k non-zero entries: the output is x.
    """
    rows = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = rows.copy()
    for row, values in enumerate(rows):
        magnitudes = np.abs(values)
        nonzero = magnitudes[magnitudes > 0]
        if len(nonzero) <= k:
            continue

        def budget(rho: float, magnitudes: np.ndarray = magnitudes) -> float:
            return float(np.clip((rho * magnitudes - 1) / strength, 0, 1).sum())

        # the crossing of the non-decreasing budget(rho) is the crossing of budget(-s) in s = -rho
        s = _crossing(-np.concatenate([1 / nonzero, (1 + strength) / nonzero]), lambda s: budget(-s), k)
        theta = 1 / -s
        ramp = (1 + strength) / strength * np.maximum(0.0, magnitudes - theta)
        out[row] = np.sign(values) * np.minimum(magnitudes, ramp)
    return out


def soft_topk_mask_pav(x: np.ndarray, k: int, strength: float) -> np.ndarray:
    """The same mask by the paper's reduction: sort, isotonic regression of s - l w by PAV, un-sort."""
    rows = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = np.empty_like(rows)
    for row, values in enumerate(rows):
        order = np.argsort(-values, kind='stable')
        ordered = values[order]
        target = ordered - strength * (np.arange(len(values)) < k)
        fitted = _decreasing_fit(target)
        out[row, order] = (ordered - fitted) / strength
    return out


def _decreasing_fit(target: np.ndarray) -> np.ndarray:
    """argmin over v_1 >= v_2 >= ... of ||v - target||^2 (pool adjacent violators)."""
    sums: list[float] = []
    lengths: list[int] = []
    for value in target:
        sums.append(float(value))
        lengths.append(1)
        while len(sums) > 1 and sums[-1] / lengths[-1] > sums[-2] / lengths[-2]:
            total, length = sums.pop(), lengths.pop()
            sums[-1] += total
            lengths[-1] += length
    return np.concatenate([np.full(length, total / length) for total, length in zip(sums, lengths, strict=True)])


# ---- general p: the ramp clip(u, 0, 1)^(q - 1), u = (x - t) / l, q = p / (p - 1) (B.2 "General p") ----


def ramp_power(p: float) -> float:
    """q - 1 = 1 / (p - 1): the exponent of the ramp (1 for p = 2, 3 for p = 4/3)."""
    if not p > 1:
        raise ValueError(f'p={p} must be greater than 1')
    return 1 / (p - 1)


def soft_topk_mask_general(x: np.ndarray, k: int, strength: float, p: float, steps: int = 200) -> np.ndarray:
    """argmax over the capped simplex of <x, y> - (l / p) sum y^p, per row, by its threshold form:
    y_i = clip((x_i - t) / l, 0, 1)^(q - 1) with t such that sum y = k. The budget is continuous and
    non-increasing in t, and t lies in [x_(k) - l, x_(k+1)], so bisection to float precision finds it."""
    power = ramp_power(p)
    rows = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = np.ones_like(rows)
    if k == rows.shape[1]:
        return out
    ordered = -np.sort(-rows, axis=1)
    low, high = ordered[:, k - 1] - strength, ordered[:, k].copy()
    for _ in range(steps):
        middle = (low + high) / 2
        enough = _general_budget(rows, middle, strength, power) >= k
        low, high = np.where(enough, middle, low), np.where(enough, high, middle)
    return np.clip((rows - ((low + high) / 2)[:, np.newaxis]) / strength, 0, 1) ** power


def _general_budget(rows: np.ndarray, t: np.ndarray, strength: float, power: float) -> np.ndarray:
    return (np.clip((rows - t[:, np.newaxis]) / strength, 0, 1) ** power).sum(axis=1)
