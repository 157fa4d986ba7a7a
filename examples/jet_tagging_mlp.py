"""The bundled example, end to end: a jet-tagging-style MLP -> Vitis HLS project -> bit-accurate C-simulation.

    .venv/bin/python examples/jet_tagging_mlp.py [--output-dir DIR]

1. Builds an offline 16-feature, 5-class dataset (scikit-learn's make_classification, fixed seed)
   and trains the classic 16-64-32-32-5 MLP (ReLU, softmax) with Keras for a few epochs.
2. Converts it with the hls4ml 1.x API twice: every layer at ap_fixed<16,6> (granularity='model')
   and with per-layer 'auto' precision inference (granularity='name').
3. Writes the projects, compiles the C-simulation with g++, predicts the test set and prints the
   accuracy table (float Keras vs firmware), compile times (cold and cached) and throughput.
No network access; about 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

import hls4ml  # noqa: E402

SEED = 42
LAYERS = (64, 32, 32)


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x, y = make_classification(
        n_samples=30000,
        n_features=16,
        n_informative=12,
        n_redundant=2,
        n_classes=5,
        n_clusters_per_class=2,
        class_sep=1.5,
        random_state=SEED,
    )
    x = ((x - x.mean(axis=0)) / x.std(axis=0)).astype(np.float32)
    return train_test_split(x, y, test_size=10000, random_state=SEED)


def train_model(x_train: np.ndarray, y_train: np.ndarray, epochs: int = 8) -> keras.Model:
    keras.utils.set_random_seed(SEED)
    layers = [keras.Input((16,))]
    layers += [keras.layers.Dense(units, activation='relu', name=f'fc{index}') for index, units in enumerate(LAYERS, 1)]
    layers += [keras.layers.Dense(5, activation='softmax', name='output')]
    model = keras.Sequential(layers, name='jet_tagging_mlp')
    model.compile(optimizer=keras.optimizers.Adam(3e-3), loss='sparse_categorical_crossentropy', metrics=['accuracy'])
    model.fit(x_train, y_train, epochs=epochs, batch_size=256, verbose=0)
    return model


def convert(model: keras.Model, granularity: str, output_dir: str) -> hls4ml.model.graph.ModelGraph:
    config = hls4ml.utils.config_from_keras_model(model, granularity=granularity, default_precision='ap_fixed<16,6>')
    return hls4ml.converters.convert_from_keras_model(
        model,
        hls_config=config,
        output_dir=output_dir,
        backend='Vitis',
        io_type='io_parallel',
        part='xcu250-figd2104-2L-e',
    )


def evaluate(hls_model, x: np.ndarray, y: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    start = time.perf_counter()
    hls_model.compile()
    cold = time.perf_counter() - start
    start = time.perf_counter()
    hls_model.compile()
    cached = time.perf_counter() - start
    start = time.perf_counter()
    predictions = hls_model.predict(x)
    seconds = time.perf_counter() - start
    return {
        'accuracy': float(np.mean(predictions.argmax(axis=1) == y)),
        'agreement': float(np.mean(predictions.argmax(axis=1) == reference.argmax(axis=1))),
        'max_abs': float(np.abs(predictions - reference).max()),
        'compile': cold,
        'cached': cached,
        'rate': len(x) / seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--output-dir', default='hls4mlprj_jet_mlp', help='where the two projects are written')
    args = parser.parse_args()
    x_train, x_test, y_train, y_test = make_data()
    model = train_model(x_train, y_train)
    reference = model.predict(x_test, verbose=0)
    print(
        f'float Keras model: test accuracy {np.mean(reference.argmax(axis=1) == y_test):.4f} on {len(x_test)} samples'
    )
    print('| config | accuracy | argmax agreement with Keras | max abs diff | compile s (cold / cached) | samples/s |')
    print('|---|---|---|---|---|---|')
    worst_agreement = 1.0
    for granularity in ('model', 'name'):
        hls_model = convert(model, granularity, os.path.join(args.output_dir, granularity))
        result = evaluate(hls_model, x_test, y_test, reference)
        worst_agreement = min(worst_agreement, result['agreement'])
        label = 'ap_fixed<16,6> everywhere' if granularity == 'model' else "per-layer 'auto' precision"
        print(
            f'| {label} | {result["accuracy"]:.4f} | {result["agreement"]:.4f} | {result["max_abs"]:.4f} | '
            f'{result["compile"]:.2f} / {result["cached"]:.3f} | {result["rate"]:,.0f} |'
        )
    print(f'projects written to {args.output_dir}/model and {args.output_dir}/name')
    return 0 if worst_agreement >= 0.99 else 1


if __name__ == '__main__':
    sys.exit(main())
