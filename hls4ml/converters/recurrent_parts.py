"""What the three frontends share about recurrent layers: the IR attributes and weights of one direction
of a SimpleRNN, LSTM or GRU, in Keras' layout and gate order (docs/recurrent.md).

PyTorch and ONNX store the gates in other orders (torch: LSTM i f g o, GRU r z n; ONNX: LSTM i o f c,
GRU z r h) and the matrices transposed; `reorder_gates` and `keras_layout` bring them to Keras' form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.kinds import RECURRENT_FUNCTIONS, Kind, KindRecord

GATE_COUNT = {Kind.SIMPLE_RNN: 1, Kind.LSTM: 4, Kind.GRU: 3}
# the Keras position of each gate a framework stores, in the framework's order
TORCH_ORDER = {Kind.SIMPLE_RNN: (0,), Kind.LSTM: (0, 1, 2, 3), Kind.GRU: (1, 0, 2)}
ONNX_ORDER = {Kind.SIMPLE_RNN: (0,), Kind.LSTM: (0, 3, 1, 2), Kind.GRU: (0, 1, 2)}


@dataclass
class Direction:
    """One direction of a recurrent layer: weights in Keras' layout and its settings."""

    kind: KindRecord
    kernel: np.ndarray  # (n_features, G n_out)
    recurrent_kernel: np.ndarray  # (n_out, G n_out)
    bias: np.ndarray  # (G n_out,), every bias that only adds
    recurrent_bias: np.ndarray  # (G n_out,), GRU reset_after's h U_h bias; zeros otherwise
    activation: str = 'tanh'
    recurrent_activation: str = 'sigmoid'
    reset_after: bool = True

    @property
    def n_out(self) -> int:
        return self.recurrent_kernel.shape[0]


def reorder_gates(matrix: np.ndarray, kind: KindRecord, order: tuple[int, ...], axis: int = 0) -> np.ndarray:
    """`matrix` with its gate blocks along `axis` moved from a framework's order to Keras' order."""
    blocks = np.split(np.asarray(matrix, dtype=np.float64), GATE_COUNT[kind], axis=axis)
    keras_blocks: list[np.ndarray] = [np.empty(0)] * len(blocks)
    for position, block in zip(order, blocks, strict=True):
        keras_blocks[position] = block
    return np.concatenate(keras_blocks, axis=axis)


def keras_layout(kind: KindRecord, order: tuple[int, ...], weights: dict[str, Any]) -> dict[str, np.ndarray]:
    """Framework matrices W (G n_out, n_features), R (G n_out, n_out) and biases b_i, b_h (G n_out) in
    the framework's gate `order` -> kernel, recurrent kernel and the two biases in Keras' form."""
    return {
        'kernel': reorder_gates(weights['input'], kind, order).T,
        'recurrent_kernel': reorder_gates(weights['recurrent'], kind, order).T,
        'input_bias': reorder_gates(weights['input_bias'], kind, order),
        'recurrent_bias': reorder_gates(weights['recurrent_bias'], kind, order),
    }


def split_biases(kind: KindRecord, input_bias: np.ndarray, recurrent_bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Biases of a framework with two (torch, ONNX): all add, except GRU's candidate recurrent bias, which
    the reset gate multiplies (reset_after): that one stays the recurrent bias, the rest are folded."""
    if kind != Kind.GRU:
        return input_bias + recurrent_bias, np.zeros_like(recurrent_bias)
    n_out = len(input_bias) // 3
    folded, kept = input_bias.copy(), np.zeros_like(recurrent_bias)
    folded[: 2 * n_out] += recurrent_bias[: 2 * n_out]
    kept[2 * n_out :] = recurrent_bias[2 * n_out :]
    return folded, kept


def check_function(name: str, where: str, role: str) -> str:
    if name not in RECURRENT_FUNCTIONS:
        raise ValueError(
            f'{where}: {role} {name!r} is not supported in recurrent layers '
            f'(supported: {", ".join(RECURRENT_FUNCTIONS)})'
        )
    return name


def attributes(
    direction: Direction, shape: tuple[int, ...], return_sequences: bool, backward: bool, aligned: bool
) -> dict[str, Any]:
    """The IR attributes and weights of one direction reading inputs of `shape` (steps, features)."""
    n_timesteps, n_features = shape
    values: dict[str, Any] = {
        'n_timesteps': n_timesteps,
        'n_features': n_features,
        'n_out': direction.n_out,
        'return_sequences': return_sequences,
        'backward': backward,
        'aligned': aligned,
        'activation': direction.activation,
        'weights': {
            'weight': direction.kernel,
            'recurrent_weight': direction.recurrent_kernel,
            'bias': direction.bias,
            'recurrent_bias': direction.recurrent_bias,
        },
    }
    if direction.kind != Kind.SIMPLE_RNN:
        values['recurrent_activation'] = direction.recurrent_activation
    if direction.kind == Kind.GRU:
        values['reset_after'] = direction.reset_after
    return values
