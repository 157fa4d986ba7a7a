"""References of `nnet::pooling` and `nnet::global_pooling`, 1-D and 2-D (channels last).

Per output pixel and channel, over the window's valid (non-padded) inputs in (kh, kw) order:

* max: the exact maximum of the inputs (data type), written into the result type;
* average: sum = 0 into accum_t, sum += x (each a write into accum_t), then `sum / n` with n the
  number of valid inputs as a C `int` (the quotient keeps accum_t's fraction bits, truncated
  toward zero), written into the result type.

Padded positions take no part. Here the input is padded with the type's minimum for the maximum
(never above a valid input, and every window holds one) and with 0 for the sum (adding an exact 0
to a value of accum_t and writing it back changes nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.reference.conv import output_size, padded_image, window_slice
from hls4ml.model.types import IntegerPrecisionType, PrecisionType

Type = str | PrecisionType
POOL_OPS = ('max', 'average')


def _valid_counts(in_size: int, window: int, stride: int, pad_before: int, out_size: int) -> np.ndarray:
    """Per output position along one axis, how many of its window's inputs are not padding."""
    start = np.arange(out_size) * stride
    low, high = np.maximum(start, pad_before), np.minimum(start + window, pad_before + in_size)
    if np.any(high <= low):
        raise ValueError('pooling: a window lies entirely in the padding')
    return high - low


def _sum(values: list[FixedArray], accum_type: Type) -> FixedArray:
    zeros = np.zeros(values[0].shape, dtype=np.int64)  # the C int 0, one per sum
    total = FixedArray.from_raw(zeros, IntegerPrecisionType(32), values[0].family).cast(accum_type)
    for value in values:
        total = (total + value).cast(accum_type)
    return total


def _average(total: FixedArray, counts: np.ndarray, result_type: Type) -> FixedArray:
    divisor = FixedArray.from_raw(counts, IntegerPrecisionType(32), total.family)
    return (total / divisor).cast(result_type)


def _maximum(values: list[FixedArray]) -> FixedArray:
    raw = values[0].raw
    for value in values[1:]:
        raw = np.maximum(raw, value.raw)  # raw values of one type compare like the values
    return FixedArray(raw, values[0].type, values[0].family)


def _check(pool_op: str) -> None:
    if pool_op not in POOL_OPS:
        raise ValueError(f'unknown pool_op {pool_op!r}; expected one of {POOL_OPS}')


def pooling2d(
    x: FixedArray,
    pool_op: str,
    result_type: Type,
    accum_type: Type | None = None,
    *,
    in_height: int,
    in_width: int,
    pool_size: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Sequence[int] = (0, 0, 0, 0),
) -> FixedArray:
    """`pool_op` 'max' or 'average' (which needs `accum_type`); `padding` (top, bottom, left, right).

    `strides` defaults to `pool_size` (Keras). Returns (n_samples, out_height * out_width * channels).
    """
    _check(pool_op)
    x = as_samples(x)
    strides = tuple(strides or pool_size)
    top, bottom, left, right = padding
    out_shape = (
        output_size(in_height, pool_size[0], strides[0], top, bottom),
        output_size(in_width, pool_size[1], strides[1], left, right),
    )
    counts = np.multiply.outer(
        _valid_counts(in_height, pool_size[0], strides[0], top, out_shape[0]),
        _valid_counts(in_width, pool_size[1], strides[1], left, out_shape[1]),
    )
    image = padded_image(x, in_height, in_width, padding)
    if pool_op == 'max':
        image = FixedArray(np.where(_padding_mask(image.shape, padding), x.type.raw_min, image.raw), x.type, x.family)
    windows = [
        window_slice(image, kh, kw, out_shape, strides) for kh in range(pool_size[0]) for kw in range(pool_size[1])
    ]
    if pool_op == 'max':
        result = _maximum(windows).cast(result_type)
    else:
        if accum_type is None:
            raise ValueError('average pooling needs accum_type')
        result = _average(_sum(windows, accum_type), counts[np.newaxis, :, :, np.newaxis], result_type)
    return FixedArray(result.raw.reshape(x.shape[0], -1), result.type, result.family)


def _padding_mask(shape: tuple, padding: Sequence[int]) -> np.ndarray:
    """True on the padded positions of a padded image of `shape` (n, H, W, C)."""
    top, bottom, left, right = padding
    mask = np.ones(shape[1:3], dtype=bool)
    mask[top : shape[1] - bottom, left : shape[2] - right] = False
    return mask[np.newaxis, :, :, np.newaxis]


def pooling1d(
    x: FixedArray,
    pool_op: str,
    result_type: Type,
    accum_type: Type | None = None,
    *,
    n_filt: int,
    pool_size: int,
    stride: int | None = None,
    padding: Sequence[int] = (0, 0),
) -> FixedArray:
    """1-D pooling over (n_samples, in_width * n_filt); `padding` (pad_left, pad_right)."""
    x = as_samples(x)
    return pooling2d(
        x,
        pool_op,
        result_type,
        accum_type,
        in_height=1,
        in_width=x.shape[1] // n_filt,
        pool_size=(1, pool_size),
        strides=(1, stride or pool_size),
        padding=(0, 0, *padding),
    )


def global_pooling(
    x: FixedArray, pool_op: str, result_type: Type, accum_type: Type | None = None, *, n_filt: int
) -> FixedArray:
    """Per channel over all positions (both `global_pooling1d` and `global_pooling2d`): (n_samples, n_filt)."""
    _check(pool_op)
    x = as_samples(x)
    if x.shape[1] % n_filt:
        raise ValueError(f'global pooling: {x.shape[1]} values are not positions of {n_filt} channels')
    n_positions = x.shape[1] // n_filt
    positions = [take(x, (slice(None), slice(p * n_filt, (p + 1) * n_filt))) for p in range(n_positions)]
    if pool_op == 'max':
        return _maximum(positions).cast(result_type)
    if accum_type is None:
        raise ValueError('average pooling needs accum_type')
    return _average(_sum(positions, accum_type), np.array(n_positions), result_type)


def global_pooling1d(
    x: FixedArray, pool_op: str, result_type: Type, accum_type: Type | None = None, *, n_filt: int
) -> FixedArray:
    return global_pooling(x, pool_op, result_type, accum_type, n_filt=n_filt)


def global_pooling2d(
    x: FixedArray, pool_op: str, result_type: Type, accum_type: Type | None = None, *, n_filt: int
) -> FixedArray:
    return global_pooling(x, pool_op, result_type, accum_type, n_filt=n_filt)
