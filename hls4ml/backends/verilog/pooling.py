"""Pooling (1-D, 2-D, global; max and average) as comparator trees and adder chains, as `nnet::pooling`.

Window taps are found by moving indices through the reference's own padding and window helpers
(`products.window_taps`), so the geometry and the padded positions are the C-simulation's. Max: a tree of
comparators over the window's valid inputs. Average (`reference/pooling.py`): sum = 0; sum += x for each
valid input in (kh, kw) order, each a write into accum_t; then sum / n with n the count of valid inputs,
truncated toward zero on accum_t's grid; then the write into the result type. The division by the
constant n is a multiplication by a rounded-up reciprocal M / 2^s and a floor, which equals floor(t / n)
for every t of the sum's range (s = the range's bits + the bits of n; Granlund and Montgomery); toward
zero: the quotients of relu(sum) and relu(-sum) subtracted (one of them is 0).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import Quantizer, quantizer
from hls4ml.backends.verilog.products import window_taps
from hls4ml.backends.verilog.selection import constant
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind


def pool_windows(layer: Layer) -> np.ndarray:
    """(output element, window tap) -> input index, -1 for padding, outputs in (pixel, channel) order."""
    attributes = layer.attributes
    two_d = 'in_height' in attributes
    pool = (attributes.get('pool_height', 1) if two_d else 1, attributes['pool_width'])
    geometry = {
        'in_height': attributes.get('in_height', 1),
        'in_width': attributes['in_width'],
        'n_chan': attributes['n_chan'],
        'filt_height': pool[0],
        'filt_width': pool[1],
        'stride_height': attributes.get('stride_height', 1) if two_d else 1,
        'stride_width': attributes['stride_width'],
        **{name: attributes.get(name, 0) for name in ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')},
    }
    probe = Layer(layer.name, Kind.CONV2D, layer.inputs, layer.outputs, geometry)
    taps = window_taps(probe)  # (pixels, kh*kw*channels) in (kh, kw, c) order
    channels = attributes['n_chan']
    per_channel = taps.reshape(taps.shape[0], -1, channels).transpose(0, 2, 1)
    return per_channel.reshape(-1, per_channel.shape[2])


def global_windows(layer: Layer, size: int) -> np.ndarray:
    """(channel, position) -> input index: every position of each channel."""
    channels = layer.attributes['n_chan']
    return np.arange(size).reshape(-1, channels).T


def maximum(values: list[Any]) -> Any:
    """The largest of `values`: a tree of comparators."""
    while len(values) > 1:
        paired = [first.max_of(second) for first, second in zip(values[0::2], values[1::2], strict=False)]
        values = paired + ([values[-1]] if len(values) % 2 else [])
    return values[0]


def average(values: list[Any], accum: Quantizer) -> Any:
    """sum into accum_t in order, then divided by len(values) toward zero on accum_t's grid."""
    total = accum.apply(constant(values[0], 0))
    for value in values:
        total = accum.apply(total + value)
    count = len(values)
    if count == 1:
        return total
    return _quotient(total.relu(), count, accum.fraction) - _quotient((-total).relu(), count, accum.fraction)


def _quotient(value: Any, count: int, fraction: int) -> Any:
    """floor(value / count) on the grid 2^-fraction, for value >= 0 on that grid."""
    if value.high == value.low:
        return constant(value, math.floor(float(value.low) * 2.0**fraction / count) * 2.0**-fraction)
    raw_bits = max(math.ceil(math.log2(float(value.high) * 2.0**fraction + 1)), 1)
    shift = raw_bits + math.ceil(math.log2(count))
    multiplier = -(-(1 << shift) // count)
    if shift + fraction > 1000 or multiplier.bit_length() > 52:
        raise ValueError(f'average pooling: a sum of {raw_bits} bits is too wide to divide by {count} exactly')
    scaled = value * (multiplier * 2.0**-shift)
    integer = max(math.ceil(math.log2(float(value.high) / count + 1)), 0) + 1
    return scaled.quantize(0, integer, fraction, 'WRAP', 'TRN')


def _pooled(layer: Layer, inputs: list[Any], windows: np.ndarray) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    where = layer.describe()
    is_max = layer.attributes['pool_op'] == 'max'
    accum = None if is_max else quantizer(layer.types['accum'], f'{where} accum type')
    outputs = []
    for window in windows:
        values = [flat[index] for index in window if index >= 0]
        outputs.append(maximum(values) if accum is None else average(values, accum))
    like = inputs[0]
    array = type(like)(np.array(outputs, dtype=object), like.solver_options, hwconf=like.hwconf)
    return quantizer(layer.types['result'], f'{where} result type').apply(array)


def trace_pooling(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    return _pooled(layer, inputs, pool_windows(layer))


def trace_global_pooling(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    return _pooled(layer, inputs, global_windows(layer, np.asarray(inputs[0]._vars).size))
