"""Handlers of the Keras 3 recurrent layers: SimpleRNN, LSTM, GRU and Bidirectional around one of them.

A Bidirectional layer is a composition: a forward layer `<name>_forward`, a backward layer
`<name>_backward` whose sequence output keeps the input positions (as Keras aligns it), and the merge
named `<name>` (Concatenate for 'concat', Merge add / multiply / average for 'sum' / 'mul' / 'ave').
return_state=True (not in Bidirectional) adds the states as outputs, one IR layer each (the parser maps
a Keras layer's outputs to its last layers): h is the output itself (a Reshape of it, `<name>_state`)
or, with return_sequences, a Gather of its last row (the last step processed, also for go_backwards,
whose sequence is in processing order); LSTM's c is `<name>_cell_state`, a second LSTM with the same
weights whose output is its last c (`output_cell`): the firmware's kernels have one output each, so c
costs a second cell in hardware.
A layer called with `initial_state` reads h0 (and the LSTM's c0) as inputs after the sequence
(attribute initial_state) instead of starting from zeros.
Refused with a clear error: stateful=True, return_state=True or initial_state in Bidirectional,
merge_mode=None, a mask input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, _own_layer, array_of, handles
from hls4ml.converters.recurrent_parts import Direction, attributes, check_function
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind, KindRecord

KINDS = {'SimpleRNN': Kind.SIMPLE_RNN, 'LSTM': Kind.LSTM, 'GRU': Kind.GRU}
BIDIRECTIONAL_MERGES = {'sum': 'add', 'mul': 'multiply', 'ave': 'average'}


def _function(source: Source, config: dict[str, Any], key: str) -> str:
    value = config[key]
    name = value if isinstance(value, str) else getattr(value, '__name__', str(value))
    try:
        return check_function(name, source.origin, key)
    except ValueError as error:
        raise UnsupportedLayer(str(error)) from None


def _direction(source: Source, layer: Any, states: bool = False) -> Direction:
    """The weights and settings of one Keras recurrent layer; `states`: return_state=True is converted."""
    kind: KindRecord = KINDS[type(layer).__name__]
    config = layer.get_config()
    if config.get('stateful'):
        raise UnsupportedLayer(
            f'{source.origin}: stateful=True is not supported; the firmware starts from a zero state on every '
            'inference (set stateful=False)'
        )
    if config.get('return_state') and not states:
        raise UnsupportedLayer(
            f'{source.origin}: return_state=True is not supported in Bidirectional; read the states of a '
            'forward and a backward layer of their own, or set return_state=False'
        )
    kernel, recurrent = array_of(layer.cell.kernel), array_of(layer.cell.recurrent_kernel)
    columns = kernel.shape[1]
    bias, recurrent_bias = np.zeros(columns), np.zeros(columns)
    if config['use_bias']:
        biases = array_of(layer.cell.bias)
        if biases.ndim == 2:  # GRU reset_after: the input bias and the recurrent bias
            bias, recurrent_bias = biases[0], biases[1]
        else:
            bias = biases
    direction = Direction(kind, kernel, recurrent, bias, recurrent_bias, _function(source, config, 'activation'))
    if kind != Kind.SIMPLE_RNN:
        direction.recurrent_activation = _function(source, config, 'recurrent_activation')
    if kind == Kind.GRU:
        direction.reset_after = bool(config['reset_after'])
    return direction


def _steps_shape(source: Source) -> tuple[int, int]:
    shape = source.input_shapes[0]
    if len(shape) != 2:
        raise UnsupportedLayer(f'{source.origin}: expected inputs of shape (steps, features), got {shape}')
    return shape[0], shape[1]


@handles('SimpleRNN', 'LSTM', 'GRU', produces=(Kind.SIMPLE_RNN, Kind.LSTM, Kind.GRU, Kind.GATHER, Kind.RESHAPE))
def recurrent(source: Source) -> list[Layer]:
    layer, config = source.layer, source.config
    direction = _direction(source, layer, states=True)
    values = attributes(
        direction, _steps_shape(source), bool(config['return_sequences']), bool(config['go_backwards']), False
    )
    values['initial_state'] = _initial_state(source, direction.kind)
    made = source.make(direction.kind, **values)
    if not config.get('return_state'):
        return [made]
    return [made, _last_state(source, made), *_cell_state(source, direction, values)]


def _initial_state(source: Source, kind: KindRecord) -> bool:
    """True when the layer reads initial states: the inputs after the sequence, h0 (and c0 for LSTM)."""
    extra = len(source.inputs) - 1
    if extra not in (0, 2 if kind == Kind.LSTM else 1):
        raise UnsupportedLayer(
            f'{source.origin}: {len(source.inputs)} inputs; a recurrent layer reads the sequence and, with '
            'initial_state, h0 (and c0 for LSTM); masks are not supported'
        )
    return extra > 0


def _last_state(source: Source, made: Layer) -> Layer:
    """return_state's h: the last step processed, a copy of the output or of its last row."""
    n_out, steps = made.attributes['n_out'], made.attributes['n_timesteps']
    state = Source(source.layer, f'{source.name}_state', [made.name], [])
    if not made.attributes['return_sequences']:
        return _own_layer(state.make(Kind.RESHAPE, target_shape=(n_out,)))
    index = list(range((steps - 1) * n_out, steps * n_out))
    return _own_layer(state.make(Kind.GATHER, index=index, out_shape=(n_out,)))


def _cell_state(source: Source, direction: Direction, values: dict[str, Any]) -> list[Layer]:
    """return_state's c of an LSTM: a second LSTM, the same weights, whose output is the last c."""
    if direction.kind != Kind.LSTM:
        return []
    cell = Source(source.layer, f'{source.name}_cell_state', source.inputs, source.input_shapes)
    return [cell.make(Kind.LSTM, **{**values, 'return_sequences': False, 'output_cell': True})]


@handles('Bidirectional', produces=(Kind.SIMPLE_RNN, Kind.LSTM, Kind.GRU, Kind.CONCATENATE, Kind.MERGE))
def bidirectional(source: Source) -> list[Layer]:
    layer, merge_mode = source.layer, source.config['merge_mode']
    if merge_mode not in ('concat', *BIDIRECTIONAL_MERGES):
        raise UnsupportedLayer(
            f"{source.origin}: merge_mode={merge_mode!r} is not supported (use 'concat', 'sum', 'mul' or 'ave')"
        )
    shape = _steps_shape(source)
    if len(source.inputs) != 1:
        raise UnsupportedLayer(f'{source.origin}: initial_state (or a mask) is not supported in Bidirectional')
    parts = []
    for part, suffix in ((layer.forward_layer, 'forward'), (layer.backward_layer, 'backward')):
        if type(part).__name__ not in KINDS:
            raise UnsupportedLayer(f'{source.origin}: wraps a {type(part).__name__}; SimpleRNN, LSTM or GRU expected')
        direction = _direction(source, part)
        config = part.get_config()
        backward = bool(config['go_backwards'])
        values = attributes(direction, shape, bool(config['return_sequences']), backward, backward)
        named = Source(part, f'{source.name}_{suffix}', source.inputs, source.input_shapes)
        parts.append(named.make(direction.kind, **values))
    names = [part.name for part in parts]
    if merge_mode == 'concat':
        rank = 2 if parts[0].attributes['return_sequences'] else 1
        return [*parts, source.make(Kind.CONCATENATE, inputs=names, axis=rank - 1)]
    return [*parts, source.make(Kind.MERGE, inputs=names, op=BIDIRECTIONAL_MERGES[merge_mode])]
