"""ONNX ops with a window: Conv, MaxPool, AveragePool, the global pools, and Pad.

ONNX `pads` list all begins then all ends (`[x1_begin, x2_begin, ..., x1_end, x2_end]`) over the
spatial axes; `auto_pad` SAME_UPPER / SAME_LOWER pad so that the output is `ceil(in / stride)`, the
odd pixel at the end (UPPER) or the beginning (LOWER).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.converters.onnx.quant import declared_average
from hls4ml.converters.onnx.step import Handler, Operand, Step, preset_types, registrar

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)


def window_pads(step: Step, sizes: tuple[int, ...], window: tuple[int, ...], strides: tuple[int, ...]) -> list:
    """(before, after) per spatial axis from `pads` or `auto_pad`."""
    rank = len(window)
    auto_pad = str(step.attribute('auto_pad', 'NOTSET'))
    if auto_pad in ('NOTSET', ''):
        pads = [int(pad) for pad in step.attribute('pads', [0] * 2 * rank)]
        if len(pads) != 2 * rank:
            raise step.unsupported(f'pads {pads} do not fit a {rank}-D window')
        return list(zip(pads[:rank], pads[rank:], strict=True))
    if auto_pad == 'VALID':
        return [(0, 0)] * rank
    if auto_pad not in ('SAME_UPPER', 'SAME_LOWER'):
        raise step.unsupported(f'auto_pad={auto_pad!r} is not supported')
    result = []
    for size, length, stride in zip(sizes, window, strides, strict=True):
        total = max((math.ceil(size / stride) - 1) * stride + length - size, 0)
        small, large = total // 2, total - total // 2
        result.append((small, large) if auto_pad == 'SAME_UPPER' else (large, small))
    return result


def _no_dilation(step: Step, rank: int) -> None:
    dilations = [int(d) for d in step.attribute('dilations', [1] * rank)]
    if any(d != 1 for d in dilations):
        raise step.unsupported(f'dilations {tuple(dilations)} are not supported (1 only)')


@handles('Conv')
def conv(step: Step) -> Operand:
    x, weight, bias = step.tensor(0), step.constant(1), step.optional_constant(2)
    window = tuple(int(length) for length in weight.values.shape[2:])
    if tuple(step.attribute('kernel_shape', window)) != window:
        raise step.unsupported(f'kernel_shape {step.attribute("kernel_shape")} differs from the weights {window}')
    rank = len(window)
    dilations = tuple(int(d) for d in step.attribute('dilations', [1] * rank))
    strides = tuple(int(stride) for stride in step.attribute('strides', [1] * rank))
    spread = tuple((length - 1) * d + 1 for length, d in zip(window, dilations, strict=True))
    pads = window_pads(step, x.shape[1:], spread, strides)
    vector = None if bias is None else np.asarray(bias.values, dtype=np.float64).reshape(-1)
    groups = int(step.attribute('group', 1))
    types = preset_types(weight=weight, bias=bias)
    return step.builder.conv(step.origin, x, weight.values, vector, strides, pads, dilations, groups, **types)


@handles('ConvTranspose')
def conv_transpose(step: Step) -> Operand:
    """Explicit pads (or VALID) and output_padding; an output_shape attribute is refused."""
    x, weight, bias = step.tensor(0), step.constant(1), step.optional_constant(2)
    rank = weight.values.ndim - 2
    if step.attribute('output_shape') is not None or str(step.attribute('auto_pad', 'NOTSET')) not in (
        'NOTSET',
        'VALID',
        '',
    ):
        raise step.unsupported('output_shape and auto_pad SAME_* are not supported (give pads)')
    pads = [int(pad) for pad in step.attribute('pads', [0] * 2 * rank)]
    return step.builder.conv_transpose(
        step.origin,
        x,
        weight.values,
        None if bias is None else np.asarray(bias.values, dtype=np.float64).reshape(-1),
        tuple(int(stride) for stride in step.attribute('strides', [1] * rank)),
        list(zip(pads[:rank], pads[rank:], strict=True)),
        tuple(int(extra) for extra in step.attribute('output_padding', [0] * rank)),
        tuple(int(d) for d in step.attribute('dilations', [1] * rank)),
        int(step.attribute('group', 1)),
        **preset_types(weight=weight, bias=bias),
    )


def _window(step: Step) -> tuple[tuple[int, ...], tuple[int, ...]]:
    window = tuple(int(length) for length in step.attribute('kernel_shape', []))
    if not window:
        raise step.unsupported('kernel_shape is missing')
    _no_dilation(step, len(window))
    return window, tuple(int(stride) for stride in step.attribute('strides', [1] * len(window)))


@handles('MaxPool')
def max_pool(step: Step) -> Operand:
    """Padded positions are -inf in ONNX: they never win, as in the builder's pooling."""
    x = step.tensor(0)
    window, strides = _window(step)
    if int(step.attribute('storage_order', 0)):
        raise step.unsupported('storage_order=1 (column-major indices) is not supported')
    pads = window_pads(step, x.shape[1:], window, strides)
    ceil_mode = bool(step.attribute('ceil_mode', 0))
    return step.builder.pool(step.origin, x, 'max', window, strides, pads, ceil_mode=ceil_mode)


@handles('AveragePool')
def average_pool(step: Step) -> Operand:
    """count_include_pad=0 (ONNX's default) skips padded positions, 1 counts them as zeros."""
    x = step.tensor(0)
    window, strides = _window(step)
    pads = window_pads(step, x.shape[1:], window, strides)
    include = bool(step.attribute('count_include_pad', 0))
    full_windows = include or not any(before or after for before, after in pads)
    types = declared_average(step, math.prod(window), step.unit) if full_windows else {}
    ceil_mode = bool(step.attribute('ceil_mode', 0))
    return step.builder.pool(step.origin, x, 'average', window, strides, pads, include, ceil_mode, **types)


@handles('GlobalAveragePool', 'GlobalMaxPool')
def global_pool(step: Step) -> Operand:
    x = step.tensor(0)
    if step.node.op_type == 'GlobalMaxPool':
        return step.builder.global_pool(step.origin, x, 'max', keepdims=True)
    types = declared_average(step, math.prod(x.shape[1:]), step.unit)
    return step.builder.global_pool(step.origin, x, 'average', keepdims=True, **types)


@handles('Pad')
def pad(step: Step) -> Operand:
    """Zero padding of the spatial axes (`pads` input from opset 11, attribute before)."""
    x = step.tensor(0)
    if str(step.attribute('mode', 'constant')) != 'constant':
        raise step.unsupported(f'mode {step.attribute("mode")!r} is not supported (constant zeros only)')
    if step.opset < 11:
        pads, value = [int(p) for p in step.attribute('pads', [])], float(step.attribute('value', 0.0))
    else:
        pads = [int(p) for p in step.constant(1).values.reshape(-1)]
        value = step.scalar(2, 'the padding value') if len(step.inputs) > 2 and step.inputs[2] is not None else 0.0
        if len(step.inputs) > 3 and step.inputs[3] is not None:
            raise step.unsupported('the axes input is not supported (pad all axes)')
    rank = x.rank + 1
    if value != 0 or len(pads) != 2 * rank or any(pads[index] or pads[rank + index] for index in (0, 1)):
        raise step.unsupported(f'pads {pads} with value {value}: only zeros around the spatial axes are supported')
    if any(p < 0 for p in pads):
        raise step.unsupported(f'negative pads {pads} (cropping) are not supported')
    return step.builder.zero_pad(step.origin, x, list(zip(pads[2:rank], pads[rank + 2 :], strict=True)))
