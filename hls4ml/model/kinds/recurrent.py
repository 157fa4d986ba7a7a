"""Recurrent layers: SimpleRNN, LSTM and GRU over (n_timesteps, n_features) inputs. Each kind is one
block of `Recurrent`: its reference kernel and its record; they share the precision rule, the tables
and the shape rules below. docs/recurrent.md describes the arithmetic, the attributes and the frontends.

Attributes (set by the frontends): n_timesteps, n_features, n_out (the state size), return_sequences,
backward (walk the steps from the last to the first), aligned (a backward sequence output keeps the
input positions: Bidirectional, torch, ONNX; Keras' go_backwards gives them in processing order),
activation, recurrent_activation (RECURRENT_FUNCTIONS), GRU's reset_after, LSTM's output_cell (the output
is the last c instead of the last h: Keras' return_state, torch's c_n; return_sequences False),
initial_state (inputs 2 and 3 are h0 and the LSTM's c0, (n_out,) each, instead of zeros).
Weights, Keras' layout and gate order (LSTM i f c o, GRU z r h): 'weight' (n_features, G n_out),
'recurrent_weight' (n_out, G n_out), 'bias' and 'recurrent_bias' (G n_out); the frontends fold biases
that only add (all but GRU's reset_after recurrent bias) into 'bias' and give zeros for 'recurrent_bias'.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, KindRecord, Reference
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import fit_weights, input_fixed, is_auto, magnitude, quantized_weights, sum_type
from hls4ml.model.tables import TableSpec, activation_table
from hls4ml.model.types import FixedPrecisionType

if TYPE_CHECKING:
    from hls4ml.model.reference import recurrent as reference


def _kernels() -> ModuleType:
    """The recurrent reference kernels, imported when a recurrent layer is first checked, run or lowered, not
    with every model's conversion (docs/performance.md, "Conversion loads only what it uses")."""
    from hls4ml.model.reference import recurrent

    return recurrent


# the gate functions: the first three read a bounded table (nnet_table.h), the last two are exact
RECURRENT_FUNCTIONS = ('tanh', 'sigmoid', 'softsign', 'relu', 'linear')
TABLE_FUNCTIONS = ('tanh', 'sigmoid', 'softsign')
RECURRENT_KEYS = (*COMMON_KEYS, 'ReuseFactor', 'RecurrentReuseFactor', 'Strategy', 'Static', 'TableSize')
RECURRENT_SETTINGS = ('reuse_factor', 'recurrent_reuse_factor', 'strategy', 'static', 'table_size')
TABLE_PRECISION = 'fixed<18,8,TRN,WRAP,0>'
RECURRENT_WEIGHTS = ('weight', 'recurrent_weight', 'bias', 'recurrent_bias')
GATES = {'SimpleRNN': 1, 'LSTM': 4, 'GRU': 3}
# the table prefixes: the activation on the gate sums, the recurrent activation, the activation on c
TABLE_PREFIXES = ('act_', 'rec_', 'cell_')


def gate_count(layer: Layer) -> int:
    return GATES[layer.kind]


def _output_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
    shape, *initial = inputs
    attributes = layer.attributes
    states = (2 if layer.kind == 'LSTM' else 1) if attributes.get('initial_state') else 0
    if [tuple(state) for state in initial] != [(attributes['n_out'],)] * states:
        raise ValueError(
            f'{layer.describe()}: initial states of shapes {initial}, the layer expects {states} '
            f'of shape ({attributes["n_out"]},)'
        )
    expected = (attributes['n_timesteps'], attributes['n_features'])
    if tuple(shape) != expected:
        raise ValueError(f'{layer.describe()}: input of shape {shape}, the layer expects (steps, features) {expected}')
    if attributes.get('output_cell') and (layer.kind != 'LSTM' or attributes['return_sequences']):
        raise ValueError(f'{layer.describe()}: output_cell (the last c) needs an LSTM without return_sequences')
    if attributes['return_sequences']:
        return (attributes['n_timesteps'], attributes['n_out'])
    return (attributes['n_out'],)


def _weight_shapes(layer: Layer) -> dict[str, tuple[int, ...]]:
    columns = gate_count(layer) * layer.attributes['n_out']
    return {
        'weight': (layer.attributes['n_features'], columns),
        'recurrent_weight': (layer.attributes['n_out'], columns),
        'bias': (columns,),
        'recurrent_bias': (columns,),
    }


def recurrent_weight_values(layer: Layer) -> np.ndarray:
    """U as the kernel reads it: (n_out, G n_out), except GRU with reset_after False, whose U_zr
    (n_out, 2 n_out) comes first and U_h (n_out, n_out) after it, both row-major (flattened)."""
    weights = np.asarray(layer.weights['recurrent_weight'], dtype=np.float64)
    if layer.kind != 'GRU' or layer.attributes['reset_after']:
        return weights
    n_out = layer.attributes['n_out']
    return np.concatenate([weights[:, : 2 * n_out].ravel(), weights[:, 2 * n_out :].ravel()])


def _fixed(precision: object) -> FixedPrecisionType:
    assert isinstance(precision, FixedPrecisionType), f'expected a fixed-point type, got {precision}'
    return precision


def recurrent_types(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Weights fitted to their values; state and cell the default precision (as in hls4ml), the result
    the state's type; accum an overflow-free type for the gate sums x W + b + h U + rb."""
    fit_weights(layer, RECURRENT_WEIGHTS, context)
    types, default = layer.types, context.default_precision
    for var in ('state', 'cell'):
        if var in types and is_auto(types[var]) and isinstance(default, FixedPrecisionType):
            types[var] = default
    written = 'cell' if layer.attributes.get('output_cell') else 'state'
    if is_auto(types['result']) and not is_auto(types[written]):
        types['result'] = types[written]
    source = input_fixed(graph, layer, context)
    if not is_auto(types['accum']) or source is None or is_auto(types['state']):
        return
    columns = gate_count(layer) * layer.attributes['n_out']
    kernel = quantized_weights(layer, 'weight').reshape(-1, columns)
    recurrent = quantized_weights(layer, 'recurrent_weight').reshape(-1, columns)
    biases = np.abs(quantized_weights(layer, 'bias')) + np.abs(quantized_weights(layer, 'recurrent_bias'))
    state = _fixed(types['state'])
    bound = np.abs(kernel).sum(axis=0) * magnitude(source) + np.abs(recurrent).sum(axis=0) * magnitude(state) + biases
    weight_types = [_fixed(types[var]) for var in RECURRENT_WEIGHTS]
    fraction = max(
        source.fractional + weight_types[0].fractional,
        state.fractional + weight_types[1].fractional,
        weight_types[2].fractional,
        weight_types[3].fractional,
    )
    types['accum'] = sum_type(fraction, float(bound.max(initial=0.0)), True, context)


def recurrent_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
    """The tables of the gate functions that read one: act_ and rec_ read accum_t, cell_ (LSTM) cell_t."""
    size = layer.attributes.get('table_size', 1024)
    functions = {'act_': layer.attributes['activation'], 'rec_': layer.attributes.get('recurrent_activation')}
    inputs = {'act_': layer.types['accum'], 'rec_': layer.types['accum']}
    if layer.kind == 'LSTM':
        functions['cell_'] = layer.attributes['activation']
        inputs['cell_'] = layer.types['cell']
    return {
        prefix: activation_table(function, inputs[prefix], layer.types[f'{prefix}table'], size)
        for prefix, function in functions.items()
        if function in TABLE_FUNCTIONS
    }


def gate_functions(layer: Layer) -> dict[str, reference.GateFunction]:
    """Each gate function of the layer with its table (or, for linear and relu, its input's type)."""
    tables = recurrent_tables(layer, _fixed(layer.types['accum']))
    functions = {'act_': layer.attributes['activation'], 'rec_': layer.attributes.get('recurrent_activation', 'linear')}
    if layer.kind == 'LSTM':
        functions['cell_'] = layer.attributes['activation']
    gates = {}
    for prefix, function in functions.items():
        spec = tables.get(prefix)
        value_type = spec.table_type if spec else _fixed(layer.types['cell' if prefix == 'cell_' else 'accum'])
        gates[prefix] = _kernels().GateFunction(function, value_type, spec)
    return gates


def _rows(array: FixedArray, columns: int) -> FixedArray:
    return FixedArray(array.raw.reshape(-1, columns), array.type, array.family)


def _inputs(
    layer: Layer, family: str, inputs: list[FixedArray]
) -> tuple[reference.RecurrentWeights, reference.RecurrentTypes, reference.Sequence]:
    columns = gate_count(layer) * layer.attributes['n_out']
    types = layer.types
    recurrent = quantize(recurrent_weight_values(layer), types['recurrent_weight'], family)
    weights = _kernels().RecurrentWeights(
        _rows(quantize(layer.weights['weight'], types['weight'], family), columns),
        _rows(recurrent, columns),
        quantize(layer.weights['bias'], types['bias'], family),
        quantize(layer.weights['recurrent_bias'], types['recurrent_bias'], family),
    )
    state = _fixed(types['state'])
    kinds = _kernels().RecurrentTypes(
        _fixed(types['accum']), state, _fixed(types.get('cell', state)), _fixed(types['result'])
    )
    attributes = layer.attributes
    sequence = _kernels().Sequence(
        attributes['n_timesteps'],
        attributes['n_features'],
        bool(attributes['return_sequences']),
        bool(attributes.get('backward', False)),
        bool(attributes.get('aligned', False)),
        bool(attributes.get('output_cell', False)),
        tuple(inputs[1:]),
    )
    return weights, kinds, sequence


def recurrent_record(
    name: str, reference_kernel: Reference, types: dict[str, str], choices: dict[str, tuple[str, ...]]
) -> KindRecord:
    return KindRecord(
        name,
        types=types,
        config_keys=RECURRENT_KEYS,
        output_shape=_output_shape,
        precision_rule=recurrent_types,
        reference=reference_kernel,
        weights=RECURRENT_WEIGHTS,
        settings=RECURRENT_SETTINGS,
        weight_shapes=_weight_shapes,
        choices=choices,
        tables=recurrent_tables,
    )


WEIGHT_TYPES = {'weight': 'auto', 'recurrent_weight': 'auto', 'bias': 'auto', 'recurrent_bias': 'auto'}
SIMPLE_TYPES = {'result': 'auto', 'accum': 'auto', 'state': 'auto', **WEIGHT_TYPES, 'act_table': TABLE_PRECISION}
GATED_TYPES = {**SIMPLE_TYPES, 'rec_table': TABLE_PRECISION}
LSTM_TYPES = {**GATED_TYPES, 'cell': 'auto', 'cell_table': TABLE_PRECISION}
GATED_CHOICES = {
    'activation': RECURRENT_FUNCTIONS,
    'recurrent_activation': ('sigmoid', *(name for name in RECURRENT_FUNCTIONS if name != 'sigmoid')),
}


class Recurrent:
    """The recurrent kinds (`Kind` inherits them)."""

    # ---- SimpleRNN: h = act(x W + b + h U + rb) ------------------------------------------------------

    @staticmethod
    def _simple_rnn_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        weights, types, sequence = _inputs(layer, family, inputs)
        return _kernels().simple_rnn(inputs[0], weights, gate_functions(layer)['act_'], types, sequence)

    SIMPLE_RNN = recurrent_record('SimpleRNN', _simple_rnn_reference, SIMPLE_TYPES, {'activation': RECURRENT_FUNCTIONS})

    # ---- LSTM: gates i f c o, cell state c ----------------------------------------------------------

    @staticmethod
    def _lstm_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        weights, types, sequence = _inputs(layer, family, inputs)
        gates = gate_functions(layer)
        functions = (gates['act_'], gates['rec_'], gates['cell_'])
        return _kernels().lstm(inputs[0], weights, functions, types, sequence)

    LSTM = recurrent_record('LSTM', _lstm_reference, LSTM_TYPES, GATED_CHOICES)

    # ---- GRU: gates z r h, reset_after both ways ----------------------------------------------------

    @staticmethod
    def _gru_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        weights, types, sequence = _inputs(layer, family, inputs)
        gates = gate_functions(layer)
        reset_after = bool(layer.attributes['reset_after'])
        return _kernels().gru(inputs[0], weights, (gates['act_'], gates['rec_']), types, sequence, reset_after)

    GRU = recurrent_record('GRU', _gru_reference, GATED_TYPES, GATED_CHOICES)
