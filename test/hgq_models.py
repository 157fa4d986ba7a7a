"""Tiny HGQ2 models for the tests: built with a fixed seed, trained a few steps, then given heterogeneous
widths (per-element activation widths, per-weight kernel widths with some zero-bit, i.e. pruned, weights),
so every test sees non-trivial quantizers. Kept in the exact regime of float32 (sums under 24 bits).

Training is a short eager loop (`TRAIN_STEPS` Adam steps on a fixed batch) rather than `fit()`, whose
graph tracing cost about ten times more; the models are built once per process (`functools.cache`),
so the unit and csim test files share them. Tests must not modify a model they are given."""

from __future__ import annotations

import functools

import numpy as np

DENSE_FEATURES = 8
CONV_SHAPE = (6, 6, 2)


TRAIN_STEPS = 4
BATCH = 128


def _train(model, x: np.ndarray, outputs: int, seed: int) -> None:
    """A few Adam steps on random regression targets, HGQ2's resource loss included: the weights and the
    trainable quantizer widths move away from their initial values."""
    import keras
    import tensorflow as tf

    y = np.random.default_rng(seed).normal(size=(len(x), outputs)).astype(np.float32)
    optimizer = keras.optimizers.Adam(0.01)
    for step in range(TRAIN_STEPS):
        rows = slice(step * BATCH % len(x), step * BATCH % len(x) + BATCH)
        with tf.GradientTape() as tape:
            predicted = keras.ops.reshape(model(x[rows], training=True), (len(y[rows]), -1))
            loss = keras.ops.mean((predicted - y[rows]) ** 2) + sum(model.losses)
        optimizer.apply(tape.gradient(loss, model.trainable_variables), model.trainable_variables)


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


@functools.cache
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


@functools.cache
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


@functools.cache
def table_model(seed: int = 3):
    """8 -> QDense(8) -> QBatchNormalization -> QUnaryFunctionLUT(tanh) -> QDense(5) -> QSoftmax: a standalone
    batch normalization, a table activation (heterogeneous input quantizer, uniform output quantizer) and
    HGQ2's table softmax (its exp and inverse tables)."""
    import keras
    from hgq.layers import QBatchNormalization, QDense, QSoftmax, QUnaryFunctionLUT

    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((DENSE_FEATURES,)),
            QDense(8),
            QBatchNormalization(),
            QUnaryFunctionLUT('tanh'),
            QDense(5),
            QSoftmax(),
        ]
    )
    x = np.random.default_rng(seed).uniform(-4, 4, (512, DENSE_FEATURES)).astype(np.float32)
    _train(model, x, 5, seed)
    heterogenize(model, seed)
    return model


def hgq_outputs(model, x: np.ndarray, chunk: int = 25_000) -> np.ndarray:
    """HGQ2's own inference `model(x, training=False)`, in chunks, flattened per sample."""
    parts = [np.asarray(model(x[start : start + chunk], training=False)) for start in range(0, len(x), chunk)]
    return np.concatenate(parts).reshape(len(x), -1)


def inputs(shape: tuple[int, ...], count: int, seed: int, reach: float = 6.0) -> np.ndarray:
    """float32 inputs over a range wider than the quantizers', so WRAP and SAT are exercised."""
    return np.random.default_rng(seed).uniform(-reach, reach, (count, *shape)).astype(np.float32)


def convert(model, tmp_path, **kwargs):
    """`convert_from_keras_model` into tmp_path/prj (hls4ml imported here: this module is imported early)."""
    import hls4ml

    return hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), **kwargs)


def assert_emulator_exact(model, hls_model, shape: tuple[int, ...], count: int = 400) -> None:
    """The emulator equals HGQ2's own inference bit for bit on `count` inputs."""
    from hls4ml.model.interpreter import interpret

    x = inputs(shape, count, seed=5, reach=4.0)
    expected = hgq_outputs(model, x)
    (emulated,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(emulated.value.reshape(count, -1), expected)
