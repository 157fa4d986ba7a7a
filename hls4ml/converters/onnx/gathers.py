"""ONNX Slice (a Gather), ReduceSum / ReduceMean / ReduceMax / ReduceMin (a Reduce; a mean is the
sum times 1/n) and Resize (nearest: a Gather; linear: an Interpolate). Axes are ONNX's, the batch
axis 0 included: it may only be taken whole."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.onnx.step import Handler, Operand, Step, onnx_axis, registrar
from hls4ml.converters.resampling import linear_taps, nearest_sources

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


# Resize: (mode, coordinate_transformation_mode, nearest_mode) -> what the builder computes
NEAREST_MODES = {('asymmetric', 'floor'): False, ('half_pixel', 'floor'): True}
LINEAR_MODES = {'half_pixel': False, 'pytorch_half_pixel': False, 'align_corners': True}


@handles('Resize', 'Upsample')
def resize(step: Step) -> Operand:
    """Resize of the spatial axes of a (N, C, *spatial) tensor by `scales` or to `sizes`: mode nearest
    (asymmetric + floor as PyTorch exports it, or half_pixel + floor) and linear (half_pixel,
    pytorch_half_pixel, align_corners); the other settings are refused by name."""
    x = step.tensor(0)
    scales = _resize_input(step, 2 if step.node.op_type == 'Resize' and step.opset >= 11 else 1)
    sizes = _resize_input(step, 3) if step.node.op_type == 'Resize' and step.opset >= 11 else None
    if step.node.op_type == 'Upsample' and step.opset < 9:
        scales = [float(scale) for scale in step.attribute('scales', [])]
    mode = str(step.attribute('mode', 'nearest'))
    transform = str(
        step.attribute('coordinate_transformation_mode', 'half_pixel' if step.opset >= 11 else 'asymmetric')
    )
    nearest = str(step.attribute('nearest_mode', 'round_prefer_floor' if step.opset >= 11 else 'floor'))
    spatial = x.shape[1:]
    if sizes:
        if len(sizes) != x.rank + 1 or int(sizes[1]) != x.shape[0]:
            raise step.unsupported(f'sizes {sizes} must keep the channel axis ({x.shape[0]})')
        outs = [int(size) for size in sizes[2:]]
        ratios = [length / out for length, out in zip(spatial, outs, strict=True)]
    elif scales and len(scales) == x.rank + 1 and scales[:2] == [1.0, 1.0]:
        outs = [int(length * scale) for length, scale in zip(spatial, scales[2:], strict=True)]
        ratios = [1 / scale for scale in scales[2:]]
    else:
        raise step.unsupported(f'scales {scales} must keep the batch and channel axes (1, 1, ...)')
    if mode == 'nearest' and (transform, nearest) in NEAREST_MODES:
        exact = NEAREST_MODES[(transform, nearest)]
        sources = [
            nearest_sources(length, out, ratio, exact) for length, out, ratio in zip(spatial, outs, ratios, strict=True)
        ]
        picked = step.builder.positions(x)[np.ix_(np.arange(x.shape[0]), *sources)]
        return step.builder.gather(step.origin, x, picked)
    if mode == 'linear' and transform in LINEAR_MODES:
        taps = [
            linear_taps(length, out, ratio, LINEAR_MODES[transform])
            for length, out, ratio in zip(spatial, outs, ratios, strict=True)
        ]
        return step.builder.interpolate(step.origin, x, taps)
    raise step.unsupported(
        f'mode {mode!r} with coordinate_transformation_mode {transform!r} and nearest_mode {nearest!r} is not supported'
    )


def _resize_input(step: Step, index: int) -> list[float] | None:
    constant = step.optional_constant(index) if len(step.inputs) > index else None
    if constant is None or np.asarray(constant.values).size == 0:
        return None
    return [float(value) for value in np.asarray(constant.values).reshape(-1)]
