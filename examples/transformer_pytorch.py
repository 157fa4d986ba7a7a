"""A small PyTorch transformer encoder block, trained for a few seconds offline and converted to firmware.

    .venv/bin/python examples/transformer_pytorch.py [--output-dir DIR] [--backend Vitis|oneAPI|Catapult]

The task is examples/transformer_keras.py's: 6 tokens of a vocabulary of 6, the class says whether
token 1 or token 2 occurs more often, or both equally. The block: nn.Embedding ->
nn.MultiheadAttention (2 heads, batch_first) -> add & nn.LayerNorm -> MLP (Linear, ReLU, Linear) ->
add & nn.LayerNorm -> mean over the tokens (`x.transpose(1, 2).mean(dim=2)`) -> Linear.

Prints the accuracy of float PyTorch and of the firmware, how often they agree, the largest difference
of the logits, whether predict() equals the bit-exact emulator and the estimated latency. No network
access; about 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np
import torch

import hls4ml
from hls4ml.model.interpreter import interpret

SEED = 7
TOKENS, VOCABULARY, WIDTH = 6, 6, 8
PRECISION = 'fixed<18,8>'


class Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCABULARY, WIDTH)
        self.attention = torch.nn.MultiheadAttention(WIDTH, 2, batch_first=True)
        self.norm1, self.norm2 = torch.nn.LayerNorm(WIDTH), torch.nn.LayerNorm(WIDTH)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(WIDTH, 16), torch.nn.ReLU(), torch.nn.Linear(16, WIDTH))
        self.head = torch.nn.Linear(WIDTH, 3)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embedding(tokens)
        attended, _ = self.attention(x, x, x, need_weights=False)
        x = self.norm1(x + attended)
        x = self.norm2(x + self.mlp(x))
        # the mean over the tokens as a global average pool over the last axis (x.mean(dim=1) is refused)
        return self.head(x.transpose(1, 2).mean(dim=2))


def token_data(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Sequences of token ids; class 0: more 1s than 2s, 1: more 2s, 2: as many."""
    tokens = np.random.default_rng(SEED).integers(0, VOCABULARY, (count, TOKENS))
    ones, twos = (tokens == 1).sum(axis=1), (tokens == 2).sum(axis=1)
    return tokens, np.select([ones > twos, twos > ones], [0, 1], 2)


def train(model: Encoder, x: np.ndarray, y: np.ndarray, epochs: int) -> None:
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    inputs, targets = torch.from_numpy(x).long(), torch.from_numpy(y).long()
    generator = torch.Generator().manual_seed(SEED)
    for _ in range(epochs):
        for batch in torch.randperm(len(inputs), generator=generator).split(64):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(inputs[batch]), targets[batch]).backward()
            optimizer.step()


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output-dir', default='transformer-pytorch-prj')
    parser.add_argument('--backend', default='Vitis')
    parser.add_argument('--epochs', type=int, default=30)
    args = parser.parse_args(argv)

    torch.manual_seed(SEED)
    tokens, labels = token_data(1200)
    model = Encoder()
    train(model, tokens[:900], labels[:900], args.epochs)
    model.eval()
    x, y = tokens[900:], labels[900:]
    with torch.no_grad():
        float_logits = model(torch.from_numpy(x).long()).numpy()

    config = hls4ml.utils.config_from_pytorch_model(
        model, input_shape=(TOKENS,), granularity='name', default_precision=PRECISION
    )
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the 'auto' types of the chained products are capped at 'maximum'
        hls_model = hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=args.output_dir, backend=args.backend
        )
    hls_model.compile()
    logits = np.asarray(hls_model.predict(x)).reshape(float_logits.shape)
    emulated, _ = interpret(hls_model, x)
    results = {
        'float accuracy': float((float_logits.argmax(1) == y).mean()),
        'firmware accuracy': float((logits.argmax(1) == y).mean()),
        'same class as float': float((logits.argmax(1) == float_logits.argmax(1)).mean()),
        'largest logit difference': float(np.abs(logits - float_logits).max()),
        'predict() = emulator': float(np.array_equal(logits.reshape(len(x), -1), emulated[0].to_double())),
    }
    print(f'PyTorch encoder, {args.backend} at {PRECISION}, {len(x)} test sequences:')
    for key, value in results.items():
        print(f'  {key:26s} {value:.4f}')
    print(f'  estimated latency          {hls_model.estimate().latency_cycles} cycles')
    return results


if __name__ == '__main__':
    main(sys.argv[1:])
