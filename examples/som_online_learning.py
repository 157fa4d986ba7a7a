"""On-chip learning: a SOM trained by its own firmware (C-simulation), next to MiniSom's float training.

    .venv/bin/python examples/som_online_learning.py [--output-dir DIR] [--seeds 3] [--epochs 4]

For each seed, scikit-learn's digits (64 pixels in [0, 1]) are split into a training set (70 %) and a
held-out test set (30 %) that neither training nor labelling sees. A 6x6 MiniSom is initialised from
training samples and converted *before* any training; then

1. the firmware learns: `hls_model.learner('som').fit(...)` runs the project's Kohonen top function
   (`myproject_learn_som`, a step per sample, the codebook an in-out memory) on the compiled
   C-simulation, with MiniSom's schedule (asymptotic decay of rate and sigma) computed on the host;
2. MiniSom trains a copy of the same initial map in float64 on the same samples in the same order;
3. each map's units are labelled by majority vote on the training set; the firmware's labels go in with
   `learner.apply(labels=...)` and the next `predict()` classifies the test set with the learned map.

Prints, as mean and spread over the seeds (not the best seed), the test quantization error of both
maps, how often their BMUs agree on the test set, both test accuracies and the learning speed.
No network access; a few seconds on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from minisom import MiniSom
from sklearn.datasets import load_digits

import hls4ml
from hls4ml.converters.som import minisom_unit_labels

GRID = (6, 6)
RATE, SIGMA = 0.5, 3.0


def split(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train x, train classes, test x, test classes): a seeded 70 / 30 split of the digits."""
    digits = load_digits()
    order = np.random.default_rng(seed).permutation(len(digits.target))
    x, classes = digits.data[order] / 16.0, digits.target[order]
    cut = int(0.7 * len(x))
    return x[:cut], classes[:cut], x[cut:], classes[cut:]


def with_weights(codebook: np.ndarray) -> MiniSom:
    som = MiniSom(*GRID, codebook.shape[1])
    som._weights = codebook.reshape(*GRID, -1).copy()
    return som


def one_seed(seed: int, epochs: int, output_dir: str) -> dict[str, float]:
    train, train_classes, test, test_classes = split(seed)
    som = MiniSom(*GRID, 64, sigma=SIGMA, learning_rate=RATE, random_seed=seed)
    som.random_weights_init(train)
    hls_model = hls4ml.converters.convert_from_minisom(
        som,
        output_dir=os.path.join(output_dir, f'seed{seed}'),
        backend='Vitis',
        output='label',
        labels=np.zeros(GRID[0] * GRID[1]),
    )
    hls_model.compile()
    learner = hls_model.learner('som')
    start = time.perf_counter()
    learner.fit(train, epochs=epochs, rate=RATE, sigma=SIGMA)  # MiniSom's schedule, samples in order
    seconds = time.perf_counter() - start
    som.train(train, epochs * len(train))  # float64, the same samples in the same order
    learned = with_weights(learner.codebook)
    learner.apply(labels=minisom_unit_labels(learned, train, train_classes))
    float_labels = minisom_unit_labels(som, train, train_classes)
    float_classes = [float_labels[np.ravel_multi_index(som.winner(x), GRID)] for x in test]
    return {
        'quantization error, firmware-learned': learned.quantization_error(test),
        'quantization error, MiniSom float': som.quantization_error(test),
        'same BMU on test': float(np.mean([learned.winner(x) == som.winner(x) for x in test])),
        'test accuracy, firmware-learned': float(np.mean(hls_model.predict(test).ravel() == test_classes)),
        'test accuracy, MiniSom float': float(np.mean(np.array(float_classes) == test_classes)),
        'learning steps per second': epochs * len(train) / seconds,
    }


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='som_online_learning_prj')
    parser.add_argument('--seeds', type=int, default=3)
    parser.add_argument('--epochs', type=int, default=4)
    args = parser.parse_args(argv)
    runs = [one_seed(seed, args.epochs, args.output_dir) for seed in range(args.seeds)]
    results = {
        key: (float(np.mean([run[key] for run in runs])), float(np.std([run[key] for run in runs]))) for key in runs[0]
    }
    for key, (mean, spread) in results.items():
        print(f'{key:38s} {mean:10.4f} +- {spread:.4f}  ({args.seeds} seeds)')
    return results


if __name__ == '__main__':
    sys.exit(main() and 0)
