"""Lowering of the layers that move or combine values (config contracts: docs/kernels.md)."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_spatial import geometry
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.types import FixedPrecisionType

MOVES: dict[str, tuple[str, str]] = {  # kind -> (kernel, config base); a 1-D base sets the height members
    Kind.RESHAPE: ('copy', 'copy_config'),
    Kind.TRANSPOSE: ('transpose', 'transpose_config'),
    Kind.ZERO_PADDING1D: ('zeropad', 'padding1d_config'),
    Kind.ZERO_PADDING2D: ('zeropad', 'padding2d_config'),
    Kind.CROPPING1D: ('cropping', 'cropping1d_config'),
    Kind.CROPPING2D: ('cropping', 'cropping2d_config'),
    Kind.RESIZE: ('upsampling', 'upsampling1d_config'),
    Kind.RESIZE2D: ('upsampling', 'upsampling2d_config'),
}
HALF = FixedPrecisionType(1, 0, False)  # holds 0.5 exactly: the average's halving


@lowering(
    Kind.RESHAPE,
    Kind.TRANSPOSE,
    Kind.ZERO_PADDING1D,
    Kind.ZERO_PADDING2D,
    Kind.CROPPING1D,
    Kind.CROPPING2D,
    Kind.RESIZE,
    Kind.RESIZE2D,
    stream='nnet_array_stream.h',
)
def lower_move(layer: Layer, context: LoweringContext) -> LayerImpl:
    function, base = MOVES[layer.kind]
    if layer.kind == Kind.RESHAPE and context.io_stream:  # a stream changes its packing, not its order
        function, base = 'repack', 'repack_config'
    impl = context.start(layer, 'nnet_array.h', f'nnet::{base}', f'nnet::{function}')
    impl.statics.append(('unsigned', 'io_type', context.io_type))
    if layer.kind == Kind.RESHAPE:
        impl.statics.append(('unsigned', 'n_elem', str(context.graph.tensors[layer.inputs[0]].size)))
    elif layer.kind == Kind.TRANSPOSE:
        impl.statics += _transpose_statics(context.graph.tensors[layer.inputs[0]].shape, layer.attributes['perm'])
    else:
        impl.statics += geometry(layer)
    return impl


def _transpose_statics(shape: tuple[int, ...], perm: tuple[int, ...]) -> list[tuple[str, str, str]]:
    dims = (*shape, 1, 1)[:3]
    axes = (*perm, 1, 2)[:3] if len(perm) == 1 else (*perm, 2)[:3]
    statics = [('unsigned', 'dims', str(len(shape)))]
    statics += [('unsigned', f'd{index}', str(size)) for index, size in enumerate(dims)]
    statics += [('unsigned', f'perm_{index}', str(axis)) for index, axis in enumerate(axes)]
    return statics


@lowering(Kind.DOT, Kind.MERGE, Kind.CONCATENATE, stream='nnet_merge_stream.h')
def lower_combine(layer: Layer, context: LoweringContext) -> LayerImpl:
    if layer.kind == Kind.DOT:
        impl = context.start(layer, 'nnet_merge.h', 'nnet::dot_config', 'nnet::dot1d')
        impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    elif layer.kind == Kind.CONCATENATE:
        shapes = [context.graph.tensors[name].shape for name in layer.inputs]
        impl = context.start(layer, 'nnet_merge.h', 'nnet::concat_config', f'nnet::concatenate{len(shapes[0])}d')
        for position, shape in enumerate(shapes, start=1):
            padded = (*shape, 1, 1)[:3]
            impl.statics += [('unsigned', f'n_elem{position}_{axis}', str(size)) for axis, size in enumerate(padded)]
        impl.statics.append(('unsigned', 'axis', str(layer.attributes['axis'])))
    else:
        operation = layer.attributes['op']
        impl = context.start(layer, 'nnet_merge.h', 'nnet::merge_config', f'nnet::{operation}')
        impl.statics.append(('unsigned', 'n_elem', str(context.graph.tensors[layer.inputs[0]].size)))
        if operation == 'average':
            impl.typedefs.append(('half_t', HALF.spelling(context.family)))
    impl.statics.append(('unsigned', 'io_type', context.io_type))
    return impl


@lowering(Kind.CLONE, stream='nnet_stream.h')  # a stream kernel already
def lower_clone(layer: Layer, context: LoweringContext) -> LayerImpl:
    """io_stream fan-out: one stream read once, written to every reader's own stream."""
    impl = context.start(layer, 'nnet_stream.h', 'nnet::clone_config', 'nnet::clone')
    impl.arguments += [context.tensor(name) for name in layer.outputs[1:]]
    impl.statics += [('unsigned', 'n_elem', str(layer.attributes['n_elem'])), ('unsigned', 'io_type', context.io_type)]
    return impl
