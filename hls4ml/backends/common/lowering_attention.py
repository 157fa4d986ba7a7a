"""Lowering of the attention building blocks: the Einsum of two run-time tensors and EinsumDense
(`nnet_einsum.h`; the loop plan, hls4ml/model/einsum.py, becomes the sizes and strides of the config
struct; EinsumDense adds its weight and bias arrays)."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.attention import graph_plan

STRIDE_NAMES = {
    'first': ('first_batch_stride', 'first_row_stride', 'first_inner_stride'),
    'second': ('second_batch_stride', 'second_inner_stride', 'second_column_stride'),
    'output': ('out_batch_stride', 'out_row_stride', 'out_column_stride'),
}


@lowering(Kind.EINSUM, stream='nnet_einsum_stream.h')
def lower_einsum(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_einsum.h', 'nnet::einsum_config', 'nnet::einsum')
    impl.statics += _plan_statics(layer, context, context.graph.tensors[layer.inputs[1]].size)
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    return impl


@lowering(Kind.EINSUM_DENSE, stream='nnet_einsum_stream.h')
def lower_einsum_dense(layer: Layer, context: LoweringContext) -> LayerImpl:
    """The einsum of the input with the constant kernel (the second operand), plus a bias per output."""
    impl = context.start(layer, 'nnet_einsum.h', 'nnet::einsum_config', 'nnet::einsum_dense')
    impl.statics += _plan_statics(layer, context, layer.weights['weight'].size)
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in ('accum', 'weight', 'bias')]
    impl.arguments += [
        context.array(impl, layer, 'w', 'weight', 'weight'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
    ]
    return impl


def _plan_statics(layer: Layer, context: LoweringContext, second_size: int) -> list[tuple[str, str, str]]:
    """The config members of `einsum_config` beyond n_in: sizes, loop sizes, strides, strategy."""
    plan = graph_plan(context.graph, layer)
    statics = [
        ('unsigned', 'n_in2', str(second_size)),
        ('unsigned', 'n_out', str(context.graph.tensors[layer.outputs[0]].size)),
    ]
    loops = ('n_batch', 'n_rows', 'n_columns', 'n_inner')
    statics += [('unsigned', name, str(size)) for name, size in zip(loops, plan.sizes, strict=True)]
    for tensor, names in STRIDE_NAMES.items():
        strides = getattr(plan, tensor)
        statics += [('unsigned', name, str(stride)) for name, stride in zip(names, strides, strict=True)]
    return [
        *statics,
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{layer.attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(layer.attributes['reuse_factor'])),
    ]
