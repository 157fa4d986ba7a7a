"""An HGQ2 quantization-aware MLP trained on scikit-learn's digits (8x8 images, offline), converted to
firmware and checked bit for bit against HGQ2's own inference.

    .venv/bin/python examples/hgq2_digits.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult] [--epochs N]

HGQ2 learns a width for every input value and every weight (per-element `kif` activation quantizers,
per-weight `kbi` kernel quantizers) under a resource penalty (`beta`), so the trained model has
heterogeneous widths and pruned (zero-bit) weights. The converter turns each input quantizer into a
FixedPointQuantizer layer and each kernel into its exact fixed-point values (docs/quantization.md).

Prints the accuracy of HGQ2 and of the firmware, the number of outputs that differ (0), the pruned
weights and the mean activation width. No network access; about 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

os.environ.setdefault('KERAS_BACKEND', 'tensorflow')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
from hgq.config import LayerConfigScope, QuantizerConfigScope  # noqa: E402
from hgq.layers import QDense  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import hls4ml  # noqa: E402

SEED = 7


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)  # pixels in [0, 1]
    return train_test_split(x, digits.target, test_size=0.3, random_state=SEED)


def build() -> keras.Model:
    """64 -> 24 (relu) -> 10; activation widths start at 6 fraction bits, weights at 6 bits."""
    with QuantizerConfigScope(place='datalane', i0=1, f0=6), QuantizerConfigScope(place='weight', b0=6, i0=1):
        with LayerConfigScope(beta0=1e-7):
            return keras.Sequential([keras.Input((64,)), QDense(24, activation='relu'), QDense(10)])


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--output-dir', default='hgq2_digits_prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=20)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(SEED)
    x_train, x_test, y_train, y_test = data()
    model = build()
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # the model outputs logits
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    model.fit(x_train, y_train, epochs=args.epochs, batch_size=64, verbose=0)
    expected = model.predict(x_test, verbose=0)
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=args.output_dir, backend=args.backend, io_type='io_parallel'
    )
    hls_model.compile()
    predicted = np.asarray(hls_model.predict(x_test)).reshape(expected.shape)
    results = summary(model, hls_model, expected, predicted, y_test)
    for name, value in results.items():
        print(f'{name:>28}: {value:.4g}')
    return results


def summary(model, hls_model, expected: np.ndarray, predicted: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    kernels = [layer.weights['weight'] for layer in hls_model.get_layers() if layer.kind == 'Dense']
    widths = [quantizer_width(layer) for layer in hls_model.get_layers() if layer.kind == 'FixedPointQuantizer']
    return {
        'HGQ2 accuracy': float(np.mean(expected.argmax(axis=1) == labels)),
        'firmware accuracy': float(np.mean(predicted.argmax(axis=1) == labels)),
        'outputs that differ': float(np.sum(predicted != expected)),
        'pruned weights (fraction)': float(np.mean(np.concatenate([k.ravel() for k in kernels]) == 0)),
        'mean activation width (bits)': float(np.mean(np.concatenate(widths))) if widths else 0.0,
    }


def quantizer_width(layer) -> np.ndarray:
    bits = layer.weights['keep_negative'] + layer.weights['integer_bits'] + layer.weights['fraction_bits']
    return np.maximum(bits, 0)


if __name__ == '__main__':
    sys.exit(0 if main()['outputs that differ'] == 0 else 1)
