"""Reference of the recurrent kernels `nnet::simple_rnn`, `nnet::lstm`, `nnet::gru` (nnet_recurrent.h).

One time step is two matrix products written into accum_t (`dense`: the input x_t times W plus b, the
state h times U plus the recurrent bias rb), then the gate arithmetic below, each C++ write a `.cast`.
Gates are in Keras' order (LSTM i, f, c, o; GRU z, r, h); the frontends reorder torch's and ONNX's.

A gate function (`GateFunction`) is linear, relu or a bounded table (sigmoid, tanh, softsign); its value
is written into its table type, which for linear and relu is the type of its input (no loss).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference import table_activations
from hls4ml.model.reference.activations import relu
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.reference.dense import dense
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import FixedPrecisionType


@dataclass(frozen=True)
class GateFunction:
    """A gate's function: `name` is linear, relu, sigmoid, tanh or softsign; `table` for the last three;
    `value_type` the type its values are written into (the table type, or its input type)."""

    name: str
    value_type: FixedPrecisionType
    table: TableSpec | None = None

    def __call__(self, x: FixedArray) -> FixedArray:
        if self.table is not None:
            return getattr(table_activations, self.name)(x, self.table, self.value_type)
        if self.name == 'relu':
            return relu(x, self.value_type)
        if self.name != 'linear':
            raise ValueError(f'recurrent gate function {self.name!r}: a table function needs its table')
        return x.cast(self.value_type)


@dataclass(frozen=True)
class RecurrentTypes:
    accum: FixedPrecisionType
    state: FixedPrecisionType
    cell: FixedPrecisionType
    result: FixedPrecisionType


@dataclass(frozen=True)
class RecurrentWeights:
    """W (n_features, G*H), U (H, G*H), b and rb (G*H), quantized into their types."""

    kernel: FixedArray
    recurrent: FixedArray
    bias: FixedArray
    recurrent_bias: FixedArray


@dataclass(frozen=True)
class Sequence:
    """How the steps are walked: `n_steps` of `n_features`; `backward` from the last step to the first;
    `aligned`: a backward sequence output keeps input positions (Bidirectional, torch, ONNX) instead of
    the processing order (Keras go_backwards); `return_sequences`: every h, or the last one."""

    n_steps: int
    n_features: int
    return_sequences: bool
    backward: bool = False
    aligned: bool = False
    output_cell: bool = False  # LSTM: the output is the last c (return_sequences False)
    initial: tuple[FixedArray, ...] = ()  # the h0 (and LSTM c0) inputs, (samples, n_state); zeros if empty


Step = Callable[[FixedArray, list[FixedArray]], list[FixedArray]]  # (x_t, state) -> new state (h first)


def columns(x: FixedArray, start: int, stop: int) -> FixedArray:
    return take(x, (slice(None), slice(start, stop)))


def _run(
    x: FixedArray, sequence: Sequence, state: list[FixedArray], step: Step, result: FixedPrecisionType
) -> FixedArray:
    """Walk the steps, collect each h (written into result_t) in output order."""
    x = as_samples(x)
    order = range(sequence.n_steps - 1, -1, -1) if sequence.backward else range(sequence.n_steps)
    outputs: list[FixedArray | None] = [None] * sequence.n_steps
    for position, t in enumerate(order):
        features = sequence.n_features
        state = step(columns(x, t * features, (t + 1) * features), state)
        slot = t if sequence.aligned else position
        outputs[slot] = state[0].cast(result)
    if not sequence.return_sequences:
        return state[1 if sequence.output_cell else 0].cast(result)
    raws = [item.raw for item in outputs if item is not None]
    return FixedArray(np.concatenate(raws, axis=1), result, x.family)


def _zeros(n_samples: int, size: int, precision: FixedPrecisionType, family: str) -> FixedArray:
    return FixedArray.from_raw(np.zeros((n_samples, size), dtype=np.int64), precision, family)


def _start(x: FixedArray, sequence: Sequence, n_state: int, precisions: list[FixedPrecisionType]) -> list[FixedArray]:
    """The state before the first step, one array per type of `precisions` (h, then c): the initial
    inputs written into those types (as the kernel's h[j] = h0[j]), or zeros."""
    if sequence.initial:
        return [
            as_samples(value).cast(precision) for value, precision in zip(sequence.initial, precisions, strict=True)
        ]
    return [_zeros(x.shape[0], n_state, precision, x.family) for precision in precisions]


def simple_rnn(
    x: FixedArray, weights: RecurrentWeights, activation: GateFunction, types: RecurrentTypes, sequence: Sequence
) -> FixedArray:
    """h = act(accum_t(x_t W + b + h U + rb)), written into act's value type then into state_t."""
    x = as_samples(x)
    n_state = weights.recurrent.shape[0]

    def step(x_t: FixedArray, state: list[FixedArray]) -> list[FixedArray]:
        gates = _gate_sums(x_t, state[0], weights, types.accum)
        return [activation(gates).cast(types.state)]

    return _run(x, sequence, _start(x, sequence, n_state, [types.state]), step, types.result)


def _gate_sums(x_t: FixedArray, h: FixedArray, weights: RecurrentWeights, accum: FixedPrecisionType) -> FixedArray:
    """accum_t(x_t W + b) + accum_t(h U + rb), written into accum_t."""
    from_input = dense(x_t, weights.kernel, weights.bias, accum, accum)
    from_state = dense(h, weights.recurrent, weights.recurrent_bias, accum, accum)
    return (from_input + from_state).cast(accum)


def lstm(
    x: FixedArray,
    weights: RecurrentWeights,
    functions: tuple[GateFunction, GateFunction, GateFunction],
    types: RecurrentTypes,
    sequence: Sequence,
) -> FixedArray:
    """Gates i, f, c, o; `functions` = (activation on the gate sums, recurrent activation, activation on
    the cell): c = cell_t(f c + i act(pre_c)), h = state_t(o cell_act(c))."""
    x = as_samples(x)
    activation, recurrent, cell_activation = functions
    n_state = weights.recurrent.shape[0]

    def step(x_t: FixedArray, state: list[FixedArray]) -> list[FixedArray]:
        h, c = state
        gates = _gate_sums(x_t, h, weights, types.accum)
        i, f, g, o = (columns(gates, k * n_state, (k + 1) * n_state) for k in range(4))
        input_gate, forget_gate, output_gate = recurrent(i), recurrent(f), recurrent(o)
        c = (forget_gate * c + input_gate * activation(g)).cast(types.cell)
        h = (output_gate * cell_activation(c)).cast(types.state)
        return [h, c]

    return _run(x, sequence, _start(x, sequence, n_state, [types.state, types.cell]), step, types.result)


def gru(
    x: FixedArray,
    weights: RecurrentWeights,
    functions: tuple[GateFunction, GateFunction],
    types: RecurrentTypes,
    sequence: Sequence,
    reset_after: bool,
) -> FixedArray:
    """Gates z, r, h; h = state_t(z h + n - z n) with n = act(candidate sum). reset_after: the candidate
    sum is x W_h + b_h + r (h U_h + rb_h); otherwise x W_h + b_h + (state_t(r h)) U_h + rb_h, and
    `weights.recurrent` holds U_zr (H x 2H) then U_h (H x H), flattened one after the other."""
    x = as_samples(x)
    activation, recurrent = functions
    n_state = weights.bias.shape[0] // 3

    def step(x_t: FixedArray, state: list[FixedArray]) -> list[FixedArray]:
        (h,) = state
        from_input = dense(x_t, weights.kernel, weights.bias, types.accum, types.accum)
        zr_sum, candidate_sum = _gru_state_sums(h, from_input, weights, types, n_state, reset_after, recurrent)
        z = recurrent(columns(zr_sum, 0, n_state))
        n = activation(candidate_sum)
        return [(z * h + n - z * n).cast(types.state)]

    return _run(x, sequence, _start(x, sequence, n_state, [types.state]), step, types.result)


def _gru_state_sums(
    h: FixedArray,
    from_input: FixedArray,
    weights: RecurrentWeights,
    types: RecurrentTypes,
    n_state: int,
    reset_after: bool,
    recurrent: GateFunction,
) -> tuple[FixedArray, FixedArray]:
    """The z and r gate sums (accum_t, 2H) and the candidate sum (accum_t, H)."""
    accum, two = types.accum, 2 * n_state
    input_zr, input_candidate = columns(from_input, 0, two), columns(from_input, two, 3 * n_state)
    if reset_after:
        from_state = dense(h, weights.recurrent, weights.recurrent_bias, accum, accum)
        zr_sum = (input_zr + columns(from_state, 0, two)).cast(accum)
        r = recurrent(columns(zr_sum, n_state, two))
        return zr_sum, (input_candidate + r * columns(from_state, two, 3 * n_state)).cast(accum)
    flat = weights.recurrent.raw.reshape(-1)
    recurrent_zr = FixedArray(flat[: n_state * two].reshape(n_state, two), weights.recurrent.type, h.family)
    recurrent_h = FixedArray(flat[n_state * two :].reshape(n_state, n_state), weights.recurrent.type, h.family)
    bias_zr, bias_h = (take(weights.recurrent_bias, part) for part in (slice(0, two), slice(two, 3 * n_state)))
    zr_sum = (input_zr + dense(h, recurrent_zr, bias_zr, accum, accum)).cast(accum)
    r = recurrent(columns(zr_sum, n_state, two))
    reset_state = (r * h).cast(types.state)
    return zr_sum, (input_candidate + dense(reset_state, recurrent_h, bias_h, accum, accum)).cast(accum)
