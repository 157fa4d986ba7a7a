"""Lowering of the gathers (`Gather`, `Reduce`, `Interpolate`): the config struct and the index table,
a constant array of unsigned input positions (nnet_gather.h); an interpolation's weights beside it."""

from __future__ import annotations

import numpy as np

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.precision_rules import unsigned_integer


def _gather_impl(layer: Layer, context: LoweringContext, function: str, base: str) -> LayerImpl:
    impl = context.start(layer, 'nnet_gather.h', f'nnet::{base}', f'nnet::{function}')
    impl.statics += [
        ('unsigned', 'n_out', str(context.graph.tensors[layer.outputs[0]].size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    index = np.asarray(layer.attributes['index'], dtype=np.int64)
    name = f'i{context.index[layer.name]}'
    precision = unsigned_integer(int(index.max(initial=0)))
    impl.arrays.append(const_array(name, 'unsigned', index, precision, context.family, f'{layer.describe()}, index'))
    impl.arguments.append(name)
    return impl


@lowering(Kind.GATHER, stream='nnet_gather_stream.h')
def lower_gather(layer: Layer, context: LoweringContext) -> LayerImpl:
    return _gather_impl(layer, context, 'gather', 'gather_config')


@lowering(Kind.REDUCE, stream='nnet_gather_stream.h')
def lower_reduce(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = _gather_impl(layer, context, 'reduce', 'reduce_config')
    impl.statics += [
        ('unsigned', 'n_reduce', str(layer.attributes['n_reduce'])),
        ('unsigned', 'op', f'nnet::reduce_{layer.attributes["op"]}'),
    ]
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    return impl


@lowering(Kind.INTERPOLATE, stream='nnet_gather_stream.h')
def lower_interpolate(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = _gather_impl(layer, context, 'interpolate', 'interpolate_config')
    impl.statics.append(('unsigned', 'n_reduce', str(layer.attributes['n_reduce'])))
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in ('accum', 'weight')]
    impl.arguments.append(context.array(impl, layer, 'w', 'weight', 'weight'))
    return impl
