"""Where the outputs of a resize read their input, along one axis (PyTorch's and ONNX's rules): the
nearest source of each output, or the two neighbours and weights of a linear interpolation. `ratio`
is the input step per output step (1 / scale, or in / out)."""

from __future__ import annotations

import numpy as np


def nearest_sources(length: int, out: int, ratio: float, exact: bool) -> np.ndarray:
    """floor(o * ratio) ('nearest', ONNX asymmetric + floor), or floor((o + 1/2) * ratio) ('nearest-exact',
    ONNX half_pixel + floor), clamped to the last input."""
    shift = 0.5 if exact else 0.0
    return np.minimum(np.floor((np.arange(out) + shift) * ratio).astype(np.int64), length - 1)


def linear_taps(length: int, out: int, ratio: float, align_corners: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per output the two input indices and their weights. align_corners: source o * (in - 1) / (out - 1);
    else (o + 1/2) * ratio - 1/2 (half pixel), at least 0."""
    outputs = np.arange(out, dtype=np.float64)
    if align_corners:
        source = outputs * ((length - 1) / (out - 1) if out > 1 else 0.0)
    else:
        source = np.maximum((outputs + 0.5) * ratio - 0.5, 0.0)
    low = np.minimum(np.floor(source).astype(np.int64), length - 1)
    high = np.minimum(low + 1, length - 1)
    fraction = source - low
    return np.stack([low, high], axis=1), np.stack([1 - fraction, fraction], axis=1)
