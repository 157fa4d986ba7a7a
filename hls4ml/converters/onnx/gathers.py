"""ONNX Slice (a Gather) and ReduceSum / ReduceMean / ReduceMax / ReduceMin (a Reduce; a mean is the
sum times 1/n). Axes are ONNX's, the batch axis 0 included: it may only be taken whole."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.onnx.step import Handler, Operand, Step, onnx_axis, registrar

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)
REDUCTIONS = {'ReduceSum': 'sum', 'ReduceMean': 'mean', 'ReduceMax': 'max', 'ReduceMin': 'min'}
WHOLE = 2**31 - 1  # an end at or past this takes the rest of an axis (exporters write INT64_MAX)


def _integers(step: Step, index: int, attribute: str) -> list[int] | None:
    """Input `index` (opset 10 and later) or attribute `attribute` (before) as ints; None if absent."""
    if step.opset < 10:
        values = step.attribute(attribute)
        return None if values is None else [int(value) for value in values]
    constant = step.optional_constant(index) if len(step.inputs) > index else None
    return None if constant is None else [int(value) for value in np.asarray(constant.values).reshape(-1)]


@handles('Slice')
def slice_(step: Step) -> Operand:
    x = step.tensor(0)
    starts, ends = _integers(step, 1, 'starts'), _integers(step, 2, 'ends')
    if starts is None or ends is None:
        raise step.unsupported('starts and ends must be constants')
    axes = _integers(step, 3, 'axes') or list(range(len(starts)))
    steps = _integers(step, 4, 'steps') or [1] * len(starts)
    index = [slice(None)] * x.rank
    for axis, start, end, stride in zip(axes, starts, ends, steps, strict=True):
        if axis % (x.rank + 1) == 0:
            if start != 0 or end < WHOLE or stride != 1:
                raise step.unsupported(f'slicing the batch axis ({start}:{end}:{stride}) is not supported')
            continue
        index[onnx_axis(step, axis, x.rank)] = slice(start, end, stride)
    return step.builder.gather(step.origin, x, step.builder.positions(x)[tuple(index)])


@handles(*REDUCTIONS)
def reduction(step: Step) -> Operand:
    """Axes from the attribute (before opset 13 for ReduceSum, 18 for the others) or the input."""
    x = step.tensor(0)
    from_input = step.opset >= (13 if step.node.op_type == 'ReduceSum' else 18)
    axes = _integers(step, 1, 'axes') if from_input else step.attribute('axes')
    if not axes:
        if from_input and step.attribute('noop_with_empty_axes', 0):
            return x
        raise step.unsupported('a reduction over every axis would reduce the batch too; give the axes')
    positions = tuple(onnx_axis(step, int(axis), x.rank) for axis in axes)
    keepdims = bool(step.attribute('keepdims', 1))
    return step.builder.reduce(step.origin, x, positions, REDUCTIONS[step.node.op_type], keepdims)
