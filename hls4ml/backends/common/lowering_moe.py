"""Lowering of the mixture of Dense experts (docs/moe.md, "Conditional experts"): `nnet::moe`."""

from __future__ import annotations

import math

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import emit_tables
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.experts import logits_type, moe_tables

MOE_TYPE_VARS = ('accum', 'weight', 'bias', 'gate', 'gate_accum', 'hidden', 'weight2', 'bias2')


@lowering(Kind.MOE, stream='nnet_moe_stream.h')
def lower_moe(layer: Layer, context: LoweringContext) -> LayerImpl:
    """Features and logits in; the E experts' weights and biases as flat arrays ([expert][n_in][n_out];
    FFN experts, `nnet::moe_ffn`, two such layers); the Router's stable-softmax tables built for the
    logits' type; the tokens (n_rows)."""
    attributes = layer.attributes
    hidden = attributes.get('n_hidden', 0)
    function = 'nnet::moe_ffn' if hidden else 'nnet::moe'
    impl = context.start(layer, 'nnet_moe.h', 'nnet::moe_config', function)
    shape = context.graph.tensors[layer.outputs[0]].shape
    tables = moe_tables(layer, logits_type(context.graph, layer))
    impl.statics[-1] = ('unsigned', 'n_in', str(attributes['n_in']))  # one token's features
    impl.statics += [
        ('unsigned', 'n_out', str(attributes['n_out'])),
        ('unsigned', 'n_hidden', str(hidden)),
        ('unsigned', 'n_experts', str(attributes['n_experts'])),
        ('unsigned', 'k', str(attributes['k'])),
        ('unsigned', 'n_rows', str(math.prod(shape[:-1]))),
        ('bool', 'renormalize', 'true' if attributes['renormalize'] else 'false'),
        ('unsigned', 'table_size', str(tables['exp_'].size)),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(attributes['reuse_factor'])),
    ]
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in MOE_TYPE_VARS]
    impl.arguments += [
        context.array(impl, layer, 'w', 'weight', 'weight'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
    ]
    if hidden:
        impl.arguments += [
            context.array(impl, layer, 'w2_', 'weight2', 'weight2'),
            context.array(impl, layer, 'b2_', 'bias2', 'bias2'),
        ]
    emit_tables(layer, context, impl, tables)
    return impl
