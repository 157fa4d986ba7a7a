"""References of `nnet::conv` for the conv1d, conv2d, depthwise_conv1d, depthwise_conv2d configs (channels last).

The arithmetic does not depend on strategy, reuse factor or parallelization factor: per output
pixel and output channel, acc = (accum_t) bias, then acc += in * w over the window taps in (kh, kw, c)
order (each += a write into accum_t), then one write into the result type. The C++ skips padded
taps; here the input is padded with zeros instead, which gives the same bits: the product is an
exact 0, and writing a value of accum_t plus 0 back into accum_t leaves it unchanged.

Inputs are (n_samples, in_height * in_width * n_chan) in row-major [h][w][c] order; the result is
(n_samples, out_height * out_width * n_filt).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.reference.integer_mac import integer_product
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def output_size(in_size: int, window: int, stride: int, pad_before: int, pad_after: int) -> int:
    """Output positions along one axis: (pad_before + in_size + pad_after - window) // stride + 1."""
    padded = pad_before + in_size + pad_after
    if padded < window or stride < 1:
        raise ValueError(f'window {window} (stride {stride}) does not fit {in_size} inputs padded to {padded}')
    return (padded - window) // stride + 1


def same_padding(in_size: int, window: int, stride: int) -> tuple[int, int]:
    """Keras/TensorFlow 'same' padding along one axis: (before, after), the extra one after."""
    out_size = -(-in_size // stride)
    total = max((out_size - 1) * stride + window - in_size, 0)
    return total // 2, total - total // 2


def padded_image(x: FixedArray, in_height: int, in_width: int, padding: Sequence[int]) -> FixedArray:
    """(n_samples, flat) as (n_samples, H + pads, W + pads, channels), padded with raw 0."""
    x = as_samples(x)
    if x.shape[1] % (in_height * in_width):
        raise ValueError(f'{x.shape[1]} values per sample are not an image of {in_height} x {in_width}')
    top, bottom, left, right = padding
    image = x.raw.reshape(x.shape[0], in_height, in_width, -1)
    raw = np.pad(image, ((0, 0), (top, bottom), (left, right), (0, 0)))
    return FixedArray(raw, x.type, x.family)


def window_slice(image: FixedArray, kh: int, kw: int, out_shape: tuple[int, int], strides: Sequence[int]) -> FixedArray:
    """The inputs tap (kh, kw) of every output pixel reads: shape (n_samples, out_h, out_w, channels)."""
    (out_height, out_width), (stride_height, stride_width) = out_shape, strides
    rows = slice(kh, kh + (out_height - 1) * stride_height + 1, stride_height)
    cols = slice(kw, kw + (out_width - 1) * stride_width + 1, stride_width)
    return take(image, (slice(None), rows, cols))


def _geometry(x, in_height, in_width, window, strides, padding):
    top, bottom, left, right = padding
    out_shape = (
        output_size(in_height, window[0], strides[0], top, bottom),
        output_size(in_width, window[1], strides[1], left, right),
    )
    return padded_image(x, in_height, in_width, padding), out_shape


def _flat(acc: FixedArray) -> FixedArray:
    return FixedArray(acc.raw.reshape(acc.shape[0], -1), acc.type, acc.family)


def conv2d(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: Type,
    result_type: Type,
    *,
    in_height: int,
    in_width: int,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
) -> FixedArray:
    """`weights` of shape (filt_height, filt_width, n_chan, n_filt) (the Keras kernel), `biases` (n_filt,).

    `padding` is (pad_top, pad_bottom, pad_left, pad_right), `strides` (stride_height, stride_width).
    """
    filt_height, filt_width, n_chan, n_filt = weights.shape
    x = as_samples(x)
    if x.shape[1] != in_height * in_width * n_chan or biases.shape != (n_filt,):
        raise ValueError(f'conv2d: input {x.shape}, weights {weights.shape}, biases {biases.shape} do not match')
    image, out_shape = _geometry(x, in_height, in_width, (filt_height, filt_width), strides, padding)
    start = biases.cast(accum_type)
    product = _as_one_product(image, weights, start, accum_type, out_shape, strides)
    if product is not None:
        return product.cast(result_type)
    acc = take(start, np.broadcast_to(np.arange(n_filt), (x.shape[0], *out_shape, n_filt)))
    for kh in range(filt_height):
        for kw in range(filt_width):
            window = window_slice(image, kh, kw, out_shape, strides)
            for c in range(n_chan):
                inputs = take(window, (Ellipsis, slice(c, c + 1)))
                acc = (acc + inputs * take(weights, (kh, kw, c))).cast(accum_type)
    return _flat(acc.cast(result_type))


def _as_one_product(
    image: FixedArray,
    weights: FixedArray,
    start: FixedArray,
    accum_type: Type,
    out_shape: tuple[int, int],
    strides: Sequence[int],
) -> FixedArray | None:
    """The convolution as one integer matrix product of the (kh, kw, c) patches with the kernel, flat
    (n_samples, out_h * out_w * n_filt), when `integer_product` takes these types (else None)."""
    filt_height, filt_width, n_chan, n_filt = weights.shape
    taps = [
        window_slice(image, kh, kw, out_shape, strides).raw for kh in range(filt_height) for kw in range(filt_width)
    ]
    patches = np.stack(taps, axis=-2).reshape(-1, filt_height * filt_width * n_chan)
    kernel = FixedArray(weights.raw.reshape(-1, n_filt), weights.type, weights.family)
    product = integer_product(FixedArray(patches, image.type, image.family), kernel, start, accum_type)
    if product is None:
        return None
    return FixedArray(product.raw.reshape(image.shape[0], -1), product.type, product.family)


def conv1d(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: Type,
    result_type: Type,
    *,
    stride: int = 1,
    padding: Sequence[int] = (0, 0),
) -> FixedArray:
    """`weights` of shape (filt_width, n_chan, n_filt), `padding` (pad_left, pad_right)."""
    return _as_two_dimensional(conv2d, x, weights, biases, accum_type, result_type, stride, padding)


def depthwise_conv2d(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: Type,
    result_type: Type,
    *,
    in_height: int,
    in_width: int,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
) -> FixedArray:
    """`weights` of shape (filt_height, filt_width, n_chan, depth_multiplier) (the Keras depthwise kernel).

    Output channel c * depth_multiplier + m sums in[.., c] * w[kh, kw, c, m] over (kh, kw) in order;
    `biases` has shape (n_chan * depth_multiplier,).
    """
    filt_height, filt_width, n_chan, multiplier = weights.shape
    n_filt = n_chan * multiplier
    x = as_samples(x)
    if x.shape[1] != in_height * in_width * n_chan or biases.shape != (n_filt,):
        raise ValueError(
            f'depthwise_conv2d: input {x.shape}, weights {weights.shape}, biases {biases.shape} do not match'
        )
    image, out_shape = _geometry(x, in_height, in_width, (filt_height, filt_width), strides, padding)
    acc = take(biases.cast(accum_type), np.broadcast_to(np.arange(n_filt), (x.shape[0], *out_shape, n_filt)))
    channel_of_output = np.arange(n_filt) // multiplier
    kernel = FixedArray(weights.raw.reshape(filt_height, filt_width, n_filt), weights.type, weights.family)
    for kh in range(filt_height):
        for kw in range(filt_width):
            inputs = take(window_slice(image, kh, kw, out_shape, strides), (Ellipsis, channel_of_output))
            acc = (acc + inputs * take(kernel, (kh, kw))).cast(accum_type)
    return _flat(acc.cast(result_type))


def depthwise_conv1d(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: Type,
    result_type: Type,
    *,
    stride: int = 1,
    padding: Sequence[int] = (0, 0),
) -> FixedArray:
    """`weights` of shape (filt_width, n_chan, depth_multiplier), `padding` (pad_left, pad_right)."""
    return _as_two_dimensional(depthwise_conv2d, x, weights, biases, accum_type, result_type, stride, padding)


def _as_two_dimensional(
    kernel_2d,
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: Type,
    result_type: Type,
    stride: int,
    padding: Sequence[int],
) -> FixedArray:
    """A 1-D kernel as its 2-D twin over an image of height 1 (the same visiting order: kw, then c)."""
    n_chan = weights.shape[1]
    x = as_samples(x)
    kernel = FixedArray(weights.raw.reshape(1, *weights.shape), weights.type, weights.family)
    return kernel_2d(
        x,
        kernel,
        biases,
        accum_type,
        result_type,
        in_height=1,
        in_width=x.shape[1] // n_chan,
        strides=(1, stride),
        padding=(0, 0, *padding),
    )
