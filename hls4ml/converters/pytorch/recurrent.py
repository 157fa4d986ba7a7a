"""Handlers of torch.nn.RNN (tanh / relu), nn.LSTM and nn.GRU, which torch.fx keeps as leaf modules.

The module call gives `RecurrentResult`, PyTorch's (output, h_n) or (output, (h_n, c_n)); its IR
layers are made when an item is read: `output` (every step of the last layer; bidirectional: both
directions concatenated per step) and, for one layer in one direction, `h_n` (shape (1, hidden)). Each
layer and direction is one IR layer in Keras' layout (`recurrent_parts`): torch's GRU is Keras'
reset_after=True, its two biases are folded except GRU's candidate recurrent bias. Layers beyond the
first read the previous layer's output; dropout between layers is inactive in eval mode.

batch_first=False reads and writes time-major tensors (steps, batch, features), whose batch axis is not
PyTorch's dim 0. The firmware's batch is always a model input's first axis, so such a module converts
when the model swaps the two leading axes itself: `x.transpose(0, 1)` (or `permute(1, 0, 2)`) of a
batch-first tensor gives a `SequenceFirst` mark (`registry.py`, shared with nn.MultiheadAttention),
which only such a module (and the swap back) accepts; its
output is time major again. Everything else that would read a time-major tensor is refused.

An LSTM's c_n (one layer, one direction) is a second LSTM layer with the same weights whose output is
its last c (`output_cell`): each kernel has one output.

Initial states (h0, c0) computed from model inputs are read by the kernel (attribute initial_state) for
a module of one layer in one direction; torch's (1, batch, hidden) is a model input (batch, 1, hidden)
swapped by `h0.transpose(0, 1)`, or (batch, hidden) with `h0.unsqueeze(0)`.

Refused with a clear error: a time-major model input, LSTM proj_size > 0, constant initial states other
than zeros, initial states of several layers or directions.

h_n / c_n of several layers or directions are `StackedStates` (time major, PyTorch's (layers x directions,
batch, hidden)): h_n[i] of a layer and direction is a Gather from its sequence output (the forward
direction's last row, the backward one's first), c_n[i] an LSTM with `output_cell`; the whole tensor is
read after `.transpose(0, 1)`, (batch, layers x directions, hidden).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.builder import Origin, Value
from hls4ml.converters.pytorch.registry import SequenceFirst, Step, modules
from hls4ml.converters.recurrent_parts import TORCH_ORDER, Direction, attributes, keras_layout, split_biases
from hls4ml.model.kinds import Kind, KindRecord

KINDS = {'RNN': Kind.SIMPLE_RNN, 'LSTM': Kind.LSTM, 'GRU': Kind.GRU}


def _array(tensor: Any) -> np.ndarray:
    return np.asarray(tensor.detach().cpu().numpy(), dtype=np.float64)


def torch_direction(module: Any, kind: KindRecord, suffix: str) -> Direction:
    """The weights of one layer and direction (`suffix`: '_l0', '_l1_reverse', ...; '' for a cell)."""
    columns = getattr(module, f'weight_hh{suffix}').shape[0]
    weights = {
        'input': _array(getattr(module, f'weight_ih{suffix}')),
        'recurrent': _array(getattr(module, f'weight_hh{suffix}')),
    }
    for name, torch_name in (('input_bias', 'bias_ih'), ('recurrent_bias', 'bias_hh')):
        weights[name] = _array(getattr(module, f'{torch_name}{suffix}')) if module.bias else np.zeros(columns)
    keras = keras_layout(kind, TORCH_ORDER[kind], weights)
    bias, recurrent_bias = split_biases(kind, keras['input_bias'], keras['recurrent_bias'])
    activation = getattr(module, 'nonlinearity', 'tanh')
    return Direction(kind, keras['kernel'], keras['recurrent_kernel'], bias, recurrent_bias, activation)


def _sequence_input(step: Step, module: Any, x: Any) -> Value:
    """The batch-first (steps, features) sequence the module reads: `x` itself, or unmarked when time major."""
    if module.batch_first == isinstance(x, SequenceFirst):
        raise step.refuse(
            'batch_first=False reads (steps, batch, features) tensors; the firmware reads samples along a model '
            "input's first axis: feed (batch, steps, features) and swap the axes in the model "
            '(`x.transpose(0, 1)`) before the module and after it, or build it with batch_first=True'
            if not module.batch_first
            else 'batch_first=True reads a (batch, steps, features) tensor, got a time-major one'
        )
    sequence = x.value if isinstance(x, SequenceFirst) else x
    if not isinstance(sequence, Value) or sequence.rank != 2:
        raise step.refuse('expects a (steps, features) input computed from the model inputs')
    return sequence


def _check(step: Step, module: Any) -> None:
    if getattr(module, 'proj_size', 0):
        raise step.refuse(f'proj_size={module.proj_size} is not supported (0)')


def given_states(step: Step, hx: Any, count: int) -> tuple[Any, ...]:
    """The initial states handed to a module or cell: () for none or constant zeros, else `count` items."""
    states = tuple(hx) if isinstance(hx, (tuple, list)) else (hx,)
    computed = any(isinstance(state, (Value, SequenceFirst)) for state in states)
    if not computed and all(state is None or not np.any(np.asarray(state) != 0) for state in states):
        return ()
    if len(states) != count or not all(isinstance(state, (Value, SequenceFirst)) for state in states):
        raise step.refuse(
            'initial states must be all computed from the model inputs (h0, c0) or all omitted / zeros; '
            'constants other than zeros are not supported'
        )
    return states


def _initial_states(step: Step, module: Any, kind: KindRecord, hx: Any) -> tuple[Value, ...]:
    """h0 (and c0) of a module of one layer in one direction as (hidden,) tensors: PyTorch's
    (1, batch, hidden), a model's (batch, 1, hidden) tensor swapped (`h0.transpose(0, 1)`) or its
    (batch, hidden) tensor with `h0.unsqueeze(0)`."""
    states = given_states(step, hx, 2 if kind == Kind.LSTM else 1)
    hidden = module.hidden_size
    one = module.num_layers == 1 and not module.bidirectional
    if states and not (one and all(isinstance(s, SequenceFirst) and s.value.shape == (1, hidden) for s in states)):
        raise step.refuse(
            f'initial states are supported for one layer in one direction, as (1, batch, {hidden}) tensors made '
            f'from a model input: (batch, 1, {hidden}) with h0.transpose(0, 1), or (batch, {hidden}) with '
            'h0.unsqueeze(0)'
        )
    return tuple(
        step.builder.reshape(reshape_origin(step, f'h0_{index}'), state.value, (hidden,))
        for index, state in enumerate(states)
    )


def reshape_origin(step: Step, suffix: str) -> Origin:
    """A Reshape the module's conversion adds: the module's LayerType entries (TableSize, ...) do not apply."""
    part = step.part(suffix)
    return Origin(part.name, 'Reshape', part.where)


@dataclass(frozen=True)
class LastState(Value):
    """h_n, (1, hidden), of one layer in one direction: its axis 0 is torch's layers x directions, not the
    batch, so h_n[0] (or h_n[-1]) is the last h itself, (hidden,)."""

    last: Value | None = None

    def item(self, step: Step, index: Any) -> Value:
        if index not in (0, -1) or self.last is None:
            raise step.refuse(f'h_n[{index!r}] is not supported (h_n[0] or h_n[-1])')
        return self.last


@dataclass(frozen=True)
class StackedStates(SequenceFirst):
    """h_n or c_n of several layers or directions, PyTorch's (layers x directions, batch, hidden): time
    major, `value` the (layers x directions, hidden) tensor; `items[i]` is h_n[i], (hidden,)."""

    items: tuple[Value, ...] = ()

    def item(self, step: Step, index: Any) -> Value:
        if not isinstance(index, int) or not -len(self.items) <= index < len(self.items):
            raise step.refuse(f'[{index!r}] of {len(self.items)} final states is not supported (one integer index)')
        return self.items[index]


class RecurrentResult:
    """PyTorch's (output, h_n) or (output, (h_n, c_n)); the IR layers are made on first use."""

    def __init__(self, step: Step, module: Any, x: Value, hx: Any) -> None:
        self.step, self.module, self.x = step, module, x
        self.kind: KindRecord = KINDS[type(module).__name__]
        self.states = _initial_states(step, module, self.kind, hx)
        self.made: dict[str, Value] = {}
        self.state: LastState | StackedStates | None = None
        self.cell: LastState | StackedStates | None = None

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> Any:
        if index in (0, -2):
            return self.output() if self.module.batch_first else SequenceFirst(self.output())
        if self.kind == Kind.LSTM:
            return LstmStates(self)
        return self.last_state()

    def _layer(self, x: Value, layer: int, reverse: bool, sequences: bool, name: str, cell: bool = False) -> Value:
        direction = torch_direction(self.module, self.kind, f'_l{layer}' + ('_reverse' if reverse else ''))
        values = attributes(direction, x.shape, sequences, reverse, reverse)
        if cell:
            values['output_cell'] = True
        origin = self.step.origin if name == '' else self.step.part(name)
        return self.step.builder.recurrent(origin, x, self.kind, values, self.states)

    def _stack(self, x: Value, layer: int, sequences: bool, name: str) -> Value:
        """Layer `layer` over `x`: one direction, or both concatenated per step."""
        if not self.module.bidirectional:
            return self._layer(x, layer, False, sequences, name)
        forward = self._layer(x, layer, False, sequences, f'{name or "output"}_forward')
        backward = self._layer(x, layer, True, sequences, f'{name or "output"}_backward')
        origin = self.step.origin if name == '' else self.step.part(name)
        joined = Origin(origin.name, 'Concatenate', origin.where)  # LayerType entries of the module do not apply
        return self.step.builder.concat(joined, [forward, backward], axis=forward.rank - 1)

    def _sequence(self, layer: int) -> Value:
        """The sequence output of `layer` (both directions concatenated per step)."""
        key = f'sequence{layer}'
        if key not in self.made:
            x = self.x if layer == 0 else self._sequence(layer - 1)
            last = layer == self.module.num_layers - 1
            self.made[key] = self._stack(x, layer, True, '' if last else f'l{layer}')
        return self.made[key]

    def _inputs_of(self, layer: int) -> Value:
        return self.x if layer == 0 else self._sequence(layer - 1)

    def output(self) -> Value:
        return self._sequence(self.module.num_layers - 1)

    def last_state(self) -> LastState | StackedStates:
        """h_n: one layer in one direction, (1, hidden), the last step's h; else `StackedStates`."""
        if self.state is None:
            self.state = self._final('h_n', False)
        return self.state

    def cell_state(self) -> LastState | StackedStates:
        """c_n of an LSTM, as `last_state`: the last step's c (`output_cell`)."""
        if self.cell is None:
            self.cell = self._final('c_n', True)
        return self.cell

    def _final_h(self, layer: int, reverse: bool, name: str) -> Value:
        """The last h of one layer and direction, a Gather from its sequence output: the forward
        direction's last row, the backward direction's first (its sequence keeps the input positions)."""
        sequence, hidden = self._sequence(layer), self.module.hidden_size
        positions = self.step.builder.positions(sequence)
        row, column = (0, hidden) if reverse else (sequence.shape[0] - 1, 0)
        origin = self.step.part(name)
        gather = Origin(origin.name, 'Gather', origin.where)
        return self.step.builder.gather(gather, sequence, positions[row, column : column + hidden])

    def _stacked(self, name: str, cell: bool) -> StackedStates:
        """h_n / c_n of several layers or directions, torch's order (layer 0 forward, backward, layer 1 ...)."""
        directions = 2 if self.module.bidirectional else 1
        items = []
        for index in range(self.module.num_layers * directions):
            layer, reverse = index // directions, index % directions == 1
            if cell:
                items.append(self._layer(self._inputs_of(layer), layer, reverse, False, f'{name}_{index}', True))
            else:
                items.append(self._final_h(layer, reverse, f'{name}_{index}'))
        rows = [
            self.step.builder.reshape(reshape_origin(self.step, f'{name}_{index}_row'), item, (1, item.shape[0]))
            for index, item in enumerate(items)
        ]
        joined = Origin(self.step.part(name).name, 'Concatenate', self.step.origin.where)
        return StackedStates(self.step.builder.concat(joined, rows, axis=0), tuple(items))

    def _final(self, name: str, cell: bool) -> LastState | StackedStates:
        if self.module.num_layers * (2 if self.module.bidirectional else 1) != 1:
            return self._stacked(name, cell)
        last = self._layer(self.x, 0, False, False, name, cell)
        shaped = self.step.builder.reshape(reshape_origin(self.step, f'{name}_shape'), last, (1, last.shape[0]))
        return LastState(shaped.tensor, shaped.shape, shaped.perm, last)


class LstmStates:
    """(h_n, c_n) of an LSTM: `RecurrentResult.last_state` and `cell_state`."""

    def __init__(self, result: RecurrentResult) -> None:
        self.result = result

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> LastState | StackedStates:
        if index in (0, -2):
            return self.result.last_state()
        if index in (1, -1):
            return self.result.cell_state()
        raise self.result.step.refuse(f'(h_n, c_n)[{index!r}] does not exist')


@modules('RNN', 'LSTM', 'GRU')
def recurrent_module(step: Step, module: Any, x: Any, hx: Any = None) -> RecurrentResult:
    sequence = _sequence_input(step, module, x)
    _check(step, module)
    return RecurrentResult(step, module, sequence, hx)
