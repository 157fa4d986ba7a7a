"""A mixture of 4 FFN experts, top-2 per image, whose firmware computes only the 2 routed experts:
`hls4ml.nn.torch_experts.SparseMoE` trained in PyTorch on scikit-learn's digits and converted.

    .venv/bin/python examples/sparse_moe_digits.py [--output-dir DIR] [--seeds 3] [--epochs 20]

The model: SparseMoE(64 -> 10, 4 experts of Linear(64, 16) -> ReLU -> Linear(16, 10), k = 2,
renormalised gates). It converts into a gate Dense and one MoE layer; per image the firmware runs the
router, then 2 banks of expert multipliers whose weights are selected from the 4 experts' sets
(docs/moe.md, "Conditional experts"), where `examples/moe_digits.py` computes all 4 experts.

Split: 70 % train, 30 % test (stratified), the test images used only for the figures printed. Each
seed draws its own split, initialisation and batches; the figures are the mean and the spread (min to
max) over the seeds. Prints float and firmware accuracy, how often the firmware routes an image to
the same two experts as PyTorch, and the MoE layer's estimated multipliers against always computing
every expert, at ReuseFactor 16 with the Resource strategy (the bits do not depend on it). No network
access; about a minute per seed on 2 cores (the g++ build of the 4 x 1,184 expert weights dominates).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import hls4ml
from hls4ml.model.graph import ModelGraph
from hls4ml.nn.torch_experts import SparseMoE

EXPERTS, K, CLASSES, HIDDEN = 4, 2, 10, 16
PRECISION = 'ap_fixed<18,8>'


def load(seed: int) -> tuple[np.ndarray, ...]:
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    return tuple(train_test_split(x, digits.target, test_size=0.3, random_state=seed, stratify=digits.target))


def train(model: SparseMoE, x: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> None:
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(y).long()
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in torch.randperm(len(inputs), generator=generator).split(64):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(inputs[batch]), targets[batch]).backward()
            optimizer.step()


def routed(logits: np.ndarray) -> np.ndarray:
    """The two experts of each image, as a sorted pair (ties to the lower index, as the firmware)."""
    return np.sort(np.argsort(-logits, axis=1, kind='stable')[:, :K], axis=1)


def run_seed(seed: int, epochs: int, output_dir: str, backend: str) -> tuple[dict[str, float], ModelGraph]:
    torch.manual_seed(seed)
    x_train, x_test, y_train, y_test = load(seed)
    model = SparseMoE(x_train.shape[1], CLASSES, EXPERTS, k=K, renormalize=True, hidden_features=HIDDEN)
    train(model, x_train, y_train, epochs, seed)
    model.eval()
    with torch.no_grad():
        inputs = torch.from_numpy(x_test)
        float_scores, float_logits = model(inputs).numpy(), model.gate(inputs).numpy()
    config = hls4ml.utils.config_from_pytorch_model(
        model, input_shape=(x_train.shape[1],), granularity='name', default_precision=PRECISION
    )
    for settings in (config['Model'], *config['LayerName'].values()):
        settings.update(ReuseFactor=16, Strategy='Resource')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=f'{output_dir}/seed{seed}', backend=backend, io_type='io_parallel'
        )
    hls_model.compile()
    scores, layers = hls_model.trace(x_test)
    logits = layers[next(name for name in layers if name.endswith('gate'))]
    return {
        'float accuracy': float((float_scores.argmax(1) == y_test).mean()),
        'firmware accuracy': float((np.asarray(scores).argmax(1) == y_test).mean()),
        'same class as float': float((np.asarray(scores).argmax(1) == float_scores.argmax(1)).mean()),
        'same two experts': float((routed(logits) == routed(float_logits)).all(axis=1).mean()),
    }, hls_model


def expert_multipliers(hls_model: ModelGraph) -> str:
    """The MoE layer's estimator note: its expert multipliers against every expert computed."""
    (moe,) = [layer for layer in hls_model.estimate().layers if layer.kind == 'MoE']
    return f'DSP {moe.resources["DSP"]}; {moe.notes[0]}' if moe.notes else f'DSP {moe.resources["DSP"]}'


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='sparse-moe-digits-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=20)
    parser.add_argument('--seeds', type=int, default=3)
    args = parser.parse_args(argv)
    runs = []
    for seed in range(args.seeds):
        figures, hls_model = run_seed(seed, args.epochs, args.output_dir, args.backend)
        runs.append(figures)
    print(
        f'SparseMoE, {EXPERTS} FFN experts, top-{K}, {args.backend} at {PRECISION}, {args.seeds} seeds (mean, min-max):'
    )
    results = {}
    for name in runs[0]:
        values = np.array([run[name] for run in runs])
        results[name] = float(values.mean())
        print(f'  {name:20s} {values.mean():.4f}  ({values.min():.4f}-{values.max():.4f})')
    print(f'  MoE layer estimate   {expert_multipliers(hls_model)}')
    return results


if __name__ == '__main__':
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    main(sys.argv[1:])
