"""Learning-rate and neighbourhood-width schedules of Kohonen learning (spec A.8), computed on the host:
the learning top functions take one rate and one pair of neighbourhood tables per step.

* `asymptotic_decay` (MiniSom's default, per step t of T): v(t) = v0 / (1 + t / (T / 2)).
* `exponential_decay` (Khacef et al., per epoch e of E): v(e) = v_i (v_f / v_i)^(e / (E - 1)).
"""

from __future__ import annotations

import numpy as np

SCHEDULES = ('asymptotic', 'exponential')


def asymptotic_decay(initial: float, steps: int) -> np.ndarray:
    """v0 / (1 + t / (T / 2)) for t = 0 .. T - 1 (MiniSom's `asymptotic_decay`, one value per sample)."""
    t = np.arange(steps, dtype=np.float64)
    return initial / (1.0 + t / (steps / 2.0))


def exponential_decay(initial: float, final: float, epochs: int) -> np.ndarray:
    """v_i (v_f / v_i)^(e / (E - 1)) for e = 0 .. E - 1 (Khacef's schedule, one value per epoch)."""
    if epochs == 1:
        return np.array([float(initial)])
    e = np.arange(epochs, dtype=np.float64)
    return initial * (final / initial) ** (e / (epochs - 1))


def per_step(schedule: str, initial: float, final: float | None, epochs: int, samples_per_epoch: int) -> np.ndarray:
    """One value per step of `epochs` epochs of `samples_per_epoch` samples under `schedule`."""
    if schedule == 'asymptotic':
        return asymptotic_decay(initial, epochs * samples_per_epoch)
    if schedule == 'exponential':
        if final is None:
            raise ValueError("schedule 'exponential' needs the final value (final_rate=, final_sigma=)")
        return np.repeat(exponential_decay(initial, final, epochs), samples_per_epoch)
    raise ValueError(f'unknown schedule {schedule!r}; expected one of {", ".join(SCHEDULES)}')


def neighbourhood_tables(sigmas: np.ndarray, size: int) -> np.ndarray:
    """(steps, size) tables exp(-k^2 / (2 sigma^2)) for grid gaps k = 0 .. size - 1, one row per sigma
    (the separable Gaussian neighbourhood: h = row_table[|drow|] * col_table[|dcol|])."""
    gaps = np.arange(size, dtype=np.float64)
    return np.exp(-(gaps[None, :] ** 2) / (2.0 * np.asarray(sigmas, dtype=np.float64)[:, None] ** 2))
