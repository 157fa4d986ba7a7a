"""A ReSOM of three maps on scikit-learn's digits cut into three column bands, converted to firmware.

    .venv/bin/python examples/resom_three_modalities.py [--output-dir DIR] [--backend Vitis|oneAPI] [--seeds N]

Each 8x8 image is cut into three modalities: columns 0-2 (24 pixels), 3-4 (16) and 5-7 (24). Per seed:

1. the images are shuffled and split: 1200 for training, the other 597 for testing, never seen before;
2. three MiniSoms (6x6), one per band, learn from the unlabelled training bands;
3. one Hebbian matrix per pair of maps (`hebbian_laterals`, still unlabelled, training bands only);
4. every map's units are labelled from the first 300 training images (MiniSom's majority rule), or,
   in the 'divergence' rows, only map 0's units, the others through the matrices;
5. on the test split: each map alone (its best unit's label), the three two-map ReSOMs, and the
   three-map ReSOM (docs/resom.md: each map's lateral input sums the other two maps' through their
   matrices), in float (`hls4ml.nn.resom_maps_core`) and as compiled firmware (`convert_from_resom`
   with a list of MiniSoms, fixed<16,6> inputs, every internal type inferred exact).

Prints the mean and spread (standard deviation) over the seeds of every accuracy, and how often firmware
and float agree. No network access; about 40 s on 2 cores for three seeds.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np
from minisom import MiniSom
from sklearn.datasets import load_digits

import hls4ml
from hls4ml.converters.resom import hebbian_laterals
from hls4ml.converters.som import minisom_unit_labels
from hls4ml.nn.resom_maps_core import make_settings, resom_maps_forward

BANDS = ((0, 3), (3, 5), (5, 8))  # image columns of each modality
GRID = (6, 6)
BETA = 0.25  # activity width, in units of the Euclidean distance of [0, 1] pixels; fixed a priori
TRAIN, LABELLED = 1200, 300


def bands(seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The three modalities in [0, 1] and the classes, shuffled by `seed`."""
    digits = load_digits()
    order = np.random.default_rng(seed).permutation(len(digits.target))
    images = (digits.data.reshape(-1, 8, 8) / 16.0)[order]
    return [images[:, :, start:stop].reshape(len(order), -1) for start, stop in BANDS], digits.target[order]


def codebook(som: MiniSom) -> np.ndarray:
    return som.get_weights().reshape(GRID[0] * GRID[1], -1)


def resom_accuracy(maps: list[int], parts: dict, labels: list, test: list[np.ndarray], truth: np.ndarray) -> float:
    """Float accuracy of the ReSOM of the maps `maps` (their codebooks, pair matrices and labels)."""
    matrices = {
        (a, b): parts['laterals'][(maps[a], maps[b])] for a in range(len(maps)) for b in range(a + 1, len(maps))
    }
    settings = make_settings([GRID] * len(maps), betas=BETA, output='label')
    every = np.concatenate([labels[m] for m in maps])
    books = [parts['codebooks'][m] for m in maps]
    predicted = resom_maps_forward([test[m] for m in maps], books, matrices, every, settings).reshape(-1)
    return float((predicted == truth).mean())


def one_seed(seed: int, args: argparse.Namespace) -> dict[str, float]:
    data, classes = bands(seed)
    train, test, truth = [d[:TRAIN] for d in data], [d[TRAIN:] for d in data], classes[TRAIN:]
    soms = []
    for index, band in enumerate(train):
        som = MiniSom(*GRID, band.shape[1], sigma=1.2, learning_rate=0.5, random_seed=100 * seed + index)
        som.train(band, 2000, random_order=True)  # unlabelled
        soms.append(som)
    parts = {'codebooks': [codebook(som) for som in soms], 'laterals': hebbian_laterals(soms, train, betas=BETA)}
    labels = [
        minisom_unit_labels(som, band[:LABELLED], classes[:LABELLED]) for som, band in zip(soms, train, strict=True)
    ]
    results = {}
    for index, som in enumerate(soms):
        winners = [np.ravel_multi_index(som.winner(sample), GRID) for sample in test[index]]
        results[f'map {index} alone'] = float((labels[index][winners] == truth).mean())
    for pair in ((0, 1), (0, 2), (1, 2)):
        results[f'ReSOM maps {pair[0]}+{pair[1]}'] = resom_accuracy(list(pair), parts, labels, test, truth)
    results['ReSOM 3 maps, float'] = resom_accuracy([0, 1, 2], parts, labels, test, truth)
    diverged = hls4ml.converters.resom.divergent_map_labels(parts['laterals'], [labels[0], None, None])
    results['ReSOM 3 maps, divergence'] = resom_accuracy([0, 1, 2], parts, diverged, test, truth)
    results.update(firmware(soms, parts, labels, test, truth, args, seed))
    return results


def firmware(
    soms: list[MiniSom],
    parts: dict,
    labels: list[np.ndarray],
    test: list[np.ndarray],
    truth: np.ndarray,
    args: argparse.Namespace,
    seed: int,
) -> dict[str, float]:
    """The three-map ReSOM compiled: its accuracy and its agreement with the float model."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = hls4ml.converters.convert_from_resom(
            soms, parts['laterals'], output_dir=f'{args.output_dir}/seed{seed}', backend=args.backend,
            labels=labels, betas=BETA, output='label', io_type='io_parallel',
        )  # fmt: skip
        model.compile()
    predicted = np.asarray(model.predict(test)).reshape(-1)
    settings = make_settings([GRID] * 3, betas=BETA, output='label')
    floating = resom_maps_forward(test, parts['codebooks'], parts['laterals'], np.concatenate(labels), settings)
    return {
        'ReSOM 3 maps, firmware': float((predicted == truth).mean()),
        'firmware = float': float((predicted == floating.reshape(-1)).mean()),
    }


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='resom-three-modalities-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--seeds', type=int, default=3)
    args = parser.parse_args(argv)
    runs = [one_seed(seed, args) for seed in range(args.seeds)]
    summary = {
        name: (float(np.mean([r[name] for r in runs])), float(np.std([r[name] for r in runs]))) for name in runs[0]
    }
    print(
        f'ReSOM on digits cut into 3 column bands, {GRID[0]}x{GRID[1]} MiniSoms, beta {BETA}, {LABELLED} labelled '
        f'training images, {TRAIN} training / {len(bands(0)[1]) - TRAIN} test images, {args.seeds} seeds '
        f'({args.backend} firmware at fixed<16,6>):'
    )
    for name, (mean, spread) in summary.items():
        print(f'  {name:26s} {mean:.4f} +- {spread:.4f}')
    return summary


if __name__ == '__main__':
    main(sys.argv[1:])
