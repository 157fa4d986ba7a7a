"""Lowering of the soft top-k and the two router kinds (docs/topk.md, docs/moe.md): config structs, tables."""

from __future__ import annotations

import math

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_router import (
    soft_expert_mask_part,
    soft_function,
    soft_topk_cubic_part,
    soft_topk_part,
)
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import emit_tables
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.reference.sinkhorn import DEFAULT_PLAN_BITS, sinkhorn_types
from hls4ml.model.reference.soft_topk import (
    layer_soft_topk_types,
    soft_topk_power,
)
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER, layer_soft_topk_cubic_types
from hls4ml.model.types import FixedPrecisionType


def _input_type(layer: Layer, context: LoweringContext) -> FixedPrecisionType:
    precision = context.graph.input_type(layer)
    assert isinstance(precision, FixedPrecisionType)
    return precision


@lowering(Kind.SOFT_TOPK, stream='nnet_softtopk_stream.h')
def lower_soft_topk(layer: Layer, context: LoweringContext) -> LayerImpl:
    """The internal types from `soft_topk_types`, the firmware's l and its derived constants as
    doubles, the reciprocal table of the polish as a constant array."""
    if soft_topk_power(layer.attributes.get('p', 2.0), layer.attributes['mode']) == CUBIC_POWER:
        return _lower_soft_topk_cubic(layer, context)
    impl = context.start(layer, 'nnet_softtopk.h', 'nnet::soft_topk_config', 'nnet::soft_topk')
    attributes = layer.attributes
    types = layer_soft_topk_types(layer, _input_type(layer, context))
    impl.statics.append(('unsigned', 'io_type', context.io_type))
    soft_topk_part(layer, context, impl, (attributes['n_in'], attributes['k']), attributes['mode'], types)
    return impl


def _lower_soft_topk_cubic(layer: Layer, context: LoweringContext) -> LayerImpl:
    """p = 4/3: the types of `soft_topk_cubic_types`, 1 / l as a double; no table."""
    impl = context.start(layer, 'nnet_softtopk_cubic.h', 'nnet::soft_topk_cubic_config', 'nnet::soft_topk_cubic')
    types = layer_soft_topk_cubic_types(layer, _input_type(layer, context))
    io_type = (('unsigned', 'io_type', context.io_type),)
    soft_topk_cubic_part(layer, context, impl, layer.attributes['k'], types, io_type)
    return impl


@lowering(Kind.ROUTER, stream='nnet_router_stream.h')
def lower_router(layer: Layer, context: LoweringContext) -> LayerImpl:
    """k, the gate normalisation and the output; the stable-softmax exp and reciprocal tables; the
    tokens (n_rows, written only beyond the default 1) when the logits are (tokens, n_in)."""
    impl = context.start(layer, 'nnet_router.h', 'nnet::router_config', 'nnet::router')
    attributes = layer.attributes
    tables = layer_tables(layer, _input_type(layer, context))
    shape = context.graph.tensors[layer.outputs[0]].shape
    impl.statics[-1] = ('unsigned', 'n_in', str(attributes['n_in']))  # one token's logits
    impl.statics += [
        ('unsigned', 'k', str(attributes['k'])),
        ('unsigned', 'n_out', str(shape[-1])),
        *([('unsigned', 'n_rows', str(math.prod(shape[:-1])))] if len(shape) > 1 else []),
        ('bool', 'renormalize', 'true' if attributes['renormalize'] else 'false'),
        ('unsigned', 'output', f'nnet::router_{attributes["output"]}'),
        *([('unsigned', 'capacity', str(attributes['capacity']))] if attributes.get('capacity') else []),
        ('unsigned', 'table_size', str(tables['exp_'].size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    if attributes.get('sinkhorn_iterations'):
        _sinkhorn_part(layer, context, impl, math.prod(shape[:-1]))
    emit_tables(layer, context, impl, tables)
    return impl


def _sinkhorn_part(layer: Layer, context: LoweringContext, impl: LayerImpl, n_tokens: int) -> None:
    """The Sinkhorn plan's iterations, its fraction bits and its two internal types (`sinkhorn_types`)."""
    attributes = layer.attributes
    bits = attributes.get('sinkhorn_bits', DEFAULT_PLAN_BITS)
    plan, remainder = sinkhorn_types(bits, n_tokens, attributes['n_in'])
    impl.statics += [
        ('unsigned', 'sinkhorn_iterations', str(attributes['sinkhorn_iterations'])),
        ('unsigned', 'plan_fraction', str(bits)),
    ]
    impl.typedefs += [('plan_t', plan.spelling(context.family)), ('remainder_t', remainder.spelling(context.family))]


@lowering(Kind.EXPERT_CHOICE_ROUTER, stream='nnet_router_stream.h')
def lower_expert_choice(layer: Layer, context: LoweringContext) -> LayerImpl:
    """Rows of n_slice = n_in expert logits per token, the group's tokens and capacity; the tables of
    the stable softmax of each row; with l > 0 the soft top-k's part (`soft_expert_mask_part`)."""
    attributes = layer.attributes
    soft = attributes.get('l', 0) > 0
    header, function = (
        ('nnet_router_soft.h', soft_function(layer, 'nnet::soft_expert_choice'))
        if soft
        else ('nnet_router.h', 'nnet::expert_choice')
    )
    impl = context.start(layer, header, 'nnet::expert_choice_config', function)
    tables = layer_tables(layer, _input_type(layer, context))
    impl.statics += [
        ('unsigned', 'n_slice', str(attributes['n_in'])),
        ('unsigned', 'n_tokens', str(attributes['n_tokens'])),
        ('unsigned', 'capacity', str(attributes['capacity'])),
        ('unsigned', 'table_size', str(tables['exp_'].size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    emit_tables(layer, context, impl, tables)
    if soft:
        soft_expert_mask_part(layer, context, impl)
    return impl
