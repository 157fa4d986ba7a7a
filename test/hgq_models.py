"""Tiny HGQ2 models for the tests: built with a fixed seed, trained a few steps, then given heterogeneous
widths (per-element activation widths, per-weight kernel widths with some zero-bit, i.e. pruned, weights),
so every test sees non-trivial quantizers. Kept in the exact regime of float32 (sums under 24 bits)."""

from __future__ import annotations

import numpy as np

DENSE_FEATURES = 8
CONV_SHAPE = (6, 6, 2)


def _train(model, x: np.ndarray, outputs: int, seed: int) -> None:
    y = np.random.default_rng(seed).normal(size=(len(x), outputs)).astype(np.float32)
    model.compile(optimizer='adam', loss='mse')
    model.fit(x, y, epochs=2, batch_size=64, verbose=0)


def _assign(variable, values: np.ndarray) -> None:
    variable.assign(np.asarray(values, dtype=variable.dtype).reshape(variable.shape))


def heterogenize(model, seed: int) -> None:
    """Random integer widths for every input quantizer (i, f) and kernel quantizer (b, i)."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if getattr(layer, 'enable_iq', False) and hasattr(layer, 'iq'):
            wrappers = list(layer.iq) if hasattr(layer.iq, 'quantizers') else [layer.iq]
            for wrapper in wrappers:
                quantizer = wrapper.quantizer
                shape = quantizer._i.shape
                _assign(quantizer._i, rng.integers(0, 3, shape))
                if hasattr(quantizer, '_f'):
                    _assign(quantizer._f, rng.integers(1, 5, shape))
                else:
                    _assign(quantizer._b, rng.integers(2, 7, shape))
        if hasattr(layer, 'kq'):
            quantizer = layer.kq.quantizer
            _assign(quantizer._b, rng.integers(0, 6, quantizer._b.shape))
            _assign(quantizer._i, rng.integers(-1, 2, quantizer._i.shape))


def dense_model(seed: int = 1):
    """8 -> QDense(12, relu) -> QDense(6, relu) -> QDense(4): kif datalane (RND, WRAP), kbi weights."""
    import keras
    from hgq.layers import QDense

    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((DENSE_FEATURES,)),
            QDense(12, activation='relu'),
            QDense(6, activation='relu'),
            QDense(4),
        ]
    )
    x = np.random.default_rng(seed).uniform(-4, 4, (512, DENSE_FEATURES)).astype(np.float32)
    _train(model, x, 4, seed)
    heterogenize(model, seed)
    return model


def conv_model(seed: int = 2):
    """(6, 6, 2) -> QConv2D(3, 3x3, relu) -> QMaxPooling2D(2) -> Flatten -> QDense(3), with kbi
    activation quantizers that saturate (SAT) and truncate (TRN)."""
    import keras
    from hgq.config import QuantizerConfig
    from hgq.layers import QConv2D, QDense, QMaxPooling2D

    keras.utils.set_random_seed(seed)

    def saturating():
        return QuantizerConfig('kbi', 'datalane', round_mode='TRN', overflow_mode='SAT', b0=5, i0=1)

    model = keras.Sequential(
        [
            keras.Input(CONV_SHAPE),
            QConv2D(3, 3, activation='relu', iq_conf=saturating()),
            QMaxPooling2D(2, iq_conf=saturating()),
            keras.layers.Flatten(),
            QDense(3, iq_conf=saturating()),
        ]
    )
    x = np.random.default_rng(seed).uniform(-3, 3, (512, *CONV_SHAPE)).astype(np.float32)
    _train(model, x, 3, seed)
    heterogenize(model, seed)
    return model


def inputs(shape: tuple[int, ...], count: int, seed: int, reach: float = 6.0) -> np.ndarray:
    """float32 inputs over a range wider than the quantizers', so WRAP and SAT are exercised."""
    return np.random.default_rng(seed).uniform(-reach, reach, (count, *shape)).astype(np.float32)
