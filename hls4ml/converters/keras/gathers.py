"""Handlers of Keras 3 tensor slicing (`x[:, 1:3, ::2]`, the GetItem operation) and of the reductions
`keras.ops.sum / mean / max / min` over axes: Gather and Reduce layers (a mean: a Reduce sum and a
BatchNormalization by 1/n). Keras tensors are channels last like the IR, so positions are row-major."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind

REDUCTIONS = {'Sum': 'sum', 'Mean': 'mean', 'Max': 'max', 'Min': 'min'}


def _key(source: Source) -> tuple[Any, ...]:
    (node,) = [node for node in source.layer._inbound_nodes if node.operation is source.layer][:1]
    key = node.arguments.args[1]
    return key if isinstance(key, tuple) else (key,)


@handles('GetItem', produces=(Kind.GATHER,))
def get_item(source: Source) -> list[Layer]:
    """Slices, integers and one Ellipsis; the batch axis taken whole (`x[:, ...]`)."""
    key, shape = _key(source), source.input_shapes[0]
    for entry in key:
        if entry is None or isinstance(entry, bool) or not isinstance(entry, (builtins.slice, int, type(Ellipsis))):
            raise UnsupportedLayer(f'{source.origin}: indexing with {entry!r} is not supported (slices, integers, ...)')
    if key[0] is not Ellipsis and key[0] != builtins.slice(None):
        raise UnsupportedLayer(f'{source.origin}: indexing {key[0]!r} along the batch axis is not supported')
    try:
        picked = np.arange(math.prod(shape)).reshape(shape)[key if key[0] is Ellipsis else key[1:]]
    except IndexError as error:
        raise UnsupportedLayer(f'{source.origin}: the index does not fit a tensor of shape {shape}: {error}') from error
    if picked.size == 0:
        raise UnsupportedLayer(f'{source.origin}: the selection is empty')
    out_shape = picked.shape or (1,)
    return [source.make(Kind.GATHER, index=picked.reshape(-1).tolist(), out_shape=out_shape)]


@handles(*REDUCTIONS, produces=(Kind.REDUCE, Kind.BATCH_NORMALIZATION))
def reduction(source: Source) -> list[Layer]:
    shape, config = source.input_shapes[0], source.layer
    operation = REDUCTIONS[type(source.layer).__name__]
    if config.axis is None:
        raise UnsupportedLayer(f'{source.origin}: a reduction over every axis would reduce the batch too; give axis')
    axes = [int(axis) for axis in (config.axis if isinstance(config.axis, (tuple, list)) else [config.axis])]
    if any(axis % (len(shape) + 1) == 0 for axis in axes) or getattr(config, 'initial', None) is not None:
        raise UnsupportedLayer(f'{source.origin}: axis {config.axis} (the batch axis) or initial= is not supported')
    axes = sorted({axis % (len(shape) + 1) - 1 for axis in axes})
    kept = [axis for axis in range(len(shape)) if axis not in axes]
    count = math.prod(shape[axis] for axis in axes)
    grouped = np.transpose(np.arange(math.prod(shape)).reshape(shape), (*kept, *axes)).reshape(-1)
    if config.keepdims:
        out_shape = tuple(1 if axis in axes else size for axis, size in enumerate(shape))
    else:
        out_shape = tuple(shape[axis] for axis in kept) or (1,)
    attributes = {'index': grouped.tolist(), 'out_shape': out_shape, 'n_reduce': count}
    if operation != 'mean':
        return [source.make(Kind.REDUCE, op=operation, **attributes)]
    total = source.make(Kind.REDUCE, op='sum', **attributes)
    total.name, total.outputs, total.source_class = f'{source.name}_sum', [f'{source.name}_sum'], ''
    n_out = math.prod(out_shape)
    weights = {'scale': np.full(n_out, 1.0 / count), 'bias': np.zeros(n_out)}
    return [total, source.make(Kind.BATCH_NORMALIZATION, inputs=[total.name], n_in=n_out, weights=weights)]
