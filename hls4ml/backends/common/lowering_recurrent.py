"""Lowering of the recurrent kinds (SimpleRNN, LSTM, GRU): one config struct, the four weight arrays and
up to three tables for `nnet::simple_rnn`, `nnet::lstm`, `nnet::gru` (templates/nnet/nnet_recurrent.h).

A gate function without a table (linear, relu; and the cell table of SimpleRNN and GRU) gets the type
of its input as its table type, so its value is written without loss, and a null table pointer.
"""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import emit_tables
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.recurrent import RECURRENT_FUNCTIONS, TABLE_PREFIXES, gate_count, recurrent_weight_values
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.types import FixedPrecisionType

KERNELS: dict[str, str] = {Kind.SIMPLE_RNN: 'simple_rnn', Kind.LSTM: 'lstm', Kind.GRU: 'gru'}


def _flag(value: object) -> str:
    return 'true' if value else 'false'


def _function(name: str) -> str:
    if name not in RECURRENT_FUNCTIONS:
        raise ValueError(f'recurrent gate function {name!r} is not one of {", ".join(RECURRENT_FUNCTIONS)}')
    return f'nnet::recurrent_{name}'


def _statics(layer: Layer, context: LoweringContext) -> list[tuple[str, str, str]]:
    attributes = layer.attributes
    return [
        ('unsigned', 'n_steps', str(attributes['n_timesteps'])),
        ('unsigned', 'n_features', str(attributes['n_features'])),
        ('unsigned', 'n_state', str(attributes['n_out'])),
        ('unsigned', 'n_gates', str(gate_count(layer))),
        ('bool', 'return_sequences', _flag(attributes['return_sequences'])),
        ('bool', 'backward', _flag(attributes.get('backward', False))),
        ('bool', 'aligned', _flag(attributes.get('aligned', False))),
        ('bool', 'reset_after', _flag(attributes.get('reset_after', True))),
        ('bool', 'static_cell', _flag(attributes.get('static', True))),
        ('unsigned', 'activation', _function(attributes['activation'])),
        ('unsigned', 'recurrent_activation', _function(attributes.get('recurrent_activation', 'linear'))),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(attributes['reuse_factor'])),
        ('unsigned', 'recurrent_reuse_factor', str(attributes['recurrent_reuse_factor'])),
        ('unsigned', 'table_size', str(attributes.get('table_size', 1024))),
    ]


def _weight_arrays(layer: Layer, context: LoweringContext, impl: LayerImpl) -> None:
    """W, U (in the kernel's order: `recurrent_weight_values`), b and rb, as the first four arguments."""
    index = context.index[layer.name]
    precision = layer.types['recurrent_weight']
    assert isinstance(precision, FixedPrecisionType)
    values = recurrent_weight_values(layer)
    name = f'u{index}'
    where = f"{layer.describe()}, weights 'recurrent_weight'"
    recurrent = const_array(
        name, context.type_name(layer, 'recurrent_weight'), values, precision, context.family, where
    )
    impl.arguments.append(context.array(impl, layer, 'w', 'weight', 'weight'))
    impl.arrays.append(recurrent)
    impl.arguments.append(name)
    impl.arguments.append(context.array(impl, layer, 'b', 'bias', 'bias'))
    impl.arguments.append(context.array(impl, layer, 'rb', 'recurrent_bias', 'recurrent_bias'))


def _tables(layer: Layer, context: LoweringContext, impl: LayerImpl) -> None:
    """The three tables in the kernel's order; a function without one gets its input's type and nullptr."""
    tables = layer_tables(layer, _fixed(layer.types['accum']))
    state_var = 'cell' if layer.kind == Kind.LSTM else 'state'
    for prefix in TABLE_PREFIXES:
        if prefix in tables:
            emit_tables(layer, context, impl, {prefix: tables[prefix]})
            continue
        source = state_var if prefix == 'cell_' else 'accum'
        impl.statics += [('int', f'{prefix}table_shift', '0'), ('int', f'{prefix}table_start', '0')]
        impl.typedefs += [
            (f'{prefix}table_t', context.type_name(layer, source)),
            (f'{prefix}index_t', context.type_name(layer, source)),
        ]
        impl.arguments.append('nullptr')


def _fixed(precision: object) -> FixedPrecisionType:
    assert isinstance(precision, FixedPrecisionType), f'expected a fixed-point type, got {precision}'
    return precision


@lowering(Kind.SIMPLE_RNN, Kind.LSTM, Kind.GRU, stream='nnet_recurrent_stream.h')
def lower_recurrent(layer: Layer, context: LoweringContext) -> LayerImpl:
    initial = bool(layer.attributes.get('initial_state'))
    function = f'nnet::{KERNELS[layer.kind]}' + ('_from' if initial else '')  # _from: h0 (c0) are inputs
    impl = context.start(layer, 'nnet_recurrent.h', 'nnet::recurrent_config', function)
    impl.statics += _statics(layer, context)
    if initial:  # only then, so the projects of other layers stay as they were
        impl.statics.append(('bool', 'initial_state', 'true'))
    if layer.attributes.get('output_cell'):  # only then, so the projects of other layers stay as they were
        impl.statics.append(('bool', 'output_cell', 'true'))
    cell = 'cell' if layer.kind == Kind.LSTM else 'state'
    impl.typedefs += [
        (f'{var}_t', context.type_name(layer, var))
        for var in ('accum', 'weight', 'recurrent_weight', 'bias', 'recurrent_bias', 'state')
    ]
    impl.typedefs.append(('cell_t', context.type_name(layer, cell)))
    _weight_arrays(layer, context, impl)
    _tables(layer, context, impl)
    return impl
