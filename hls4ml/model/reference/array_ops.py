"""References of the index moves (`templates/nnet/nnet_array.h`): copy, zero padding, cropping,
nearest-neighbour upsampling, transpose.

Inputs are `FixedArray`s of shape (n_samples, flat size), channels last (1D: w * n_chan + c, 2D:
(h * width + w) * n_chan + c). Each output is one write into the result type of the input value
the C++ reads (the same index formulas), or of the integer 0 (padding).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, integer, select, take
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def _checked(x: FixedArray, size: int, kernel: str) -> FixedArray:
    x = as_samples(x)
    if x.shape[1] != size:
        raise ValueError(f'{kernel}: input of {x.shape[1]} values per sample, the config says {size}')
    return x


def _gather(x: FixedArray, source: np.ndarray, result_type: Type) -> FixedArray:
    """res[:, j] = x[:, source[j]] written into the result type; source[j] < 0 writes the integer 0."""
    source = np.asarray(source, dtype=np.int64).ravel()
    values = take(x, (slice(None), np.maximum(source, 0))).cast(result_type)
    return select(source >= 0, values, integer(0, x.family).cast(result_type))


def copy(x: FixedArray, result_type: Type) -> FixedArray:
    return as_samples(x).cast(result_type)


# ---- zero padding and cropping: output (h, w, c) reads input (h - top, w - left, c) ------------------


def _shift_window(
    x: FixedArray,
    in_shape: tuple[int, int, int],
    out_shape: tuple[int, int, int],
    top: int,
    left: int,
    result_type: Type,
) -> FixedArray:
    """Output position (h, w, c) reads input (h - top, w - left, c), or 0 outside the input."""
    in_height, in_width, n_chan = in_shape
    h, w, c = np.indices(out_shape)
    h, w = h - top, w - left
    inside = (h >= 0) & (h < in_height) & (w >= 0) & (w < in_width)
    source = np.where(inside, (h * in_width + w) * n_chan + c, -1)
    return _gather(x, source, result_type)


def zeropad1d_cl(
    x: FixedArray, in_width: int, n_chan: int, pad_left: int, pad_right: int, result_type: Type
) -> FixedArray:
    x = _checked(x, in_width * n_chan, 'zeropad1d_cl')
    out_shape = (1, in_width + pad_left + pad_right, n_chan)
    return _shift_window(x, (1, in_width, n_chan), out_shape, 0, pad_left, result_type)


def zeropad2d_cl(
    x: FixedArray,
    in_height: int,
    in_width: int,
    n_chan: int,
    pad_top: int,
    pad_bottom: int,
    pad_left: int,
    pad_right: int,
    result_type: Type,
) -> FixedArray:
    x = _checked(x, in_height * in_width * n_chan, 'zeropad2d_cl')
    out_shape = (in_height + pad_top + pad_bottom, in_width + pad_left + pad_right, n_chan)
    return _shift_window(x, (in_height, in_width, n_chan), out_shape, pad_top, pad_left, result_type)


def cropping1d_cl(
    x: FixedArray, in_width: int, n_chan: int, crop_left: int, crop_right: int, result_type: Type
) -> FixedArray:
    x = _checked(x, in_width * n_chan, 'cropping1d_cl')
    out_width = in_width - crop_left - crop_right
    if out_width <= 0:
        raise ValueError(f'cropping1d_cl: cropping {crop_left} + {crop_right} of width {in_width} leaves nothing')
    return _shift_window(x, (1, in_width, n_chan), (1, out_width, n_chan), 0, -crop_left, result_type)


def cropping2d_cl(
    x: FixedArray,
    in_height: int,
    in_width: int,
    n_chan: int,
    crop_top: int,
    crop_bottom: int,
    crop_left: int,
    crop_right: int,
    result_type: Type,
) -> FixedArray:
    x = _checked(x, in_height * in_width * n_chan, 'cropping2d_cl')
    out_shape = (in_height - crop_top - crop_bottom, in_width - crop_left - crop_right, n_chan)
    if min(out_shape) <= 0:
        raise ValueError(f'cropping2d_cl: cropping leaves an empty output {out_shape}')
    return _shift_window(x, (in_height, in_width, n_chan), out_shape, -crop_top, -crop_left, result_type)


# ---- nearest-neighbour upsampling: output (h, w, c) reads input (h // height_factor, w // width_factor, c) ----


def upsampling1d_cl(x: FixedArray, in_width: int, n_chan: int, width_factor: int, result_type: Type) -> FixedArray:
    return upsampling2d_cl(x, 1, in_width, n_chan, 1, width_factor, result_type)


def upsampling2d_cl(
    x: FixedArray,
    in_height: int,
    in_width: int,
    n_chan: int,
    height_factor: int,
    width_factor: int,
    result_type: Type,
) -> FixedArray:
    x = _checked(x, in_height * in_width * n_chan, 'upsampling')
    h, w, c = np.indices((in_height * height_factor, in_width * width_factor, n_chan))
    source = ((h // height_factor) * in_width + w // width_factor) * n_chan + c
    return _gather(x, source, result_type)


# ---- transpose ----------------------------------------------------------------------------------------


def transpose(x: FixedArray, shape: tuple[int, ...], perm: tuple[int, ...], result_type: Type) -> FixedArray:
    """Output axis k is input axis perm[k] (shape and perm without the batch axis, rank 2 or 3)."""
    shape, perm = tuple(shape), tuple(perm)
    if len(shape) not in (2, 3) or sorted(perm) != list(range(len(shape))):
        raise ValueError(f'transpose: shape {shape} with permutation {perm}')
    x = _checked(x, math.prod(shape), 'transpose')
    strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
    positions = np.indices(tuple(shape[k] for k in perm))
    source = sum(positions[k] * strides[perm[k]] for k in range(len(perm)))
    return _gather(x, source, result_type)
