"""A small mixture-of-experts block with a top-2 router, trained in PyTorch on scikit-learn's digits and
converted to firmware.

    .venv/bin/python examples/moe_digits.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult]

The block: `hls4ml.nn.torch_moe.TopKRouter` (a gate Linear, softmax, top-2, renormalised) chooses 2
of 4 experts for each image; each expert is a small MLP with 10 outputs; the output is the sum of the
experts' outputs weighted by their gates (0 for the experts not chosen). On chip all four experts
run in parallel and the router's gates select, which is how a small MoE maps to an FPGA.

The combine step uses only layers every frontend has: the 4 gates are spread to 4 x 10 positions by
a fixed Linear of zeros and ones, multiplied with the concatenated expert outputs, and summed back
to 10 by another fixed Linear of zeros and ones. Both are exact in fixed point.

Honest split, several seeds: for each seed the digits are split 70/30 (stratified) and the block is
trained from that seed on the 70 % only. Prints the mean and the standard deviation over the seeds of the
float PyTorch accuracy on the 30 %, of the fixed-point one (the bit-exact emulator; the g++ firmware is
compiled for the first seed and must equal it), and how often the fixed-point router picks the same two
experts as PyTorch's. No network access; about 40 s on 2 cores.
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
from hls4ml.model.interpreter import interpret
from hls4ml.nn.torch_moe import TopKRouter

SEEDS = 3
EXPERTS, K, CLASSES, HIDDEN = 4, 2, 10, 16


class MoEBlock(torch.nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.router = TopKRouter(features, EXPERTS, k=K, renormalize=True)
        self.experts = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(features, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))
            for _ in range(EXPERTS)
        )
        # Fixed 0/1 maps: gate e to the 10 positions of expert e, and the 4 x 10 products back to 10.
        self.spread = torch.nn.Linear(EXPERTS, EXPERTS * CLASSES, bias=False)
        self.combine = torch.nn.Linear(EXPERTS * CLASSES, CLASSES, bias=False)
        with torch.no_grad():
            self.spread.weight.copy_(torch.kron(torch.eye(EXPERTS), torch.ones(CLASSES, 1)))
            self.combine.weight.copy_(torch.kron(torch.ones(1, EXPERTS), torch.eye(CLASSES)))
        for fixed in (self.spread, self.combine):
            fixed.weight.requires_grad_(False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gates = self.router(x)
        outputs = torch.cat([expert(x) for expert in self.experts], dim=1)
        return self.combine(self.spread(gates) * outputs)


def load(seed: int) -> tuple[np.ndarray, ...]:
    """x_train, x_test, y_train, y_test: a stratified 70/30 split drawn by `seed`."""
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    return tuple(train_test_split(x, digits.target, test_size=0.3, random_state=seed, stratify=digits.target))


def train(block: MoEBlock, x: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> None:
    optimizer = torch.optim.Adam([p for p in block.parameters() if p.requires_grad], lr=0.01)
    inputs, targets = torch.from_numpy(x), torch.from_numpy(y).long()
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in torch.randperm(len(inputs), generator=generator).split(64):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(block(inputs[batch]), targets[batch])
            loss.backward()
            optimizer.step()


def chosen_experts(gates: np.ndarray) -> np.ndarray:
    """The set of experts with a non-zero gate, per sample, as a sorted (n, K) array."""
    return np.sort(np.argsort(-np.abs(gates), axis=1, kind='stable')[:, :K], axis=1)


def evaluate(seed: int, args: argparse.Namespace) -> tuple[dict[str, float], hls4ml.model.ModelGraph]:
    """Train on this seed's training split; the float and fixed-point (emulator) results on its test split."""
    torch.manual_seed(seed)
    x_train, x_test, y_train, y_test = load(seed)
    block = MoEBlock(x_train.shape[1])
    train(block, x_train, y_train, args.epochs, seed)
    block.eval()
    with torch.no_grad():
        float_scores = block(torch.from_numpy(x_test)).numpy()
        float_gates = block.router(torch.from_numpy(x_test)).numpy()
    config = hls4ml.utils.config_from_pytorch_model(
        block, input_shape=(x_train.shape[1],), granularity='name', default_precision='ap_fixed<18,8>'
    )
    config['LayerName']['router']['TableSize'] = 4096  # finer exp / reciprocal tables for the gates
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            block, hls_config=config, output_dir=args.output_dir, backend=args.backend, io_type='io_parallel'
        )
    outputs, layers = interpret(hls_model, x_test)
    scores, gates = outputs[0].value, layers['router'].value
    results = {
        'float accuracy': float((float_scores.argmax(1) == y_test).mean()),
        'firmware accuracy': float((scores.argmax(1) == y_test).mean()),
        'same class as float': float((scores.argmax(1) == float_scores.argmax(1)).mean()),
        'same two experts': float((chosen_experts(gates) == chosen_experts(float_gates)).all(axis=1).mean()),
        'largest gate difference': float(np.abs(gates - float_gates).max()),
    }
    if seed == 0:  # predict() returns float32: the emulator's values as float32, bit for bit
        hls_model.compile()
        firmware = np.asarray(hls_model.predict(x_test)).reshape(scores.shape)
        results['predict() = emulator'] = float(np.all(firmware == scores.astype(np.float32), axis=1).mean())
    return results, hls_model


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='moe-digits-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=12)
    parser.add_argument('--seeds', type=int, default=SEEDS)
    args = parser.parse_args(argv)

    runs, models = zip(*(evaluate(seed, args) for seed in range(args.seeds)), strict=True)
    print(
        f'MoE block, {EXPERTS} experts, top-{K} router, {args.backend} at ap_fixed<18,8>, 30 % test split, '
        f'{args.seeds} seeds (mean +- standard deviation):'
    )
    results: dict[str, float] = {}
    for name in runs[0]:
        values = [run[name] for run in runs if name in run]
        results[name], results[f'{name} (std)'] = float(np.mean(values)), float(np.std(values))
        print(f'  {name:24s} {results[name]:.4f} +- {results[name + " (std)"]:.4f}')
    print(f'  estimated latency        {models[0].estimate().latency_cycles} cycles')
    return results


if __name__ == '__main__':
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    main(sys.argv[1:])
