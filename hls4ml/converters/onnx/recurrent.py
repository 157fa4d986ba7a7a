"""The ONNX RNN, LSTM and GRU ops, in the batch-first form torch.onnx.export writes for
`batch_first=True` modules:

    x (N, T, F) -> Transpose(1, 0, 2) -> LSTM -> Y (T, 1, N, H) -> Squeeze(1) -> [next LSTM ...]
                                                               -> Transpose(1, 0, 2) -> (N, T, H)

ONNX recurrent ops read time-major tensors (T, N, F): their batch axis is not axis 0, which the walk
keeps first everywhere else. `match_recurrent` finds the ops whose time-major tensors are read only by
such a chain; the transposes and squeezes of the chain then pass their input on (their values stay in
the sample's (steps, features) order) and each op becomes one IR layer (`recurrent_layer`). Its
weights are ONNX's W (G H, F), R (G H, H), B (2 G H), gates LSTM i o f c, GRU z r h
(`recurrent_parts.ONNX_ORDER`); GRU's linear_before_reset=1 is Keras' reset_after=True (torch's GRU),
0 is reset_after=False. Directions 'forward', 'reverse' and 'bidirectional' (Y (T, 2, N, H) ->
Transpose(0, 2, 1, 3) -> Reshape (T, N, 2 H) in the chain: two IR layers and their concatenation).
clip, sequence_lens, non-zero initial states, the Y_h / Y_c outputs and other activations are refused
naming the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx

from hls4ml.converters.builder import Origin, Value
from hls4ml.converters.onnx.step import Constant, Handler, Step, registrar
from hls4ml.converters.recurrent_parts import ONNX_ORDER, Direction, attributes, keras_layout, split_biases
from hls4ml.model.kinds import Kind, KindRecord

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)

KINDS = {'RNN': Kind.SIMPLE_RNN, 'LSTM': Kind.LSTM, 'GRU': Kind.GRU}
ACTIVATIONS = {'Tanh': 'tanh', 'Sigmoid': 'sigmoid', 'Relu': 'relu', 'Softsign': 'softsign'}
DEFAULT_ACTIVATIONS = {'RNN': ['Tanh'], 'LSTM': ['Sigmoid', 'Tanh', 'Tanh'], 'GRU': ['Sigmoid', 'Tanh']}
FORM = 'Transpose(1, 0, 2) -> op -> Squeeze(axis 1) -> ... -> Transpose(1, 0, 2), as torch.onnx.export writes'


@dataclass
class RecurrentMatches:
    passed: set[str] = field(default_factory=set)  # the transposes and squeezes: output = first input
    layers: set[str] = field(default_factory=set)  # the recurrent ops read and written time-major


def _perm(node: onnx.NodeProto) -> list[int]:
    return next((list(attribute.ints) for attribute in node.attribute if attribute.name == 'perm'), [])


def _squeezes_directions(node: onnx.NodeProto, constants: dict[str, np.ndarray]) -> bool:
    if node.op_type != 'Squeeze':
        return False
    axes = next((list(attribute.ints) for attribute in node.attribute if attribute.name == 'axes'), None)
    if axes is None and len(node.input) > 1:
        axes = [int(axis) for axis in constants.get(node.input[1], np.array([-9])).reshape(-1)]
    return axes == [1]


def _joins_directions(node: onnx.NodeProto, consumers: dict[str, list[onnx.NodeProto]]) -> onnx.NodeProto | None:
    """A bidirectional Y (T, 2, N, H) -> Transpose(0, 2, 1, 3) -> Reshape (T, N, 2 H): the Reshape."""
    readers = consumers.get(node.output[0], [])
    if node.op_type != 'Transpose' or _perm(node) != [0, 2, 1, 3] or len(readers) != 1:
        return None
    return readers[0] if readers[0].op_type == 'Reshape' else None


def match_recurrent(graph: onnx.GraphProto) -> RecurrentMatches:
    """The chains of the module docstring, each starting at a Transpose(1, 0, 2) read only by a
    recurrent op; a chain whose time-major tensors are read by anything else is not matched."""
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    constants = {item.name: onnx.numpy_helper.to_array(item) for item in graph.initializer}
    matches = RecurrentMatches()
    for node in graph.node:
        readers = consumers.get(node.output[0], []) if node.output else []
        if node.op_type == 'Transpose' and _perm(node) == [1, 0, 2] and readers:
            if all(reader.op_type in KINDS for reader in readers):
                chain = _follow(readers, consumers, constants)
                if chain is not None:
                    matches.passed |= {node.name, *chain.passed}
                    matches.layers |= chain.layers
    return matches


def _follow(
    ops: list[onnx.NodeProto], consumers: dict[str, list[onnx.NodeProto]], constants: dict[str, np.ndarray]
) -> RecurrentMatches | None:
    """The rest of a chain from recurrent ops reading a time-major tensor, or None if it leaks."""
    chain = RecurrentMatches()
    pending = list(ops)
    while pending:
        op = pending.pop()
        chain.layers.add(op.name)
        for reader in consumers.get(op.output[0], []):
            joined = _joins_directions(reader, consumers)
            if not _squeezes_directions(reader, constants) and joined is None:
                return None
            chain.passed.add(reader.name)
            if joined is not None:
                chain.passed.add(joined.name)
                reader = joined
            for after in consumers.get(reader.output[0], []):
                if after.op_type in KINDS:
                    pending.append(after)
                elif after.op_type == 'Transpose' and _perm(after) == [1, 0, 2]:
                    chain.passed.add(after.name)
                else:
                    return None
    return chain


@handles('RNN', 'LSTM', 'GRU')
def unmatched(step: Step) -> Value:
    raise step.unsupported(f'a recurrent op converts only in the batch-first form {FORM}')


def _activations(step: Step) -> tuple[str, str]:
    """(activation, recurrent activation) in Keras' terms."""
    names = step.attribute('activations') or DEFAULT_ACTIVATIONS[step.node.op_type]
    names = [name.decode() if isinstance(name, bytes) else str(name) for name in names]
    if step.node.op_type == 'LSTM' and names[1] != names[2]:
        raise step.unsupported(f'LSTM activations {names}: the cell and hidden activations must be the same')
    if any(name not in ACTIVATIONS for name in names):
        raise step.unsupported(f'activations {names} are not supported ({", ".join(ACTIVATIONS)})')
    if step.node.op_type == 'RNN':
        return ACTIVATIONS[names[0]], 'sigmoid'
    return ACTIVATIONS[names[1]], ACTIVATIONS[names[0]]


def _check(step: Step) -> None:
    direction = step.attribute('direction', 'forward')
    direction = direction.decode() if isinstance(direction, bytes) else direction
    if direction not in ('forward', 'reverse', 'bidirectional'):
        raise step.unsupported(f'direction {direction!r} is not supported')
    if step.attribute('clip') is not None:
        raise step.unsupported('clip is not supported')
    if any(step.output_read(position) for position in range(1, len(step.node.output))):
        raise step.unsupported('the Y_h / Y_c outputs are not supported; read Y (the sequence)')
    if len(step.inputs) > 4 and step.inputs[4] is not None:
        raise step.unsupported('sequence_lens is not supported (every sequence has every step)')
    for operand in step.inputs[5:]:  # initial_h, initial_c
        if operand is not None and (not isinstance(operand, Constant) or np.any(operand.values != 0)):
            raise step.unsupported('initial states other than zeros are not supported')


def _direction(step: Step, kind: KindRecord, index: int) -> Direction:
    """Direction `index` (0 forward or the only one, 1 the reverse one of a bidirectional op)."""
    weights = {'input': step.constant(1).values[index], 'recurrent': step.constant(2).values[index]}
    columns = weights['recurrent'].shape[0]
    bias = step.optional_constant(3) if len(step.inputs) > 3 else None
    both = bias.values[index] if bias is not None else np.zeros(2 * columns)
    weights['input_bias'], weights['recurrent_bias'] = both[:columns], both[columns:]
    keras = keras_layout(kind, ONNX_ORDER[kind], weights)
    folded, kept = split_biases(kind, keras['input_bias'], keras['recurrent_bias'])
    activation, recurrent_activation = _activations(step)
    reset_after = bool(step.attribute('linear_before_reset', 0))
    return Direction(
        kind, keras['kernel'], keras['recurrent_kernel'], folded, kept, activation, recurrent_activation, reset_after
    )


def recurrent_layer(step: Step) -> Value:
    """A matched op: its input arrives as the sample's (steps, features), its Y leaves as (steps, hidden)."""
    _check(step)
    kind = KINDS[step.node.op_type]
    x = step.tensor(0)
    direction = step.attribute('direction', 'forward')
    direction = direction.decode() if isinstance(direction, bytes) else direction
    if direction != 'bidirectional':
        backward = direction == 'reverse'
        values = attributes(_direction(step, kind, 0), x.shape, True, backward, backward)
        return step.builder.recurrent(step.origin, x, kind, values)
    parts = []
    for index, suffix in ((0, 'forward'), (1, 'backward')):
        values = attributes(_direction(step, kind, index), x.shape, True, bool(index), bool(index))
        parts.append(step.builder.recurrent(step.sub_origin(suffix), x, kind, values))
    joined = Origin(step.origin.name, 'Concatenate', step.origin.where)  # LayerType entries of the op do not apply
    return step.builder.concat(joined, parts, axis=1)
