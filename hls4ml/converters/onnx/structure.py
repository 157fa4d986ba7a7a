"""ONNX ops that move or pass data: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat,
Identity, Dropout and Constant. Shapes here include ONNX's batch axis, which must stay axis 0."""

from __future__ import annotations

import math

import numpy as np
from onnx import numpy_helper

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx.step import Constant, Handler, Operand, Step, onnx_axis, registrar

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)


@handles('Identity', 'Dropout')
def pass_through(step: Step) -> Operand:
    """Dropout is the identity at inference; its mask output is refused by the walk if read."""
    operand = step.inputs[0]
    if operand is None:
        raise step.unsupported('input 0 is missing')
    training = step.optional_constant(2) if len(step.inputs) > 2 else None
    if training is not None and np.any(training.values):
        raise step.unsupported('training_mode=true (random dropout) is not supported')
    return operand


@handles('Constant')
def constant(step: Step) -> Operand:
    if 'value' not in step.attributes:
        names = ', '.join(sorted(step.attributes))
        raise step.unsupported(f'only a tensor value is supported, got {names}')
    return Constant(numpy_helper.to_array(step.attributes['value']))


@handles('Reshape')
def reshape(step: Step) -> Operand:
    """The target includes the batch entry (0 copies the input's size there, -1 is inferred)."""
    x, target = step.tensor(0), [int(dim) for dim in step.constant(1).values.reshape(-1)]
    if step.attribute('allowzero', 0) and 0 in target:
        raise step.unsupported('allowzero=1 with a 0 in the shape (an empty tensor) is not supported')
    if not target:
        raise step.unsupported('reshaping to a scalar (no batch axis) is not supported')
    batch = target[0]
    shape = [x.shape[index] if dim == 0 and index < x.rank else dim for index, dim in enumerate(target[1:])]
    if batch == -1:  # the batch is what is left over: the other entries must cover one sample exactly
        if -1 in shape or math.prod(shape) != math.prod(x.shape):
            raise step.unsupported(f'the shape {tuple(target)} does not keep the batch axis')
    elif batch < 0:
        raise step.unsupported(f'the shape {tuple(target)} is not valid')
    elif -1 not in shape and math.prod(shape) != math.prod(x.shape):
        raise step.unsupported(f'reshaping {x.shape} to {tuple(target)} moves data across the batch axis')
    return step.builder.reshape(step.origin, x, tuple(shape))


@handles('Flatten')
def flatten(step: Step) -> Operand:
    """Flatten(axis) makes (prod(dims[:axis]), prod(dims[axis:])): only the batch may stay in front."""
    x = step.tensor(0)
    axis = int(step.attribute('axis', 1))
    axis = axis + x.rank + 1 if axis < 0 else axis
    if axis < 1 or math.prod(x.shape[: axis - 1]) != 1:
        raise step.unsupported(f'flattening at axis {axis} of a tensor of shape {x.shape} mixes the batch axis in')
    return step.builder.reshape(step.origin, x, (math.prod(x.shape),))


@handles('Squeeze', 'Unsqueeze')
def squeeze(step: Step) -> Operand:
    """Axes of size 1 removed or added (from the `axes` input, or the attribute before opset 13)."""
    x = step.tensor(0)
    axes = step.attribute('axes') if step.opset < 13 else _optional_axes(step)
    rank = x.rank + (len(axes) if step.node.op_type == 'Unsqueeze' and axes else 0)
    if axes is None:
        shape = [dim for dim in x.shape if dim != 1]
    else:
        positions = sorted(onnx_axis(step, axis, rank) for axis in axes)
        if step.node.op_type == 'Squeeze':
            if any(x.shape[axis] != 1 for axis in positions):
                raise step.unsupported(f'axes {axes} of a tensor of shape {x.shape} do not all have size 1')
            shape = [dim for axis, dim in enumerate(x.shape) if axis not in positions]
        else:
            shape = list(x.shape)
            for axis in positions:
                shape.insert(axis, 1)
    if not shape:
        raise step.unsupported(f'squeezing a tensor of shape {x.shape} to a scalar per sample is not supported')
    return step.builder.reshape(step.origin, x, tuple(shape))


def _optional_axes(step: Step) -> list[int] | None:
    axes = step.optional_constant(1) if len(step.inputs) > 1 else None
    return None if axes is None else [int(axis) for axis in axes.values.reshape(-1)]


@handles('Transpose')
def transpose(step: Step) -> Operand:
    x = step.tensor(0)
    perm = step.attribute('perm', list(range(x.rank, -1, -1)))
    if int(perm[0]) != 0:
        raise step.unsupported(f'perm {tuple(perm)} moves the batch axis')
    return step.builder.transpose(step.origin, x, tuple(int(axis) - 1 for axis in perm[1:]))


@handles('Concat')
def concat(step: Step) -> Operand:
    values = [operand for operand in step.inputs if operand is not None]
    if not all(isinstance(value, Value) for value in values):
        raise step.unsupported('concatenating a constant with tensors is not supported')
    tensors = [value for value in values if isinstance(value, Value)]
    if len(tensors) == 1:
        return tensors[0]
    return step.builder.concat(step.origin, tensors, onnx_axis(step, step.attribute('axis', 1), tensors[0].rank))
