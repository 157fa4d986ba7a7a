"""Lowering of the convolution and pooling layers (config contracts: docs/kernels.md)."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_distributed import add_adder_graph
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import CONVOLUTIONS, DEPTHWISE_CONVOLUTIONS, GLOBAL_POOLINGS, POOLINGS

GEOMETRY = (
    'in_height',
    'in_width',
    'n_chan',
    'filt_height',
    'filt_width',
    'n_filt',
    'stride_height',
    'stride_width',
    'pad_top',
    'pad_bottom',
    'pad_left',
    'pad_right',
    'out_height',
    'out_width',
    'pool_height',
    'pool_width',
    'crop_top',
    'crop_bottom',
    'crop_left',
    'crop_right',
    'height_factor',
    'width_factor',
)


def geometry(layer: Layer, rename: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """The layer's spatial attributes as config statics (hls4ml 1.x names), some renamed."""
    rename = rename or {}
    return [
        ('unsigned', rename.get(name, name), str(layer.attributes[name]))
        for name in GEOMETRY
        if name in layer.attributes
    ]


def _rank(layer: Layer) -> str:
    return '2d' if 'in_height' in layer.attributes else '1d'


@lowering(*CONVOLUTIONS, stream='nnet_conv_stream.h')
def lower_convolution(layer: Layer, context: LoweringContext) -> LayerImpl:
    depthwise = layer.kind in DEPTHWISE_CONVOLUTIONS
    name = f'{"depthwise_" if depthwise else ""}conv{_rank(layer)}'
    # One kernel for the four layers: the config base says 1-D (height 1) and depthwise.
    impl = context.start(layer, 'nnet_conv.h', f'nnet::{name}_config', 'nnet::conv')
    impl.statics += geometry(layer)
    impl.statics += [
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{layer.attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(layer.attributes['reuse_factor'])),
        ('unsigned', 'parallelization_factor', str(layer.attributes['parallelization_factor'])),
    ]
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in ('accum', 'weight', 'bias')]
    impl.arguments += [
        context.array(impl, layer, 'w', 'weight', 'weight'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
    ]
    impl.statics.append(('unsigned', 'n_zeros', str(impl.arrays[0].zeros)))
    add_adder_graph(impl, layer, context)
    return impl


@lowering(*POOLINGS, *GLOBAL_POOLINGS, stream='nnet_pooling_stream.h')
def lower_pooling(layer: Layer, context: LoweringContext) -> LayerImpl:
    kernel = f'{"global_" if layer.kind in GLOBAL_POOLINGS else ""}pooling'
    # The config base says 1-D (height 1) or 2-D; the kernel is the same.
    impl = context.start(layer, 'nnet_pooling.h', f'nnet::{kernel}{_rank(layer)}_config', f'nnet::{kernel}')
    impl.statics += geometry(layer, {'n_chan': 'n_filt'})  # hls4ml calls the pooled channels n_filt
    impl.statics += [
        ('unsigned', 'pool_op', f'nnet::pool_{layer.attributes["pool_op"]}'),
        ('unsigned', 'io_type', context.io_type),
    ]
    impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    return impl
