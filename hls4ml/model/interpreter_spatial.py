"""Reference-interpreter kernels of the convolution and pooling layers (`kernel(layer, inputs, graph,
family)`, named by the kinds' records in layers.py)."""

from __future__ import annotations

from hls4ml.model import reference
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import DEPTHWISE_CONVOLUTIONS, Kind


def _pads(layer: Layer) -> tuple[int, ...]:
    names = (
        ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')
        if 'in_height' in layer.attributes
        else ('pad_left', 'pad_right')
    )
    return tuple(layer.attributes[name] for name in names)


def _geometry(layer: Layer, two_d: dict, one_d: dict) -> dict:
    return two_d if 'in_height' in layer.attributes else one_d


def convolution(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes = layer.attributes
    kernel = layer.weights['weight']
    depthwise = layer.kind in DEPTHWISE_CONVOLUTIONS
    if depthwise:
        kernel = kernel.reshape(*kernel.shape, 1)  # (window..., n_chan, depth multiplier 1)
    weights = quantize(kernel, layer.types['weight'], family)
    biases = quantize(layer.weights['bias'], layer.types['bias'], family)
    two_d = 'in_height' in attributes
    name = ('depthwise_' if depthwise else '') + ('conv2d' if two_d else 'conv1d')
    geometry = _geometry(
        layer,
        {
            'in_height': attributes.get('in_height'),
            'in_width': attributes['in_width'],
            'strides': (attributes.get('stride_height', 1), attributes['stride_width']),
        },
        {'stride': attributes['stride_width']},
    )
    kernel_function = getattr(reference, name)
    return kernel_function(
        x, weights, biases, layer.types['accum'], layer.types['result'], padding=_pads(layer), **geometry
    )


def pooling(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes = layer.attributes
    geometry = _geometry(
        layer,
        {
            'in_height': attributes.get('in_height'),
            'in_width': attributes['in_width'],
            'pool_size': (attributes.get('pool_height'), attributes['pool_width']),
            'strides': (attributes.get('stride_height'), attributes['stride_width']),
        },
        {'n_filt': attributes['n_chan'], 'pool_size': attributes['pool_width'], 'stride': attributes['stride_width']},
    )
    function = reference.pooling2d if 'in_height' in attributes else reference.pooling1d
    return function(
        x, attributes['pool_op'], layer.types['result'], layer.types['accum'], padding=_pads(layer), **geometry
    )


def global_pooling(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    function = reference.global_pooling2d if layer.kind == Kind.GLOBAL_POOLING2D else reference.global_pooling1d
    return function(
        x, layer.attributes['pool_op'], layer.types['result'], layer.types['accum'], n_filt=layer.attributes['n_chan']
    )
