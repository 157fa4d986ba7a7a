"""Lowering of the attention building blocks: the Einsum of two run-time tensors (`nnet_einsum.h`;
its loop plan, hls4ml/model/einsum.py, becomes the sizes and strides of the config struct)."""

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
    plan = graph_plan(context.graph, layer)
    impl = context.start(layer, 'nnet_einsum.h', 'nnet::einsum_config', 'nnet::einsum')
    graph = context.graph
    impl.statics += [
        ('unsigned', 'n_in2', str(graph.tensors[layer.inputs[1]].size)),
        ('unsigned', 'n_out', str(graph.tensors[layer.outputs[0]].size)),
    ]
    loops = ('n_batch', 'n_rows', 'n_columns', 'n_inner')
    impl.statics += [('unsigned', name, str(size)) for name, size in zip(loops, plan.sizes, strict=True)]
    for tensor, names in STRIDE_NAMES.items():
        strides = getattr(plan, tensor)
        impl.statics += [('unsigned', name, str(stride)) for name, stride in zip(names, strides, strict=True)]
    impl.statics += [
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{layer.attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(layer.attributes['reuse_factor'])),
    ]
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    return impl
