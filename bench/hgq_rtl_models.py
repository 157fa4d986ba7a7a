"""HGQ2 versions of the jet-tagging MLP and of a small CNN, for comparing the Verilog backend with da4ml's
own flow (da4ml's Keras converter traces HGQ2 layers only).

    model = make_hgq_model('hgq-mlp')   # 16 -> QDense 64 -> 32 -> 32 (ReLU) -> QDense 5 (logits)
    model = make_hgq_model('hgq-cnn')   # 8x8x1 -> QConv2D(4, 3x3, ReLU) -> QMaxPooling2D(2) -> Flatten -> QDense 5

Both are trained TRAIN_EPOCHS epochs (HGQ2's resource penalty at BETA) on a fixed synthetic
classification set (sklearn's make_classification; images are its 64 features as 8x8) with HGQ2's
default quantizers (trainable per-element widths), seeds fixed: a hardware comparison needs plausible,
not accurate, weights. The output is the logits: HGQ2's QSoftmax is a table softmax that neither flow
is compared on here.

The CNN is 8x8x1 with 4 filters so that, fully unrolled (each of the 36 output pixels has its own adder
graph), Yosys synthesizes it in minutes on this 2-core machine (da4ml's cost: about 18k LUTs); the 16x16
CNN of mlp_bench.py is 345k LUTs by the estimate, out of reach.
"""

from __future__ import annotations

import numpy as np

TRAIN_EPOCHS = 10
BETA = 1e-4  # HGQ2's default is 1e-5; 3e-4 gave no smaller design in 10 epochs
SEED = 1234


def _data(features: int, samples: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_classification

    x, y = make_classification(samples, features, n_informative=min(features, 10), n_classes=5, random_state=SEED)
    return (x * 2).astype(np.float32), y


def make_hgq_model(name: str):
    """The HGQ2 model `name` ('hgq-mlp' or 'hgq-cnn'), built and briefly trained with fixed seeds."""
    import keras
    from hgq.config import LayerConfigScope
    from hgq.layers import QConv2D, QDense, QMaxPooling2D

    keras.utils.set_random_seed(SEED)
    with LayerConfigScope(beta0=BETA):  # HGQ2's resource (EBOPs) penalty: narrower widths, as HGQ2 users train
        model = _layers(name, QConv2D, QDense, QMaxPooling2D)
    x, y = _data(16 if name == 'hgq-mlp' else 64)
    x = x.reshape(-1, *model.input_shape[1:])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=keras.optimizers.Adam(0.003), loss=loss)
    model.fit(x, y, epochs=TRAIN_EPOCHS, batch_size=128, verbose=0)
    return model


def _layers(name: str, QConv2D, QDense, QMaxPooling2D):  # noqa: N803 (HGQ2's classes, imported by the caller)
    import keras

    if name == 'hgq-mlp':
        layers = [keras.Input((16,))] + [QDense(units, activation='relu') for units in (64, 32, 32)] + [QDense(5)]
    elif name == 'hgq-cnn':
        layers = [keras.Input((8, 8, 1)), QConv2D(4, 3, activation='relu'), QMaxPooling2D(2)]
        layers += [keras.layers.Flatten(), QDense(5)]
    else:
        raise ValueError(f"unknown HGQ2 model {name!r}: 'hgq-mlp' or 'hgq-cnn'")
    return keras.Sequential(layers)


def hgq_outputs(model, x: np.ndarray, chunk: int = 25_000) -> np.ndarray:
    """HGQ2's own inference (`model(x, training=False)`), one row per sample."""
    parts = [np.asarray(model(x[start : start + chunk], training=False)) for start in range(0, len(x), chunk)]
    return np.concatenate(parts).reshape(len(x), -1).astype(np.float64)
