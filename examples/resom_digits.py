"""A ReSOM classifier on scikit-learn's digits split into two modalities, converted to firmware.

    .venv/bin/python examples/resom_digits.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult]

The two modalities are the left and the right halves of each 8x8 image (32 pixels each). Like two
sensors that see the same object, each half alone is ambiguous; ReSOM (spec: shared/specs/seed-layers.md
A.9, decisions in docs/resom.md) associates them:

1. Two self-organizing maps, one per modality, learn from unlabelled paired samples with the
   package's seeded Kohonen trainer (`hls4ml.nn.torch_resom.ReSOM.fit_maps`; MiniSom works too,
   `ReSOM.from_minisoms`).
2. A Hebbian lateral matrix links the units of the two maps that are active together
   (`fit_lateral`, still unlabelled).
3. Only the left map's units are labelled, from a few labelled samples; the right map's units take
   their labels through the lateral matrix (divergence), so the right half never sees a label.
4. At inference both maps' activities are exchanged through the lateral matrix and the most active
   unit of either map gives the class.

The PyTorch module is the float model; `convert_from_pytorch_model` turns it into firmware. The one
model-wide precision fixed<16,6> sets the inputs and the codebooks; the distances, activities, lateral
sums and the normalising division keep the exact types their precision rules give them (a Model precision
never reaches them, docs/resom.md). Each map's beta is chosen from the training pairs ('auto').

Honest split, several seeds: for each seed the digits are shuffled, the maps, the lateral matrix and the
labels learn from the first 1200 samples only (300 of them labelled, left half), and the accuracies are
measured on the other 597. Printed: the mean and the standard deviation over the seeds of each map alone,
the float ReSOM and the fixed-point ReSOM (the bit-exact emulator; the g++ firmware is compiled for the
first seed and must equal it on every test pair). No network access; about 40 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np
import torch
from sklearn.datasets import load_digits

import hls4ml
from hls4ml.model.interpreter import interpret
from hls4ml.nn.torch_resom import ReSOM

SEEDS = 5
GRID = (6, 6)
TRAIN = 1200  # maps, lateral matrix and labels learn from these; the rest is the test split
LABELLED = 300  # labelled samples (of the left modality) among the training ones


def halves(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left, right, classes): the two 32-pixel modalities in [0, 1], shuffled by `seed`."""
    digits = load_digits()
    order = np.random.default_rng(seed).permutation(len(digits.target))
    images = (digits.data.reshape(-1, 8, 8) / 16.0)[order]
    return images[:, :, :4].reshape(-1, 32), images[:, :, 4:].reshape(-1, 32), digits.target[order]


def alone(som: torch.nn.Module, data: np.ndarray) -> np.ndarray:
    """The label of one map's best-matching unit, without the association."""
    codebook = som.codebook.double().numpy()
    winners = ((data[:, None, :] - codebook[None]) ** 2).sum(axis=2).argmin(axis=1)
    return som.labels.numpy()[winners]


def trained(seed: int, epochs: int) -> tuple[ReSOM, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """A ReSOM that learned from the training split of this seed only; (left, right, classes) of the test split."""
    left, right, classes = halves(seed)
    train = slice(0, TRAIN)
    resom = ReSOM(32, 32, GRID, GRID, output='label')  # beta_x, beta_y 'auto': chosen by fit_lateral
    resom.fit_maps(left[train], right[train], epochs=epochs, seed=seed)  # unlabelled pairs
    resom.fit_lateral(left[train], right[train])  # unlabelled pairs
    resom.label_units(labelled_x=(left[:LABELLED], classes[:LABELLED]))  # the right map by divergence
    test = slice(TRAIN, None)
    return resom.eval(), (left[train], right[train], classes[train]), (left[test], right[test], classes[test])


def evaluate(seed: int, epochs: int, output_dir: str, backend: str, compile_firmware: bool) -> dict[str, float]:
    """The accuracies of one seed on its test split; with `compile_firmware`, predict() against the emulator."""
    resom, _, (left, right, truth) = trained(seed, epochs)
    with torch.no_grad():
        floating = resom(torch.tensor(left), torch.tensor(right)).numpy().reshape(-1)
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': [(32,), (32,)]}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            resom, hls_config=config, output_dir=output_dir, backend=backend, io_type='io_parallel'
        )
    fixed = np.asarray(interpret(hls_model, [left, right])[0][0].value).reshape(-1)
    results = {
        'left map alone': float((alone(resom.som_x, left) == truth).mean()),
        'right map alone': float((alone(resom.som_y, right) == truth).mean()),
        'ReSOM, float': float((floating == truth).mean()),
        'ReSOM, firmware': float((fixed == truth).mean()),
        'firmware = float': float((fixed == floating).mean()),
    }
    if compile_firmware:
        hls_model.compile()
        firmware = np.asarray(hls_model.predict([left, right])).reshape(-1)
        results['predict() = emulator'] = float((firmware == fixed).mean())
    return results


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='resom-digits-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--seeds', type=int, default=SEEDS)
    args = parser.parse_args(argv)

    runs = [evaluate(seed, args.epochs, args.output_dir, args.backend, seed == 0) for seed in range(args.seeds)]
    print(
        f'ReSOM on the digits split in two halves, {GRID[0]}x{GRID[1]} maps, {LABELLED} labels (left half only) '
        f'among {TRAIN} training pairs, {args.backend} at fixed<16,6>, {len(halves(0)[2]) - TRAIN} test pairs, '
        f'{args.seeds} seeds (mean +- standard deviation):'
    )
    results: dict[str, float] = {}
    for name in runs[0]:
        values = [run[name] for run in runs if name in run]
        results[name], results[f'{name} (std)'] = float(np.mean(values)), float(np.std(values))
        print(f'  {name:22s} {results[name]:.4f} +- {results[name + " (std)"]:.4f}')
    return results


if __name__ == '__main__':
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    main(sys.argv[1:])
