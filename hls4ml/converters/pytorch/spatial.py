"""Convolutions, pooling (and means over the spatial axes), zero padding and batch normalization:
modules and their functional forms.

Padding becomes explicit (before, after) amounts per spatial axis; for padding='same' PyTorch puts
the odd one after, as Keras does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.gathers import reduce
from hls4ml.converters.pytorch.registry import Step, array, constant, functions, modules, sample_axis, sizes, tensor

POOL_RANK = {'MaxPool1d': 1, 'MaxPool2d': 2, 'AvgPool1d': 1, 'AvgPool2d': 2}
ADAPTIVE = {
    'AdaptiveAvgPool1d': 'average',
    'AdaptiveAvgPool2d': 'average',
    'AdaptiveMaxPool1d': 'max',
    'AdaptiveMaxPool2d': 'max',
}


def _pads(step: Step, padding: Any, window: tuple[int, ...], dilations: tuple[int, ...]) -> list[tuple[int, int]]:
    if padding == 'valid':
        return [(0, 0)] * len(window)
    if padding == 'same':
        totals = [dilation * (length - 1) for length, dilation in zip(window, dilations, strict=True)]
        return [(total // 2, total - total // 2) for total in totals]
    if isinstance(padding, str):
        raise step.refuse(f"padding {padding!r} is not supported (an int, a tuple, 'valid' or 'same')")
    return [(pad, pad) for pad in sizes(padding, len(window))]


# ---- convolutions -------------------------------------------------------------------------------
def convolution(
    step: Step,
    x: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Value:
    """F.conv1d / F.conv2d with a constant (out, in / groups, *window) weight."""
    weight = constant(step, weight, 'the weight')
    rank = weight.ndim - 2
    if rank not in (1, 2):
        raise step.refuse(f'a weight of shape {weight.shape} is not supported (1-D and 2-D convolutions)')
    dilations = sizes(dilation, rank)
    pads = _pads(step, padding, tuple(weight.shape[2:]), dilations)
    bias = None if bias is None else constant(step, bias, 'the bias')
    return step.builder.conv(
        step.origin, tensor(step, x), weight, bias, sizes(stride, rank), pads, dilations, groups=int(groups)
    )


functions(F.conv1d, F.conv2d)(convolution)


@modules('Conv1d', 'Conv2d')
def convolution_module(step: Step, module: Any, x: Any) -> Value:
    if module.padding_mode != 'zeros':
        raise step.refuse(f"padding_mode={module.padding_mode!r} is not supported (only 'zeros')")
    bias = None if module.bias is None else array(module.bias)
    return convolution(
        step, x, array(module.weight), bias, module.stride, module.padding, module.dilation, module.groups
    )


def transposed_convolution(
    step: Step,
    x: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Value:
    """F.conv_transpose1d / 2d with a constant (in, out / groups, *window) weight."""
    weight = constant(step, weight, 'the weight')
    rank = weight.ndim - 2
    if rank not in (1, 2) or isinstance(padding, str):
        raise step.refuse(f'a weight of shape {weight.shape} with padding {padding!r} is not supported')
    pads = [(pad, pad) for pad in sizes(padding, rank)]
    bias = None if bias is None else constant(step, bias, 'the bias')
    return step.builder.conv_transpose(
        step.origin,
        tensor(step, x),
        weight,
        bias,
        sizes(stride, rank),
        pads,
        sizes(output_padding, rank),
        sizes(dilation, rank),
        groups=int(groups),
    )


functions(F.conv_transpose1d, F.conv_transpose2d)(transposed_convolution)


@modules('ConvTranspose1d', 'ConvTranspose2d')
def transposed_convolution_module(step: Step, module: Any, x: Any, output_size: Any = None) -> Value:
    if module.padding_mode != 'zeros' or output_size is not None:
        raise step.refuse(f"padding_mode={module.padding_mode!r} or output_size is not supported (only 'zeros')")
    bias = None if module.bias is None else array(module.bias)
    return transposed_convolution(
        step,
        x,
        array(module.weight),
        bias,
        module.stride,
        module.padding,
        module.output_padding,
        module.groups,
        module.dilation,
    )


# ---- pooling ------------------------------------------------------------------------------------
def _pool(
    step: Step,
    op: str,
    rank: int,
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Value:
    window = sizes(kernel_size, rank)
    strides = window if stride is None or (isinstance(stride, (tuple, list)) and not stride) else sizes(stride, rank)
    if sizes(dilation, rank) != (1,) * rank:
        raise step.refuse(f'dilated pooling (dilation {dilation}) is not supported')
    pads = [(pad, pad) for pad in sizes(padding, rank)]
    return step.builder.pool(
        step.origin, tensor(step, x), op, window, strides, pads, bool(count_include_pad), bool(ceil_mode)
    )


def _max_pool(rank: int) -> Any:
    def handler(
        step: Step,
        x: Any,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: bool = False,
    ) -> Value:
        if return_indices:
            raise step.refuse('max pooling with return_indices=True is not supported')
        return _pool(step, 'max', rank, x, kernel_size, stride, padding, dilation, ceil_mode)

    return handler


def _average_pool(rank: int) -> Any:
    def handler(
        step: Step,
        x: Any,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> Value:
        if divisor_override is not None:
            raise step.refuse('average pooling with divisor_override is not supported')
        return _pool(step, 'average', rank, x, kernel_size, stride, padding, 1, ceil_mode, count_include_pad)

    return handler


functions(F.max_pool1d, torch.max_pool1d)(_max_pool(1))
functions(F.max_pool2d, torch.max_pool2d)(_max_pool(2))
functions(F.avg_pool1d, torch.avg_pool1d)(_average_pool(1))
functions(F.avg_pool2d)(_average_pool(2))


@modules(*POOL_RANK)
def pool_module(step: Step, module: Any, x: Any) -> Value:
    rank, settings = POOL_RANK[type(module).__name__], vars(module)
    if settings.get('return_indices') or settings.get('divisor_override') is not None:
        raise step.refuse('return_indices and divisor_override are not supported')
    op = 'max' if type(module).__name__.startswith('Max') else 'average'
    return _pool(
        step,
        op,
        rank,
        x,
        module.kernel_size,
        module.stride,
        module.padding,
        settings.get('dilation', 1),
        module.ceil_mode,
        settings.get('count_include_pad', True),
    )


def adaptive_pool(step: Step, op: str, x: Any, output_size: Any) -> Value:
    """To size 1: a global pooling keeping the 1-sized axes; to a divisor of the input size: plain
    pooling with equal, non-overlapping windows."""
    x = tensor(step, x)
    spatial = x.shape[1:]
    wanted = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * len(spatial)
    if len(wanted) != len(spatial):
        raise step.refuse(f'output size {output_size} does not fit an input of shape {x.shape}')
    wanted = tuple(size if out is None else int(out) for size, out in zip(spatial, wanted, strict=True))
    if all(out == 1 for out in wanted):
        return step.builder.global_pool(step.origin, x, op, keepdims=True)
    if any(size % out for size, out in zip(spatial, wanted, strict=True)):
        raise step.refuse(
            f'adaptive pooling of {spatial} to {wanted} is not supported (only to size 1 or to divisors of the input)'
        )
    window = tuple(size // out for size, out in zip(spatial, wanted, strict=True))
    return step.builder.pool(step.origin, x, op, window, window, [(0, 0)] * len(window))


@functions(F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, torch.adaptive_avg_pool1d)
def adaptive_average(step: Step, x: Any, output_size: Any) -> Value:
    return adaptive_pool(step, 'average', x, output_size)


@functions(F.adaptive_max_pool1d, F.adaptive_max_pool2d)
def adaptive_max(step: Step, x: Any, output_size: Any, return_indices: bool = False) -> Value:
    if return_indices:
        raise step.refuse('adaptive max pooling with return_indices=True is not supported')
    return adaptive_pool(step, 'max', x, output_size)


@modules(*ADAPTIVE)
def adaptive_module(step: Step, module: Any, x: Any) -> Value:
    if getattr(module, 'return_indices', False):
        raise step.refuse('adaptive max pooling with return_indices=True is not supported')
    return adaptive_pool(step, ADAPTIVE[type(module).__name__], x, module.output_size)


# ---- batch normalization ------------------------------------------------------------------------
@functions(F.batch_norm)
def batch_norm(
    step: Step,
    x: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Value:
    """Inference batch normalization: scale = gamma / sqrt(var + eps), bias = beta - mean * scale."""
    if training or running_mean is None or running_var is None:
        raise step.refuse('batch normalization with batch statistics (training, or no running statistics)')
    mean, variance = constant(step, running_mean), constant(step, running_var)
    gamma = np.ones_like(mean) if weight is None else constant(step, weight)
    beta = np.zeros_like(mean) if bias is None else constant(step, bias)
    scale = gamma / np.sqrt(variance + float(eps))
    return step.builder.batchnorm(step.origin, tensor(step, x), scale, beta - mean * scale)


@modules('BatchNorm1d', 'BatchNorm2d')
def batch_norm_module(step: Step, module: Any, x: Any) -> Value:
    if module.running_mean is None or module.running_var is None:
        raise step.refuse('batch normalization without running statistics (track_running_stats=False)')
    weight = array(module.weight) if module.affine else None
    bias = array(module.bias) if module.affine else None
    mean, variance = array(module.running_mean), array(module.running_var)
    return batch_norm(step, x, mean, variance, weight, bias, eps=module.eps)


@functions(torch.mean, methods=('mean',))
def mean(step: Step, x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Value:
    """A mean over all the spatial axes (`x.mean((2, 3))`): a global average pooling; over other axes
    a Reduce sum times 1/n (`gathers.reduce`)."""
    x = tensor(step, x)
    dims = dim if isinstance(dim, (tuple, list)) else (() if dim is None else (dim,))
    axes = sorted(sample_axis(step, x, axis) for axis in dims) if dims else None
    if axes != list(range(1, x.rank)) or x.rank < 2:
        return reduce(step, x, dim, keepdim, 'mean')
    return step.builder.global_pool(step.origin, x, 'average', keepdims=bool(keepdim))


# ---- padding ------------------------------------------------------------------------------------
def zero_pad(step: Step, x: Any, pad: Any, value: float = 0.0) -> Value:
    """Padding given as PyTorch does, last axis first: (left, right[, top, bottom])."""
    x = tensor(step, x)
    pad = tuple(int(amount) for amount in pad)
    if float(value) != 0.0 or len(pad) != 2 * (x.rank - 1) or min(pad) < 0:
        raise step.refuse(
            f'padding {pad} with value {value} is not supported (zeros, before and after each spatial axis)'
        )
    pairs = [(pad[index], pad[index + 1]) for index in range(0, len(pad), 2)]
    return step.builder.zero_pad(step.origin, x, pairs[::-1])


@functions(F.pad)
def pad(step: Step, x: Any, pad: Any, mode: str = 'constant', value: float | None = None) -> Value:
    if mode != 'constant':
        raise step.refuse(f'padding mode {mode!r} is not supported (only constant zeros)')
    return zero_pad(step, x, pad, 0.0 if value is None else value)


@modules('ZeroPad1d', 'ZeroPad2d', 'ConstantPad1d', 'ConstantPad2d')
def pad_module(step: Step, module: Any, x: Any) -> Value:
    return zero_pad(step, x, module.padding, module.value)
