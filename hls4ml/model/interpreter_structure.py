"""Reference-interpreter kernels of the layers that move or combine values (`kernel(layer, inputs, graph,
family)`, named by the kinds' records in layers.py)."""

from __future__ import annotations

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference import array_ops, merge
from hls4ml.model.types import FixedPrecisionType

HALF = FixedPrecisionType(1, 0, False)  # holds 0.5 exactly: the average's halving

EDGE_ARGUMENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    Kind.ZERO_PADDING1D: ('zeropad1d_cl', ('in_width', 'n_chan', 'pad_left', 'pad_right')),
    Kind.ZERO_PADDING2D: (
        'zeropad2d_cl',
        ('in_height', 'in_width', 'n_chan', 'pad_top', 'pad_bottom', 'pad_left', 'pad_right'),
    ),
    Kind.CROPPING1D: ('cropping1d_cl', ('in_width', 'n_chan', 'crop_left', 'crop_right')),
    Kind.CROPPING2D: (
        'cropping2d_cl',
        ('in_height', 'in_width', 'n_chan', 'crop_top', 'crop_bottom', 'crop_left', 'crop_right'),
    ),
    Kind.RESIZE: ('upsampling1d_cl', ('in_width', 'n_chan', 'width_factor')),
    Kind.RESIZE2D: ('upsampling2d_cl', ('in_height', 'in_width', 'n_chan', 'height_factor', 'width_factor')),
}


def copy(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    """Reshape and Clone: the values, each written into the result type."""
    return array_ops.copy(inputs[0], layer.types['result'])


def transpose(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    shape = graph.tensors[layer.inputs[0]].shape
    return array_ops.transpose(inputs[0], shape, tuple(layer.attributes['perm']), layer.types['result'])


def edge(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    """Padding, cropping and upsampling: values moved, each written into the result type."""
    name, arguments = EDGE_ARGUMENTS[layer.kind]
    values = (layer.attributes[argument] for argument in arguments)
    return getattr(array_ops, name)(inputs[0], *values, layer.types['result'])


def dot(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    first, second = inputs
    return merge.dot1d(first, second, layer.types['accum'], layer.types['result'])


def concatenate(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    first, second = inputs
    result = layer.types['result']
    shapes = [graph.tensors[name].shape for name in layer.inputs]
    if len(shapes[0]) == 1:
        return merge.concatenate1d(first, second, result)
    function = merge.concatenate2d if len(shapes[0]) == 2 else merge.concatenate3d
    return function(first, second, shapes[0], shapes[1], layer.attributes['axis'], result)  # type: ignore[arg-type]


def merge_values(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    first, second = inputs
    result, operation = layer.types['result'], layer.attributes['op']
    if operation == 'average':
        return merge.average(first, second, result, HALF)
    return getattr(merge, operation)(first, second, result)
