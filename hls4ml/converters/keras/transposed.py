"""Handler of Keras' Conv1DTranspose and Conv2DTranspose: zeros inserted into the input (a Gather
`<name>_spread`), then a plain stride-1 convolution with the flipped kernel (`conv_kernels`), which
computes the same sums bit for bit. Padding as Keras defines it: 'valid' crops nothing, 'same' crops
max(window - stride, 0) values, the smaller half before; the output size is Keras' own."""

from __future__ import annotations

import math

import numpy as np

from hls4ml.converters.conv_kernels import dilated, transposed_input, transposed_kernel
from hls4ml.converters.keras.channels_first import LAYOUT_KINDS, accepts_channels_first
from hls4ml.converters.keras.handlers import (
    ACTIVATION_KINDS,
    Source,
    UnsupportedLayer,
    array_of,
    fused_activation,
    handles,
)
from hls4ml.converters.keras.spatial import _bias, _convolution, _tuple
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import CONV_OF_RANK, Kind


def _pads(source: Source, window: tuple[int, ...], strides: tuple[int, ...]) -> list[tuple[int, int]]:
    if source.config.get('padding', 'valid') == 'valid':
        return [(0, 0)] * len(window)
    totals = [max(length - stride, 0) for length, stride in zip(window, strides, strict=True)]
    return [(total // 2, total - total // 2) for total in totals]


def _spatial_output(source: Source, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Keras' output size along each spatial axis for the channels-last input `shape`."""
    if source.layer.data_format == 'channels_first':  # converted channels last: Keras computes in its own layout
        return tuple(source.layer.compute_output_shape((None, shape[-1], *shape[:-1]))[2:])
    return tuple(source.layer.compute_output_shape((None, *shape))[1:-1])


@handles(
    'Conv1DTranspose',
    'Conv2DTranspose',
    produces=(Kind.GATHER, Kind.CONV1D, Kind.CONV2D, *ACTIVATION_KINDS, *LAYOUT_KINDS),
)
@accepts_channels_first
def transposed_convolution(source: Source) -> list[Layer]:
    rank = 1 if type(source.layer).__name__ == 'Conv1DTranspose' else 2
    shape = source.input_shapes[0]
    if len(shape) != rank + 1 or source.config.get('data_format', 'channels_last') != 'channels_last':
        raise UnsupportedLayer(f'{source.origin}: expects a channels-last {rank}-D input, got shape {shape}')
    kernel = np.moveaxis(array_of(source.layer.kernel), (-1, -2), (0, 1))  # (in, out, *window)
    kernel = dilated(kernel, _tuple(source.config.get('dilation_rate', 1), rank))
    window, strides = tuple(kernel.shape[2:]), _tuple(source.config.get('strides', 1), rank)
    pads = _pads(source, window, strides)
    wanted = _spatial_output(source, shape)
    extra = [
        int(size) - ((length_in - 1) * stride + length - before - after)
        for size, length_in, stride, length, (before, after) in zip(
            wanted, shape[:-1], strides, window, pads, strict=True
        )
    ]
    positions = np.moveaxis(np.arange(math.prod(shape)).reshape(shape), -1, 0)  # channels first
    try:
        table = np.moveaxis(transposed_input(positions, strides, window, pads, tuple(extra)), 0, -1)
    except ValueError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from error
    spread_name = f'{source.name}_spread'
    index = np.where(table < 0, math.prod(shape), table).reshape(-1)
    spread = source.make(Kind.GATHER, index=index.tolist(), out_shape=table.shape)
    spread.name, spread.outputs, spread.source_class = spread_name, [spread_name], ''
    plain = np.moveaxis(transposed_kernel(kernel, 1), (0, 1), (-1, -2))  # (*window, in, out)
    filters = plain.shape[-1]
    twin = Source(source.layer, source.name, [spread_name], [table.shape], {'padding': 'valid', 'strides': 1})
    conv = _convolution(twin, rank, CONV_OF_RANK[rank], plain, _bias(source, source.layer, filters), filters)
    return [spread, conv, *fused_activation(twin, source.config['activation'], twin.output_shape(conv))]
