"""Handlers of the Keras 3 convolution, pooling, padding, cropping and upsampling layers.

'same' padding becomes explicit pad amounts (Keras puts the extra one after), so the kernels only
know valid windows over an input padded with zeros. A fused activation becomes its own layer, and
SeparableConv becomes a depthwise convolution followed by a pointwise (1x1) convolution. The handlers
build channels-last layers; `accepts_channels_first` converts data_format='channels_first' around them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.converters.conv_kernels import block_diagonal, dilated
from hls4ml.converters.keras.channels_first import LAYOUT_KINDS, accepts_channels_first
from hls4ml.converters.keras.handlers import (
    ACTIVATION_KINDS,
    Source,
    UnsupportedLayer,
    array_of,
    fused_activation,
    handles,
)
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import (
    CONV_OF_RANK,
    CROPPING_OF_RANK,
    DEPTHWISE_CONV_OF_RANK,
    GLOBAL_POOLING_OF_RANK,
    POOLING_OF_RANK,
    ZERO_PADDING_OF_RANK,
    Kind,
    KindRecord,
)
from hls4ml.model.shape_rules import same_padding, window_output

AXES = {1: ('width',), 2: ('height', 'width')}
PAD_NAMES = {'height': ('pad_top', 'pad_bottom'), 'width': ('pad_left', 'pad_right')}


def _tuple(value: Any, rank: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (int(value),) * rank


def _check_channels_last(source: Source, rank: int) -> None:
    config = source.config
    if config.get('data_format', 'channels_last') != 'channels_last':
        raise UnsupportedLayer(
            f'{source.origin}: data_format {config["data_format"]!r} is not supported (channels_last)'
        )
    if len(source.input_shapes[0]) != rank + 1:
        raise UnsupportedLayer(f'{source.origin}: expects a rank-{rank + 1} input, got {source.input_shapes[0]}')


def window_attributes(source: Source, rank: int, window: tuple[int, ...], strides: tuple[int, ...]) -> dict:
    """in_*, n_chan, filt_/pool_ sizes, strides, explicit pads and out_* of a sliding window layer."""
    _check_channels_last(source, rank)
    padding = source.config.get('padding', 'valid')
    if padding not in ('valid', 'same'):
        raise UnsupportedLayer(f"{source.origin}: padding {padding!r} is not supported ('valid' or 'same')")
    shape = source.input_shapes[0]
    attributes: dict[str, Any] = {'n_chan': shape[-1], 'data_format': 'channels_last'}
    for axis, size, length, stride in zip(AXES[rank], shape[:-1], window, strides, strict=True):
        before, after = same_padding(size, length, stride) if padding == 'same' else (0, 0)
        attributes[f'in_{axis}'] = size
        attributes[f'stride_{axis}'] = stride
        attributes[PAD_NAMES[axis][0]], attributes[PAD_NAMES[axis][1]] = before, after
        attributes[f'out_{axis}'] = window_output(size, length, stride, before, after)
        if attributes[f'out_{axis}'] < 1:
            raise UnsupportedLayer(f'{source.origin}: the window {window} does not fit the input {shape}')
    return attributes


def _check_plain_convolution(source: Source, rank: int) -> None:
    """HGQ2's QConv layers: their quantized kernels are taken as they are (no dilation, no groups)."""
    config = source.config
    if _tuple(config.get('dilation_rate', 1), rank) != (1,) * rank:
        raise UnsupportedLayer(f'{source.origin}: dilated convolutions are not supported')
    if config.get('groups', 1) != 1:
        raise UnsupportedLayer(f'{source.origin}: grouped convolutions (groups={config["groups"]}) are not supported')


def _expanded_kernel(source: Source, rank: int, kernel: np.ndarray, groups: int) -> np.ndarray:
    """A Keras kernel (*window, in / groups, out) with its dilation_rate and groups written into it
    (`conv_kernels`): zeros between the taps and between the groups; (*window, in, out)."""
    torch_layout = np.moveaxis(kernel, (-1, -2), (0, 1))
    torch_layout = dilated(torch_layout, _tuple(source.config.get('dilation_rate', 1), rank))
    if groups > 1:
        torch_layout = block_diagonal(torch_layout, groups, source.input_shapes[0][-1])
    return np.moveaxis(torch_layout, (0, 1), (-1, -2))


def _convolution(
    source: Source, rank: int, kind: KindRecord, kernel: np.ndarray, bias: np.ndarray, filters: int
) -> Layer:
    window = tuple(kernel.shape[:rank])
    strides = _tuple(source.config.get('strides', 1), rank)
    attributes = window_attributes(source, rank, window, strides)
    for axis, length in zip(AXES[rank], window, strict=True):
        attributes[f'filt_{axis}'] = length
    attributes['n_filt'] = filters
    return source.make(kind, weights={'weight': kernel, 'bias': bias}, **attributes)


def _bias(source: Source, layer: Any, size: int) -> np.ndarray:
    return array_of(layer.bias) if source.config.get('use_bias', True) else np.zeros(size)


@handles('Conv1D', 'Conv2D', produces=(Kind.CONV1D, Kind.CONV2D, *ACTIVATION_KINDS, *LAYOUT_KINDS))
@accepts_channels_first
def convolution(source: Source) -> list[Layer]:
    rank = 1 if type(source.layer).__name__ == 'Conv1D' else 2
    kernel = _expanded_kernel(source, rank, array_of(source.layer.kernel), int(source.config.get('groups', 1)))
    filters = kernel.shape[-1]
    layer = _convolution(source, rank, CONV_OF_RANK[rank], kernel, _bias(source, source.layer, filters), filters)
    return [layer, *fused_activation(source, source.config['activation'], source.output_shape(layer))]


def _depthwise_rank(source: Source) -> int:
    """The rank of a depthwise or separable convolution, after checking what the kernels support."""
    rank = 1 if type(source.layer).__name__.endswith('1D') else 2
    if source.config.get('depth_multiplier', 1) != 1:
        raise UnsupportedLayer(
            f'{source.origin}: depth_multiplier {source.config["depth_multiplier"]} is not supported (1)'
        )
    return rank


@handles(
    'DepthwiseConv1D',
    'DepthwiseConv2D',
    produces=(Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D, *ACTIVATION_KINDS, *LAYOUT_KINDS),
)
@accepts_channels_first
def depthwise_convolution(source: Source) -> list[Layer]:
    rank = _depthwise_rank(source)
    kernel = _expanded_kernel(source, rank, array_of(source.layer.kernel), 1)[..., 0]  # (*window, channels, 1)
    channels = kernel.shape[-1]
    layer = _convolution(
        source, rank, DEPTHWISE_CONV_OF_RANK[rank], kernel, _bias(source, source.layer, channels), channels
    )
    return [layer, *fused_activation(source, source.config['activation'], source.output_shape(layer))]


@handles(
    'SeparableConv1D',
    'SeparableConv2D',
    produces=(Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D, Kind.CONV1D, Kind.CONV2D, *ACTIVATION_KINDS, *LAYOUT_KINDS),
)
@accepts_channels_first
def separable_convolution(source: Source) -> list[Layer]:
    """Depthwise (named `<name>_depthwise`, no bias) then a pointwise 1x1 convolution carrying the bias."""
    rank = _depthwise_rank(source)
    depth_kernel = _expanded_kernel(source, rank, array_of(source.layer.depthwise_kernel), 1)[..., 0]
    channels = depth_kernel.shape[-1]
    depthwise = Source(
        source.layer, f'{source.name}_depthwise', source.inputs, source.input_shapes, source.config_override
    )
    first = _convolution(depthwise, rank, DEPTHWISE_CONV_OF_RANK[rank], depth_kernel, np.zeros(channels), channels)
    point_kernel = array_of(source.layer.pointwise_kernel)
    filters = point_kernel.shape[-1]
    pointwise = Source(source.layer, source.name, [first.name], [depthwise.output_shape(first)], {'padding': 'valid'})
    second = _convolution(
        pointwise, rank, CONV_OF_RANK[rank], point_kernel, _bias(source, source.layer, filters), filters
    )
    return [first, second, *fused_activation(pointwise, source.config['activation'], pointwise.output_shape(second))]


@handles(
    'MaxPooling1D',
    'MaxPooling2D',
    'AveragePooling1D',
    'AveragePooling2D',
    produces=(Kind.POOLING1D, Kind.POOLING2D, *LAYOUT_KINDS),
)
@accepts_channels_first
def pooling(source: Source) -> list[Layer]:
    class_name = type(source.layer).__name__
    rank = int(class_name[-2])
    pool = _tuple(source.config['pool_size'], rank)
    strides = _tuple(source.config.get('strides') or pool, rank)
    attributes = window_attributes(source, rank, pool, strides)
    for axis, length in zip(AXES[rank], pool, strict=True):
        attributes[f'pool_{axis}'] = length
    attributes['pool_op'] = 'max' if class_name.startswith('Max') else 'average'
    return [source.make(POOLING_OF_RANK[rank], **attributes)]


@handles(
    'GlobalMaxPooling1D',
    'GlobalMaxPooling2D',
    'GlobalAveragePooling1D',
    'GlobalAveragePooling2D',
    produces=(Kind.GLOBAL_POOLING1D, Kind.GLOBAL_POOLING2D, *LAYOUT_KINDS),
)
@accepts_channels_first
def global_pooling(source: Source) -> list[Layer]:
    class_name = type(source.layer).__name__
    rank = int(class_name[-2])
    _check_channels_last(source, rank)
    shape = source.input_shapes[0]
    attributes: dict[str, Any] = {f'in_{axis}': size for axis, size in zip(AXES[rank], shape[:-1], strict=True)}
    attributes.update(n_chan=shape[-1], keepdims=bool(source.config.get('keepdims', False)))
    attributes['pool_op'] = 'max' if 'Max' in class_name else 'average'
    return [source.make(GLOBAL_POOLING_OF_RANK[rank], **attributes)]


def _edge_pairs(value: Any, rank: int) -> list[tuple[int, int]]:
    """Keras padding/cropping arguments as one (before, after) pair per spatial axis."""
    if isinstance(value, int):
        return [(value, value)] * rank
    items = list(value)
    if rank == 1:
        return [tuple(items)] if len(items) == 2 and all(isinstance(v, int) for v in items) else [tuple(items[0])]
    return [(v, v) if isinstance(v, int) else tuple(v) for v in items]


def _edges(source: Source, rank: int, argument: str, prefix: str, sign: int) -> list[Layer]:
    _check_channels_last(source, rank)
    shape = source.input_shapes[0]
    attributes: dict[str, Any] = {'n_chan': shape[-1]}
    for axis, size, (before, after) in zip(
        AXES[rank], shape[:-1], _edge_pairs(source.config[argument], rank), strict=True
    ):
        names = [name.replace('pad_', prefix) for name in PAD_NAMES[axis]]
        attributes[f'in_{axis}'], attributes[names[0]], attributes[names[1]] = size, before, after
        attributes[f'out_{axis}'] = size + sign * (before + after)
    kind = (ZERO_PADDING_OF_RANK if sign > 0 else CROPPING_OF_RANK)[rank]
    return [source.make(kind, **attributes)]


@handles('ZeroPadding1D', 'ZeroPadding2D', produces=(Kind.ZERO_PADDING1D, Kind.ZERO_PADDING2D, *LAYOUT_KINDS))
@accepts_channels_first
def zero_padding(source: Source) -> list[Layer]:
    return _edges(source, int(type(source.layer).__name__[-2]), 'padding', 'pad_', +1)


@handles('Cropping1D', 'Cropping2D', produces=(Kind.CROPPING1D, Kind.CROPPING2D, *LAYOUT_KINDS))
@accepts_channels_first
def cropping(source: Source) -> list[Layer]:
    return _edges(source, int(type(source.layer).__name__[-2]), 'cropping', 'crop_', -1)


@handles('UpSampling1D', 'UpSampling2D', produces=(Kind.RESIZE, Kind.RESIZE2D, *LAYOUT_KINDS))
@accepts_channels_first
def upsampling(source: Source) -> list[Layer]:
    rank = int(type(source.layer).__name__[-2])
    _check_channels_last(source, rank)
    if source.config.get('interpolation', 'nearest') != 'nearest':
        raise UnsupportedLayer(f'{source.origin}: only nearest-neighbour upsampling is supported')
    shape, factors = source.input_shapes[0], _tuple(source.config['size'], rank)
    attributes: dict[str, Any] = {'n_chan': shape[-1], 'algorithm': 'nearest'}
    for axis, size, factor in zip(AXES[rank], shape[:-1], factors, strict=True):
        attributes[f'in_{axis}'], attributes[f'{axis}_factor'], attributes[f'out_{axis}'] = size, factor, size * factor
    return [source.make(Kind.RESIZE if rank == 1 else Kind.RESIZE2D, **attributes)]
