"""Handlers of torch.nn.RNNCell (tanh / relu), nn.LSTMCell and nn.GRUCell: one step of a recurrent layer.

A cell is the recurrent kind with one time step, its input (features,) read as (1, features), starting
from the given h (and c) -- model inputs (batch, hidden), read by the kernel (attribute initial_state)
-- or from zeros when they are omitted. RNNCell and GRUCell give h'; LSTMCell gives (h', c'), each made
when read: h' is the layer's output, c' a second LSTM with the same weights whose output is its last c
(`output_cell`; the kernels have one output each). The weights are the sequence modules' (suffix '').
"""

from __future__ import annotations

from typing import Any

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.recurrent import given_states, reshape_origin, torch_direction
from hls4ml.converters.pytorch.registry import Step, modules
from hls4ml.converters.recurrent_parts import attributes
from hls4ml.model.kinds import Kind, KindRecord

KINDS = {'RNNCell': Kind.SIMPLE_RNN, 'LSTMCell': Kind.LSTM, 'GRUCell': Kind.GRU}


class CellStep:
    """One step of a cell over `x` from `states`; `output(cell)` makes h' (or, for LSTM, c') once."""

    def __init__(self, step: Step, module: Any, x: Value, states: tuple[Value, ...]) -> None:
        self.step, self.module, self.states = step, module, states
        self.kind: KindRecord = KINDS[type(module).__name__]
        self.sequence = step.builder.reshape(reshape_origin(step, 'step'), x, (1, x.shape[0]))
        self.made: dict[bool, Value] = {}

    def output(self, cell: bool) -> Value:
        if cell not in self.made:
            direction = torch_direction(self.module, self.kind, '')
            values = attributes(direction, self.sequence.shape, False, False, False)
            if cell:
                values['output_cell'] = True
            origin = self.step.part('c') if cell else self.step.origin
            self.made[cell] = self.step.builder.recurrent(origin, self.sequence, self.kind, values, self.states)
        return self.made[cell]


class LstmCellResult:
    """LSTMCell's (h', c'), made when read."""

    def __init__(self, cell: CellStep) -> None:
        self.cell = cell

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> Value:
        if index not in (0, 1, -1, -2):
            raise self.cell.step.refuse(f'(h, c)[{index!r}] does not exist')
        return self.cell.output(index in (1, -1))


def _states(step: Step, module: Any, kind: KindRecord, hx: Any) -> tuple[Value, ...]:
    states = given_states(step, hx, 2 if kind == Kind.LSTM else 1)
    for state in states:
        if not isinstance(state, Value) or state.shape != (module.hidden_size,):
            raise step.refuse(f'expects initial states of shape (batch, {module.hidden_size}) from the model inputs')
    return states


@modules('RNNCell', 'LSTMCell', 'GRUCell')
def recurrent_cell(step: Step, module: Any, x: Any, hx: Any = None) -> Value | LstmCellResult:
    if not isinstance(x, Value) or x.rank != 1:
        raise step.refuse('expects a (batch, features) input computed from the model inputs')
    kind: KindRecord = KINDS[type(module).__name__]
    cell = CellStep(step, module, x, _states(step, module, kind, hx))
    return LstmCellResult(cell) if kind == Kind.LSTM else cell.output(False)
