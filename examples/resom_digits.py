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

The PyTorch module is the float model; `convert_from_pytorch_model` turns it into firmware
(exact distances, the exp table of the activities, the exact normalising division), compiled for a
bit-accurate C-simulation. Prints the float and fixed-point accuracies of each map alone and of the
ReSOM, and how often firmware and float agree. No network access; about 20 s on 2 cores.
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
from hls4ml.nn.torch_resom import ReSOM

SEED = 3
GRID = (6, 6)
BETA = 0.125
LABELLED = 300  # labelled samples of the left modality; everything else learns without labels


def halves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left, right, classes): the two 32-pixel modalities in [0, 1], shuffled once."""
    digits = load_digits()
    order = np.random.default_rng(SEED).permutation(len(digits.target))
    images = (digits.data.reshape(-1, 8, 8) / 16.0)[order]
    return images[:, :, :4].reshape(-1, 32), images[:, :, 4:].reshape(-1, 32), digits.target[order]


def alone(som: torch.nn.Module, data: np.ndarray) -> np.ndarray:
    """The label of one map's best-matching unit, without the association."""
    codebook = som.codebook.double().numpy()
    winners = ((data[:, None, :] - codebook[None]) ** 2).sum(axis=2).argmin(axis=1)
    return som.labels.numpy()[winners]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='resom-digits-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=5)
    args = parser.parse_args(argv)

    left, right, classes = halves()
    train, test = slice(0, 1200), slice(1200, None)
    resom = ReSOM(32, 32, GRID, GRID, beta_x=BETA, beta_y=BETA, output='label')
    resom.fit_maps(left[train], right[train], epochs=args.epochs, seed=SEED)  # unlabelled pairs
    resom.fit_lateral(left[train], right[train])  # unlabelled pairs
    resom.label_units(labelled_x=(left[:LABELLED], classes[:LABELLED]))  # the right map by divergence
    resom.eval()

    with torch.no_grad():
        floating = resom(torch.tensor(left[test]), torch.tensor(right[test])).numpy().reshape(-1)

    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': [(32,), (32,)]}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            resom, hls_config=config, output_dir=args.output_dir, backend=args.backend, io_type='io_parallel'
        )
    hls_model.compile()
    firmware = np.asarray(hls_model.predict([left[test], right[test]])).reshape(-1)

    truth = classes[test]
    results = {
        'left map alone': float((alone(resom.som_x, left[test]) == truth).mean()),
        'right map alone': float((alone(resom.som_y, right[test]) == truth).mean()),
        'ReSOM, float': float((floating == truth).mean()),
        'ReSOM, firmware': float((firmware == truth).mean()),
        'firmware = float': float((firmware == floating).mean()),
    }
    print(
        f'ReSOM on the digits split in two halves, {GRID[0]}x{GRID[1]} maps, {LABELLED} labels (left half only), '
        f'{args.backend} at fixed<16,6>, {len(truth)} test pairs:'
    )
    for name, value in results.items():
        print(f'  {name:18s} {value:.4f}')
    return results


if __name__ == '__main__':
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    main(sys.argv[1:])
