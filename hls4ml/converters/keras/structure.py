"""Handlers of the Keras 3 layers that reshape, reorder or combine tensors: Flatten, Reshape,
Permute, the merges and Concatenate of two or more inputs, and Dot."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind, KindRecord

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


@handles('Subtract', produces=(Kind.MERGE,))  # Keras' Subtract takes exactly two inputs
@handles(*(name for name in MERGES if name != 'Subtract'), produces=(Kind.MERGE, Kind.BATCH_NORMALIZATION))
def merge(source: Source) -> list[Layer]:
    """Two inputs: one Merge. N inputs (Add, Multiply, Maximum, Minimum, Average): a balanced tree of
    two-input merges, exact at every level; an average of N is a tree of averages when N is a power of
    two, else the tree of adds times 1/N (a BatchNormalization whose scale is 1/N written into its type)."""
    if any(shape != source.input_shapes[0] for shape in source.input_shapes):
        raise UnsupportedLayer(f'{source.origin}: broadcasting {source.input_shapes} is not supported (equal shapes)')
    operation = MERGES[type(source.layer).__name__]
    count = len(source.inputs)
    if count == 2 or (operation == 'average' and count & (count - 1) == 0):
        return joined(source, Kind.MERGE, balanced=True, op=operation)
    if operation == 'average':
        layers = joined(source, Kind.MERGE, balanced=True, last=f'{source.name}_sum', op='add')
        n_in = math.prod(source.input_shapes[0])
        weights = {'scale': np.full(n_in, 1.0 / count), 'bias': np.zeros(n_in)}
        scaled = source.make(Kind.BATCH_NORMALIZATION, inputs=[layers[-1].name], n_in=n_in, weights=weights)
        return [*layers, scaled]
    return joined(source, Kind.MERGE, balanced=True, op=operation)


@handles('Concatenate', produces=(Kind.CONCATENATE,))
def concatenate(source: Source) -> list[Layer]:
    """N inputs: a chain of two-input concatenations, left to right."""
    rank = len(source.input_shapes[0])
    axis = int(source.config.get('axis', -1))
    axis = axis + rank if axis < 0 else axis - 1  # Keras counts the batch axis
    if not 0 <= axis < rank:
        raise UnsupportedLayer(f'{source.origin}: axis {source.config.get("axis")} is outside the tensor')
    return joined(source, Kind.CONCATENATE, balanced=False, axis=axis)


def joined(source: Source, kind: KindRecord, balanced: bool, last: str = '', **attributes: Any) -> list[Layer]:
    """Two-input `kind` layers joining the N inputs of `source`: a balanced tree (depth log2 N) or a
    chain from the left; the last is named `last` or after the Keras layer, the others `<name>_<k>`,
    which no config entry of the Keras layer reaches (their types are the exact 'auto' ones)."""
    pending = list(source.inputs)
    layers: list[Layer] = []
    if len(pending) < 2:
        raise UnsupportedLayer(f'{source.origin}: {len(pending)} input(s); it needs two or more')
    while len(pending) > 1:
        pairs = list(zip(pending[0::2], pending[1::2], strict=False)) if balanced else [(pending[0], pending[1])]
        made = []
        for first, second in pairs:
            layer = source.make(kind, inputs=[first, second], **attributes)
            if len(pending) > 2:  # an inner join
                layer.name, layer.source_class = f'{source.name}_{len(layers)}', ''
            elif last:
                layer.name = last
            layer.outputs = [layer.name]
            layers.append(layer)
            made.append(layer.name)
        pending = made + pending[2 * len(pairs) :]
    return layers


@handles('Dot', produces=(Kind.DOT, Kind.GATHER, Kind.MERGE, Kind.REDUCE))
def dot(source: Source) -> list[Layer]:
    """Two vectors: one Dot. Tensors of two or three axes (with the batch): Keras' batch_dot, the
    contracted axis of each dropped and the rest of x then of y kept, as exact products of gathered
    copies (`<name>_left`, `<name>_right`, `<name>_products`) summed by a Reduce."""
    shapes = source.input_shapes
    if source.config.get('normalize'):
        raise UnsupportedLayer(f'{source.origin}: Dot(normalize=True) is not supported')
    axes = source.config.get('axes')
    pair = tuple(axes) if isinstance(axes, (list, tuple)) else (axes, axes)
    if len(shapes) != 2 or any(len(shape) not in (1, 2) for shape in shapes):
        raise UnsupportedLayer(f'{source.origin}: Dot of inputs of shapes {shapes} is not supported (1 or 2 axes)')
    first, second = (int(axis) % (len(shape) + 1) - 1 for axis, shape in zip(pair, shapes, strict=True))
    if min(first, second) < 0 or shapes[0][first] != shapes[1][second]:
        raise UnsupportedLayer(f'{source.origin}: axes {axes} do not pair equal axes of {shapes[0]} and {shapes[1]}')
    if len(shapes[0]) == len(shapes[1]) == 1:
        return [source.make(Kind.DOT, n_in=shapes[0][0])]
    return _contraction(source, first, second)


def _contraction(source: Source, first: int, second: int) -> list[Layer]:
    """out[i, j] = sum_k x[i with k at `first`] * y[j with k at `second`]."""
    (x_shape, y_shape), count = source.input_shapes, source.input_shapes[0][first]
    x_rest = [size for axis, size in enumerate(x_shape) if axis != first]
    y_rest = [size for axis, size in enumerate(y_shape) if axis != second]
    x_positions = np.moveaxis(np.arange(math.prod(x_shape)).reshape(x_shape), first, -1)  # (*x_rest, k)
    y_positions = np.moveaxis(np.arange(math.prod(y_shape)).reshape(y_shape), second, -1)  # (*y_rest, k)
    grid = (*x_rest, *y_rest, count)
    x_index = np.broadcast_to(x_positions.reshape(*x_rest, *([1] * len(y_rest)), count), grid)
    y_index = np.broadcast_to(y_positions.reshape(*([1] * len(x_rest)), *y_rest, count), grid)
    left = _part(source, 'left', Kind.GATHER, [source.inputs[0]], index=x_index.reshape(-1).tolist(), out_shape=grid)
    right = _part(source, 'right', Kind.GATHER, [source.inputs[1]], index=y_index.reshape(-1).tolist(), out_shape=grid)
    products = _part(source, 'products', Kind.MERGE, [left.name, right.name], op='multiply')
    out_shape = grid[:-1] or (1,)
    index = list(range(math.prod(grid)))
    total = source.make(Kind.REDUCE, inputs=[products.name], index=index, out_shape=out_shape, n_reduce=count, op='sum')
    return [left, right, products, total]


def _part(source: Source, suffix: str, kind: KindRecord, inputs: list[str], **attributes: Any) -> Layer:
    """An inner layer `<name>_<suffix>` of a Keras layer (its config entries do not reach it)."""
    layer = source.make(kind, inputs=inputs, **attributes)
    layer.name, layer.source_class = f'{source.name}_{suffix}', ''
    layer.outputs = [layer.name]
    return layer
