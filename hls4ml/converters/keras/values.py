"""Reading Keras values into numpy (a module of its own: the handlers and the quantized-layer readers use it)."""

from __future__ import annotations

from typing import Any

import numpy as np


def numpy_of(value: Any) -> np.ndarray:
    """A Keras variable or tensor as a numpy array. A variable is read through its own `numpy()`: converting it
    with `keras.ops.convert_to_numpy` makes numpy 2 warn (DeprecationWarning: TensorFlow's variables implement
    `__array__` without the `copy` keyword) once per weight of every conversion."""
    import keras

    if isinstance(value, keras.Variable):
        return np.asarray(value.numpy())
    return np.asarray(keras.ops.convert_to_numpy(value))
