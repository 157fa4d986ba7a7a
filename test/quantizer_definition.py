"""HGQ2's fixed-point quantizer at inference written in float64 numpy, independently of the fixed-point
twin: the oracle of the FixedPointQuantizer tests (exact for the small values they use)."""

from __future__ import annotations

import numpy as np

ROUNDINGS = {
    'TRN': np.floor,
    'RND': lambda y: np.floor(y + 0.5),
    'RND_CONV': np.round,
    'RND_MIN_INF': lambda y: -np.floor(-y + 0.5),
    'TRN_ZERO': lambda y: np.trunc(y),
    'RND_INF': lambda y: np.sign(y) * np.floor(np.abs(y) + 0.5),
    'RND_ZERO': lambda y: -np.sign(y) * np.floor(-np.abs(y) + 0.5),
}


def definition(x: np.ndarray, k: np.ndarray, i: np.ndarray, f: np.ndarray, rounding: str, overflow: str) -> np.ndarray:
    """HGQ2's quantizer at inference, in float64 (exact for these small values)."""
    lsb = 2.0**-f
    high = 2.0**i - lsb
    if overflow != 'WRAP':
        low = -high * k if overflow == 'SAT_SYM' else -(2.0**i) * k
        x = np.clip(x, low, high)
    y = ROUNDINGS[rounding](x / lsb) * lsb
    if overflow == 'WRAP':
        bias = k * 2.0 ** (i + k - 1)
        y = np.mod(y + bias, 2.0 ** (i + k)) - bias
    return np.where(k + i + f > 0, y, 0.0)
