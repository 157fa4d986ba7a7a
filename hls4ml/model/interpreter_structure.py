"""Reference-interpreter kernels of the layers that move or combine values (see interpreter.py)."""

from __future__ import annotations

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.reference import array_ops, merge
from hls4ml.model.types import FixedPrecisionType

HALF = FixedPrecisionType(1, 0, False)  # holds 0.5 exactly: the average's halving

EDGE_ARGUMENTS = {
    'ZeroPadding1D': ('zeropad1d_cl', ('in_width', 'n_chan', 'pad_left', 'pad_right')),
    'ZeroPadding2D': (
        'zeropad2d_cl',
        ('in_height', 'in_width', 'n_chan', 'pad_top', 'pad_bottom', 'pad_left', 'pad_right'),
    ),
    'Cropping1D': ('cropping1d_cl', ('in_width', 'n_chan', 'crop_left', 'crop_right')),
    'Cropping2D': (
        'cropping2d_cl',
        ('in_height', 'in_width', 'n_chan', 'crop_top', 'crop_bottom', 'crop_left', 'crop_right'),
    ),
    'Resize': ('upsampling1d_cl', ('in_width', 'n_chan', 'width_factor')),
    'Resize2D': ('upsampling2d_cl', ('in_height', 'in_width', 'n_chan', 'height_factor', 'width_factor')),
}


def move(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    """Padding, cropping, upsampling, reshape and transpose: values moved, each written into the result type."""
    result = layer.types['result']
    if layer.kind in ('Reshape', 'Clone'):
        return array_ops.copy(x, result)
    if layer.kind == 'Transpose':
        return array_ops.transpose(x, graph.tensors[layer.inputs[0]].shape, tuple(layer.attributes['perm']), result)
    name, arguments = EDGE_ARGUMENTS[layer.kind]
    return getattr(array_ops, name)(x, *(layer.attributes[argument] for argument in arguments), result)


def combine(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    first, second = inputs
    result = layer.types['result']
    if layer.kind == 'Dot':
        return merge.dot1d(first, second, layer.types['accum'], result)
    if layer.kind == 'Concatenate':
        shapes = [graph.tensors[name].shape for name in layer.inputs]
        if len(shapes[0]) == 1:
            return merge.concatenate1d(first, second, result)
        function = merge.concatenate2d if len(shapes[0]) == 2 else merge.concatenate3d
        return function(first, second, shapes[0], shapes[1], layer.attributes['axis'], result)  # type: ignore[arg-type]
    operation = layer.attributes['op']
    if operation == 'average':
        return merge.average(first, second, result, HALF)
    return getattr(merge, operation)(first, second, result)


MOVE_KINDS = (*EDGE_ARGUMENTS, 'Reshape', 'Transpose', 'Clone')
COMBINE_KINDS = ('Merge', 'Concatenate', 'Dot')
