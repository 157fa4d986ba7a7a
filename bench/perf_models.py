"""The models of the performance benchmark (issue 22), built the same way under any hls4ml.

Each builder returns a Keras 3 model whose weights come from numpy with a fixed seed (uniform, scaled by
1/sqrt(fan-in) so that activations stay within ap_fixed<16,6>), so our tree and the published hls4ml
1.3.0, each in its own venv, convert the very same model. `macs` counts the multiply-accumulates of
one sample (Dense, Conv2D, LSTM, the attention's projections and products), the work the physical
floor of docs/performance.md is computed from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class BenchModel:
    name: str
    kind: str  # 'mlp', 'cnn', 'lstm', 'attention'
    io_type: str
    sizes: tuple[int, ...] = ()  # MLP layer widths, input first
    cnn_filters: tuple[int, ...] = ()  # CNN: filters of each 3x3 conv
    pool_each: bool = False  # a 2x2 max-pool after each conv (else after every second)
    table: bool = True  # in the table (else a scale model)
    sample_share: float = 1.0  # of --samples: the slow peer predicts the big models for minutes otherwise


MODELS = {
    model.name: model
    for model in (
        BenchModel('mlp_16-64-32-32-5', 'mlp', 'io_parallel', sizes=(16, 64, 32, 32, 5)),
        BenchModel('mlp_64-256-256-10', 'mlp', 'io_parallel', sizes=(64, 256, 256, 10), sample_share=0.25),
        BenchModel('mlp_128-512-512-10', 'mlp', 'io_parallel', sizes=(128, 512, 512, 10), sample_share=0.05),
        BenchModel(
            'cnn3_32x32x3_stream', 'cnn', 'io_stream', cnn_filters=(8, 16, 16), pool_each=True, sample_share=0.05
        ),
        BenchModel('mlp_3x512', 'mlp', 'io_parallel', sizes=(512, 512, 512, 512, 10), table=False, sample_share=0.025),
        BenchModel(
            'cnn6_32x32x3_stream',
            'cnn',
            'io_stream',
            cnn_filters=(8, 8, 16, 16, 32, 32),
            table=False,
            sample_share=0.025,
        ),
        BenchModel(
            'cnn6_32x32x3_parallel',
            'cnn',
            'io_parallel',
            cnn_filters=(8, 8, 16, 16, 32, 32),
            table=False,
            sample_share=0.025,
        ),
        BenchModel('lstm_16x8_32', 'lstm', 'io_parallel', table=False, sample_share=0.25),
        BenchModel('attention_8x16', 'attention', 'io_parallel', table=False, sample_share=0.25),
    )
}
CNN_INPUT = (32, 32, 3)
LSTM_SHAPE, LSTM_UNITS = (16, 8), 32
TOKENS, WIDTH = 8, 16


def build(spec: BenchModel) -> Any:
    """The Keras model of `spec` with its seeded weights."""
    import keras

    layers = keras.layers
    if spec.kind == 'mlp':
        stack = [keras.Input(spec.sizes[:1])]
        stack += [layers.Dense(units, activation='relu') for units in spec.sizes[1:-1]]
        model = keras.Sequential([*stack, layers.Dense(spec.sizes[-1], activation='softmax')])
    elif spec.kind == 'cnn':
        stack = [keras.Input(CNN_INPUT), *_cnn_layers(spec, layers), layers.Flatten()]
        model = keras.Sequential([*stack, layers.Dense(10)])
    elif spec.kind == 'lstm':
        inputs = keras.Input(LSTM_SHAPE)
        model = keras.Model(inputs, layers.Dense(5)(layers.LSTM(LSTM_UNITS)(inputs)))
    else:
        tokens = keras.Input((TOKENS, WIDTH))
        attended = layers.MultiHeadAttention(num_heads=2, key_dim=8)(tokens, tokens)
        model = keras.Model(tokens, layers.Dense(4)(layers.Flatten()(attended)))
    rng = np.random.default_rng(1234)
    weights = [rng.uniform(-1, 1, w.shape) / np.sqrt(_fan_in(w.shape)) for w in model.get_weights()]
    model.set_weights([weight.astype(np.float32) for weight in weights])
    return model


def _fan_in(shape: tuple[int, ...]) -> int:
    """Inputs per output of a kernel (all axes but the last; a Dense kernel's rows); 1 for biases."""
    return max(int(np.prod(shape[:-1])), 1) if len(shape) > 1 else 1


def _cnn_layers(spec: BenchModel, layers: Any) -> list:
    stack = []
    for index, filters in enumerate(spec.cnn_filters):
        stack.append(layers.Conv2D(filters, 3, padding='same', activation='relu'))
        if spec.pool_each or index % 2 == 1:
            stack.append(layers.MaxPooling2D(2))
    return stack


def inputs(spec: BenchModel, samples: int) -> Any:
    shape = {'mlp': spec.sizes[:1], 'cnn': CNN_INPUT, 'lstm': LSTM_SHAPE, 'attention': (TOKENS, WIDTH)}[spec.kind]
    return np.random.default_rng(7).uniform(-1, 1, (samples, *shape)).astype(np.float32)


def macs(model: Any) -> int:
    """Multiply-accumulates of one sample through the model's Dense, Conv2D, LSTM and attention layers."""
    total = 0
    for layer in model.layers:
        kind = type(layer).__name__
        if kind == 'Dense':
            total += int(layer.kernel.shape[0] * layer.kernel.shape[1])
        elif kind == 'Conv2D':
            height, width = layer.output.shape[1:3]
            total += int(height * width * int(np.prod(layer.kernel.shape)))
        elif kind == 'LSTM':
            features, units = layer.input.shape[-1], layer.units
            total += int(layer.input.shape[1] * 4 * units * (features + units))
        elif kind == 'MultiHeadAttention':
            total += _attention_macs(layer)
    return total


def _attention_macs(layer: Any) -> int:
    projected = layer.num_heads * layer.key_dim
    projections = 4 * TOKENS * WIDTH * projected  # query, key, value and output
    return int(projections + 2 * TOKENS * TOKENS * projected)  # scores and mixing
