"""Handlers of the Keras 3 layers that reshape, reorder or combine tensors: Flatten, Reshape,
Permute, the two-input merges, Concatenate and Dot."""

from __future__ import annotations

import math

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind

MERGES = {
    'Add': 'add',
    'Subtract': 'subtract',
    'Multiply': 'multiply',
    'Average': 'average',
    'Maximum': 'maximum',
    'Minimum': 'minimum',
}


@handles('Flatten', 'Reshape', produces=(Kind.RESHAPE,))
def reshape(source: Source) -> list[Layer]:
    size = math.prod(source.input_shapes[0])
    if type(source.layer).__name__ == 'Flatten':
        target = [size]
    elif hasattr(source.layer, 'newshape'):  # the operation of keras.ops.reshape: its shape has the batch axis
        target = _operation_target(source, size)
    else:
        target = [int(dim) for dim in source.config['target_shape']]
    if target.count(-1) == 1:  # Keras infers one dimension
        target[target.index(-1)] = size // -math.prod(target)
    return [source.make(Kind.RESHAPE, target_shape=tuple(target))]


def _operation_target(source: Source, size: int) -> list[int]:
    """The sample shape of `keras.ops.reshape(x, newshape)`: newshape must keep the batch axis first
    (-1 or None there) and reshape each sample on its own."""
    newshape = [-1 if dim is None else int(dim) for dim in source.layer.newshape]
    sample = newshape[1:]
    known = math.prod(dim for dim in sample if dim != -1)
    if not newshape or newshape[0] != -1 or sample.count(-1) > 0 or known != size:
        raise UnsupportedLayer(
            f'{source.origin}: keras.ops.reshape to {tuple(source.layer.newshape)} of samples of shape '
            f'{source.input_shapes[0]} is not supported: give the batch axis as -1 (or None) first and every '
            f'other axis its size, {size} values per sample (or use keras.layers.Reshape)'
        )
    return sample


@handles('Permute', produces=(Kind.TRANSPOSE,))
def permute(source: Source) -> list[Layer]:
    perm = tuple(int(axis) - 1 for axis in source.config['dims'])  # Keras counts the batch axis as 0
    return [source.make(Kind.TRANSPOSE, perm=perm)]


@handles(*MERGES, produces=(Kind.MERGE,))
def merge(source: Source) -> list[Layer]:
    if len(source.inputs) != 2:
        raise UnsupportedLayer(f'{source.origin}: merges of {len(source.inputs)} inputs are not supported (2)')
    if source.input_shapes[0] != source.input_shapes[1]:
        raise UnsupportedLayer(f'{source.origin}: broadcasting {source.input_shapes} is not supported (equal shapes)')
    return [source.make(Kind.MERGE, op=MERGES[type(source.layer).__name__])]


@handles('Concatenate', produces=(Kind.CONCATENATE,))
def concatenate(source: Source) -> list[Layer]:
    if len(source.inputs) != 2:
        raise UnsupportedLayer(f'{source.origin}: concatenating {len(source.inputs)} inputs is not supported (2)')
    rank = len(source.input_shapes[0])
    axis = int(source.config.get('axis', -1))
    axis = axis + rank if axis < 0 else axis - 1  # Keras counts the batch axis
    if not 0 <= axis < rank:
        raise UnsupportedLayer(f'{source.origin}: axis {source.config.get("axis")} is outside the tensor')
    return [source.make(Kind.CONCATENATE, axis=axis)]


@handles('Dot', produces=(Kind.DOT,))
def dot(source: Source) -> list[Layer]:
    shapes = source.input_shapes
    axes = source.config.get('axes')
    if source.config.get('normalize'):
        raise UnsupportedLayer(f'{source.origin}: Dot(normalize=True) is not supported')
    if len(shapes) != 2 or len(shapes[0]) != 1 or shapes[0] != shapes[1] or axes not in (1, -1, [1, 1], (1, 1)):
        raise UnsupportedLayer(f'{source.origin}: Dot is supported for two vectors of the same length, got {shapes}')
    return [source.make(Kind.DOT, n_in=shapes[0][0])]
