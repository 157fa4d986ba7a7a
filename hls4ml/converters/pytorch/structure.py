"""Moving data without arithmetic: flatten, view / reshape, (un)squeeze, permute / transpose and
concatenation, and the shape queries (`x.size(0)`, `x.shape`) that reshapes are written with.

A reshape's new shape includes the batch axis: its first entry must be -1 or the batch size
(`x.size(0)`) and the others must keep each sample's values together.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import torch

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.gathers import slice_tensor
from hls4ml.converters.pytorch.recurrent import LastState, StackedStates
from hls4ml.converters.pytorch.registry import (
    BATCH,
    SequenceFirst,
    Step,
    functions,
    modules,
    sample_axis,
    tensor,
)
from hls4ml.converters.pytorch.selection import TOPK_FIELDS, TopKResult


def _shape_argument(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """`x.view(2, 3)` and `x.view((2, 3))` alike."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)


def reshape_with_batch(step: Step, x: Any, shape: tuple[Any, ...]) -> Value:
    """A reshape to `shape`, whose first entry stands for the batch axis."""
    x = tensor(step, x)
    if not shape or any(entry is BATCH for entry in shape[1:]):
        raise step.refuse(f'the new shape {shape} must start with the batch size and keep it only there')
    first, rest = shape[0], tuple(int(entry) for entry in shape[1:])
    if first is not BATCH and first != -1:
        raise step.refuse(f'the first (batch) entry of the new shape {shape} must be -1 or x.size(0), got {first}')
    if first == -1 and (-1 in rest or math.prod(rest) != math.prod(x.shape)):
        raise step.refuse(f'the new shape {shape} would move values between the samples of a batch')
    return step.builder.reshape(step.origin, x, rest)


@functions(methods=('view', 'reshape'))
def view(step: Step, x: Any, *shape: Any) -> Value:
    return reshape_with_batch(step, x, _shape_argument(shape))


@functions(torch.reshape)
def reshape(step: Step, x: Any, shape: Any) -> Value:
    return reshape_with_batch(step, x, tuple(shape))


@functions(torch.flatten, methods=('flatten',))
def flatten(step: Step, x: Any, start_dim: int = 0, end_dim: int = -1) -> Value:
    """Note PyTorch's defaults: torch.flatten(x) and x.flatten() flatten the batch axis too."""
    x = tensor(step, x)
    rank = x.rank + 1
    start, end = int(start_dim) % rank, int(end_dim) % rank
    if start == 0:
        if end == 0:
            return x
        raise step.refuse(f'flatten(start_dim={start_dim}) would merge the batch axis; use start_dim=1')
    return step.builder.flatten(step.origin, x, start - 1, end - 1)


@modules('Flatten')
def flatten_module(step: Step, module: Any, x: Any) -> Value:
    return flatten(step, x, module.start_dim, module.end_dim)


@functions(torch.unflatten, methods=('unflatten',))
def unflatten(step: Step, x: Any, dim: int, sizes: Any) -> Value:
    x = tensor(step, x)
    axis = sample_axis(step, x, dim)
    return step.builder.reshape(step.origin, x, x.shape[:axis] + tuple(sizes) + x.shape[axis + 1 :])


@modules('Unflatten')
def unflatten_module(step: Step, module: Any, x: Any) -> Value:
    return unflatten(step, x, module.dim, module.unflattened_size)


@functions(torch.unsqueeze, methods=('unsqueeze',))
def unsqueeze(step: Step, x: Any, dim: int) -> Value | SequenceFirst:
    x = tensor(step, x)
    rank = x.rank + 2  # of the result
    if x.rank == 1 and int(dim) % rank == 0:  # (batch, hidden) -> (1, batch, hidden): a recurrent h0 / c0
        return SequenceFirst(step.builder.reshape(step.origin, x, (1, x.shape[0])))
    if not -rank <= int(dim) < rank or int(dim) % rank == 0:
        raise step.refuse(f'unsqueeze({dim}) is not supported (a new axis after the batch axis only)')
    axis = int(dim) % rank - 1
    return step.builder.reshape(step.origin, x, x.shape[:axis] + (1,) + x.shape[axis:])


@functions(torch.squeeze, methods=('squeeze',))
def squeeze(step: Step, x: Any, dim: Any = None) -> Value:
    x = tensor(step, x)
    if dim is None:
        raise step.refuse('squeeze() without dim would also drop a batch axis of size 1; name the axis')
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = {sample_axis(step, x, axis) for axis in dims}
    shape = tuple(size for axis, size in enumerate(x.shape) if axis not in axes or size != 1)
    return x if shape == x.shape else step.builder.reshape(step.origin, x, shape)


@functions(torch.permute, methods=('permute',))
def permute(step: Step, x: Any, *dims: Any) -> Value | SequenceFirst:
    dims = _shape_argument(dims)
    if isinstance(x, (Value, SequenceFirst)) and len(dims) >= 2 and _swaps_batch(x, dims[0], dims[1]):
        if [int(axis) % len(dims) for axis in dims[2:]] == list(range(2, len(dims))):
            return _batch_swapped(step, x)
    x = tensor(step, x)
    rank = x.rank + 1
    if len(dims) != rank or int(dims[0]) % rank != 0:
        raise step.refuse(f'permute{tuple(dims)} must keep the batch axis first')
    return step.builder.transpose(step.origin, x, tuple(int(axis) % rank - 1 for axis in dims[1:]))


@functions(torch.transpose, torch.swapaxes, torch.swapdims, methods=('transpose', 'swapaxes', 'swapdims'))
def transpose(step: Step, x: Any, dim0: int, dim1: int) -> Value | SequenceFirst:
    if isinstance(x, (Value, SequenceFirst)) and _swaps_batch(x, dim0, dim1):
        return _batch_swapped(step, x)
    x = tensor(step, x)
    first, second = sample_axis(step, x, dim0), sample_axis(step, x, dim1)
    perm = list(range(x.rank))
    perm[first], perm[second] = second, first
    return step.builder.transpose(step.origin, x, tuple(perm))


def _swaps_batch(x: Value | SequenceFirst, dim0: Any, dim1: Any) -> bool:
    """Whether the transpose of dims `dim0` and `dim1` swaps the batch axis with the next one."""
    rank = len(x.torch_shape) if isinstance(x, SequenceFirst) else x.rank + 1
    try:
        return rank >= 2 and {int(dim0) % rank, int(dim1) % rank} == {0, 1}
    except (TypeError, ValueError):
        return False


def _batch_swapped(step: Step, x: Value | SequenceFirst) -> Value | SequenceFirst:
    """x.transpose(0, 1): a batch-first tensor to PyTorch's sequence-first layout and back (docs/attention.md);
    no data moves, since each sample is still computed alone."""
    if isinstance(x, SequenceFirst):
        return x.value
    if x.rank < 1:
        raise step.refuse('transposing the batch axis of a tensor without other axes is not supported')
    return SequenceFirst(x)


def _concatenate(step: Step, tensors: Any, dim: int) -> Value:
    values = [tensor(step, item, f'concatenated item {index}') for index, item in enumerate(tensors)]
    if not values:
        raise step.refuse('nothing to concatenate')
    axis = sample_axis(step, values[0], dim)
    return values[0] if len(values) == 1 else step.builder.concat(step.origin, values, axis)


@functions(torch.cat, torch.concat)
def cat(step: Step, tensors: Any, dim: int = 0) -> Value:
    return _concatenate(step, tensors, dim)


@functions(torch.concatenate)
def concatenate(step: Step, tensors: Any, axis: int = 0) -> Value:
    return _concatenate(step, tensors, axis)


@functions(torch.clone, methods=('contiguous', 'clone'))
def same(step: Step, x: Any, *args: Any, **kwargs: Any) -> Value:
    """contiguous() and clone(): the same values."""
    return tensor(step, x)


FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


@functions(methods=('to', 'float', 'double', 'half', 'type_as'))
def cast(step: Step, x: Any, *args: Any, **kwargs: Any) -> Value:
    """Floating-point dtype and device moves (`.to(x.dtype)`, `.float()`, ...): the firmware's types come
    from the config, so they move nothing. A cast to an integer or boolean dtype would round: refused."""
    targets = [*args, kwargs.get('dtype')]
    wrong = [target for target in targets if isinstance(target, torch.dtype) and target not in FLOATING]
    if wrong:
        raise step.refuse(f'a cast to {wrong[0]} (only floating-point dtypes, which the firmware ignores)')
    return tensor(step, x)


# ---- shape queries ------------------------------------------------------------------------------
def _size_of(x: Value) -> tuple[Any, ...]:
    return (BATCH, *x.shape)


@functions(methods=('size',))
def size(step: Step, x: Any, dim: int | None = None) -> Any:
    """x.size() with the batch axis as BATCH, or one entry of it."""
    full = _size_of(tensor(step, x))
    return full if dim is None else full[int(dim)]


@functions(methods=('dim',))
def dimensions(step: Step, x: Any) -> int:
    return tensor(step, x).rank + 1


@functions(builtins.getattr)
def attribute(step: Step, x: Any, name: str) -> Any:
    """x.shape, x.ndim and x.dtype (float32: only `.to()` reads it); .values and .indices of torch.topk's result."""
    if isinstance(x, TopKResult) and name in TOPK_FIELDS:
        return x.field(name)
    x = tensor(step, x)
    if name == 'shape':
        return _size_of(x)
    if name == 'ndim':
        return x.rank + 1
    if name == 'dtype':
        return torch.float32
    raise step.refuse(f'the tensor attribute {name!r} is not supported')


@functions(operator.getitem)
def getitem(step: Step, container: Any, index: Any) -> Any:
    """An item of a size or of a tuple of results, or a slice of a tensor (`gathers.slice_tensor`)."""
    if isinstance(container, (LastState, StackedStates)):  # h_n of a recurrent module: axis 0 is not the batch
        return container.item(step, index)
    if isinstance(container, Value):
        return slice_tensor(step, container, index)
    return container[index]
