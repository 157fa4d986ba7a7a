"""Pooling: the maximum or the average of each window (global: of every position) per channel.
The kinds differ only by rank and window, so one constructor makes all four records."""

from __future__ import annotations

import math

from hls4ml.model import reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, KindRecord
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import clamped, copy_input, input_fixed, is_auto

POOL_OPERATIONS = ('max', 'average')
POOL_PADS = ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')


def _pooling_types(graph: Graph, layer: Layer, context: PassContext, window_prefix: str) -> None:
    """Max keeps the input type; an average sums up to `window` values exactly before dividing. When
    every window counts the same power of two 2^k of inputs (no padding), the sum also gets k more
    fraction bits and an 'auto' result keeps them, so the average is exact; else the result is the
    input type (the quotient truncated to its LSB, as in hls4ml)."""
    source = input_fixed(graph, layer, context)
    if source is None:
        return
    if layer.attributes['pool_op'] == 'average' and is_auto(layer.types['accum']):
        window = math.prod(layer.attributes.get(window_prefix + axis, 1) for axis in ('height', 'width'))
        extra = math.ceil(math.log2(window)) if window > 1 else 0
        padded = any(layer.attributes.get(name, 0) for name in POOL_PADS)
        shift = extra if window == 2**extra and not padded else 0
        layer.types['accum'] = clamped(source.width + extra + shift, source.integer + extra, source.signed, context)
        if shift and is_auto(layer.types['result']):
            layer.types['result'] = clamped(source.width + shift, source.integer, source.signed, context)
    copy_input(graph, layer, context)


def _pool(layer: Layer, x: FixedArray) -> FixedArray:
    attributes, types = layer.attributes, layer.types
    two_d = 'in_height' in attributes
    padding = tuple(attributes[name] for name in (POOL_PADS if two_d else POOL_PADS[2:]))
    geometry = (
        {
            'in_height': attributes.get('in_height'),
            'in_width': attributes['in_width'],
            'pool_size': (attributes.get('pool_height'), attributes['pool_width']),
            'strides': (attributes.get('stride_height'), attributes['stride_width']),
        }
        if two_d
        else {
            'n_filt': attributes['n_chan'],
            'pool_size': attributes['pool_width'],
            'stride': attributes['stride_width'],
        }
    )
    function = reference.pooling2d if two_d else reference.pooling1d
    return function(x, attributes['pool_op'], types['result'], types['accum'], padding=padding, **geometry)


def pooling(name: str, rank: int, is_global: bool = False) -> KindRecord:
    """A pooling kind of `rank`; global pooling folds every position (its window is the input)."""
    window_prefix = 'in_' if is_global else 'pool_'
    global_kernel = reference.global_pooling2d if rank == 2 else reference.global_pooling1d

    def types(graph: Graph, layer: Layer, context: PassContext) -> None:
        _pooling_types(graph, layer, context, window_prefix)

    def run(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        if not is_global:
            return _pool(layer, inputs[0])
        attributes, result, accum = layer.attributes, layer.types['result'], layer.types['accum']
        return global_kernel(inputs[0], attributes['pool_op'], result, accum, n_filt=attributes['n_chan'])

    return KindRecord(
        name,
        types={'result': 'auto', 'accum': 'auto'},
        config_keys=COMMON_KEYS if is_global else (*COMMON_KEYS, 'ReuseFactor'),
        output_shape=shapes.global_pooling_shape(rank) if is_global else shapes.spatial_shape('n_chan', rank),
        precision_rule=types,
        reference=run,
        choices={'pool_op': POOL_OPERATIONS},
    )


class Pooling:
    """The pooling kinds (`Kind` inherits them); attribute pool_op: POOL_OPERATIONS."""

    POOLING1D = pooling('Pooling1D', 1)
    POOLING2D = pooling('Pooling2D', 2)
    GLOBAL_POOLING1D = pooling('GlobalPooling1D', 1, is_global=True)
    GLOBAL_POOLING2D = pooling('GlobalPooling2D', 2, is_global=True)
