"""The convolution and pooling references (hls4ml/model/reference/conv.py, pooling.py) against float math."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference import conv, pooling
from hls4ml.model.reference.arrays import take
from hls4ml.model.types import parse_precision

RNG = np.random.default_rng(11)
T16 = 'fixed<16,6>'
WIDE = 'fixed<48,20>'  # exact for every sum below
FINE = 'fixed<40,12>'


def _random(precision: str, shape: tuple[int, ...]) -> FixedArray:
    kind = parse_precision(precision)
    return FixedArray.from_raw(RNG.integers(kind.raw_min, kind.raw_max, size=shape, endpoint=True), kind)


def _lsb(precision: str) -> float:
    return 2.0 ** -parse_precision(precision).fractional


def _padding(in_shape, window, strides, same):
    if not same:
        return (0, 0, 0, 0)
    return (
        *conv.same_padding(in_shape[0], window[0], strides[0]),
        *conv.same_padding(in_shape[1], window[1], strides[1]),
    )


def _float_conv(image, kernel, bias, strides, padding, depthwise=False):
    """Plain loops: image (n, H, W, C), kernel (fh, fw, C, F or multiplier); padded positions are zeros."""
    top, bottom, left, right = padding
    padded = np.pad(image, ((0, 0), (top, bottom), (left, right), (0, 0)))
    fh, fw = kernel.shape[:2]
    out_h = (padded.shape[1] - fh) // strides[0] + 1
    out_w = (padded.shape[2] - fw) // strides[1] + 1
    n_out = kernel.shape[2] * kernel.shape[3] if depthwise else kernel.shape[3]
    out = np.zeros((image.shape[0], out_h, out_w, n_out))
    for oh in range(out_h):
        for ow in range(out_w):
            patch = padded[:, oh * strides[0] : oh * strides[0] + fh, ow * strides[1] : ow * strides[1] + fw, :]
            if depthwise:
                out[:, oh, ow] = np.einsum('nhwc,hwcm->ncm', patch, kernel).reshape(image.shape[0], -1)
            else:
                out[:, oh, ow] = np.einsum('nhwc,hwcf->nf', patch, kernel)
    return (out + bias).reshape(image.shape[0], -1)


def _float_pool(image, op, pool, strides, padding):
    """Keras pooling: max or mean of the valid inputs of each window (loops over windows)."""
    top, bottom, left, right = padding
    n, height, width, channels = image.shape
    out_h = (top + height + bottom - pool[0]) // strides[0] + 1
    out_w = (left + width + right - pool[1]) // strides[1] + 1
    out = np.zeros((n, out_h, out_w, channels))
    for oh in range(out_h):
        for ow in range(out_w):
            rows = slice(max(oh * strides[0] - top, 0), min(oh * strides[0] - top + pool[0], height))
            cols = slice(max(ow * strides[1] - left, 0), min(ow * strides[1] - left + pool[1], width))
            window = image[:, rows, cols, :]
            out[:, oh, ow] = window.max(axis=(1, 2)) if op == 'max' else window.mean(axis=(1, 2))
    return out.reshape(n, -1)


# (in_height, in_width, n_chan), (fh, fw), strides, same
CONV_GEOMETRIES = [
    ((5, 7, 2), (3, 2), (2, 1), True),  # non-square, even kernel width: asymmetric 'same' padding
    ((6, 4, 1), (2, 2), (1, 1), True),  # one channel, even kernel
    ((4, 5, 3), (3, 3), (1, 2), False),  # 'valid' with a stride leaving a column unused
    ((7, 6, 2), (4, 1), (3, 2), True),
    ((1, 9, 2), (1, 4), (1, 2), True),  # 1-D
]


@pytest.mark.parametrize('geometry', CONV_GEOMETRIES, ids=str)
def test_conv2d_with_a_wide_accumulator_is_exact(geometry) -> None:
    (height, width, channels), window, strides, same = geometry
    n_filt = 3
    x, weights, biases = (
        _random(T16, (9, height * width * channels)),
        _random('fixed<8,2>', (*window, channels, n_filt)),
        _random('fixed<8,2>', (n_filt,)),
    )
    padding = _padding((height, width), window, strides, same)
    got = conv.conv2d(
        x, weights, biases, WIDE, WIDE, in_height=height, in_width=width, strides=strides, padding=padding
    )
    image = x.value.reshape(-1, height, width, channels)
    expected = _float_conv(image, weights.value, biases.value, strides, padding)
    assert np.array_equal(got.value, expected)
    narrow = conv.conv2d(
        x, weights, biases, WIDE, T16, in_height=height, in_width=width, strides=strides, padding=padding
    )
    difference = expected - narrow.value
    in_range = np.abs(expected) < 2**5 - 1
    assert np.all((difference[in_range] >= 0) & (difference[in_range] < _lsb(T16)))


def test_conv1d_is_conv2d_of_height_one() -> None:
    x, weights, biases = _random(T16, (7, 9 * 2)), _random('fixed<8,2>', (4, 2, 3)), _random('fixed<8,2>', (3,))
    padding = conv.same_padding(9, 4, 2)
    got = conv.conv1d(x, weights, biases, WIDE, WIDE, stride=2, padding=padding)
    expected = _float_conv(
        x.value.reshape(-1, 1, 9, 2), weights.value[np.newaxis], biases.value, (1, 2), (0, 0, *padding)
    )
    assert np.array_equal(got.value, expected)
    assert got.shape == (7, 5 * 3)


@pytest.mark.parametrize('multiplier', [1, 2])
def test_depthwise_conv(multiplier: int) -> None:
    height, width, channels, window, strides = 5, 6, 3, (3, 2), (2, 1)
    x = _random(T16, (6, height * width * channels))
    weights, biases = (
        _random('fixed<8,2>', (*window, channels, multiplier)),
        _random('fixed<8,2>', (channels * multiplier,)),
    )
    padding = _padding((height, width), window, strides, True)
    got = conv.depthwise_conv2d(
        x, weights, biases, WIDE, WIDE, in_height=height, in_width=width, strides=strides, padding=padding
    )
    image = x.value.reshape(-1, height, width, channels)
    assert np.array_equal(got.value, _float_conv(image, weights.value, biases.value, strides, padding, depthwise=True))
    one_d = conv.depthwise_conv1d(x, take(weights, 0), biases, WIDE, WIDE, stride=2, padding=(0, 1))
    expected = _float_conv(
        image.reshape(-1, 1, height * width, channels),
        weights.value[:1],
        biases.value,
        (1, 2),
        (0, 0, 0, 1),
        depthwise=True,
    )
    assert np.array_equal(one_d.value, expected)


def _taps_in_weight_order(x, weights, biases, accum, result, geometry, reuse_factor, parallelization):
    """The C++ Resource loop written out: per group of PF pixels, RF steps of block_factor consecutive weights."""
    (height, width, channels), strides, padding = geometry
    fh, fw, _, n_filt = weights.shape
    top, _, left, _ = padding
    out_h = conv.output_size(height, fh, strides[0], padding[0], padding[1])
    out_w = conv.output_size(width, fw, strides[1], padding[2], padding[3])
    n_weights, n_pixels = weights.raw.size, out_h * out_w
    assert n_pixels % parallelization == 0
    block = math.ceil(n_weights / reuse_factor)
    flat_weights = FixedArray(weights.raw.reshape(-1), weights.type, weights.family)
    acc = {(pixel, f): take(biases, f).cast(accum) for pixel in range(n_pixels) for f in range(n_filt)}
    for part in range(n_pixels // parallelization):
        for step in range(reuse_factor):
            for pixel in range(part * parallelization, (part + 1) * parallelization):
                for k in range(step * block, min((step + 1) * block, n_weights)):
                    f, row = k % n_filt, k // n_filt
                    c, position = row % channels, row // channels
                    ih = (pixel // out_w) * strides[0] + position // fw - top
                    iw = (pixel % out_w) * strides[1] + position % fw - left
                    if 0 <= ih < height and 0 <= iw < width:
                        value = take(x, (slice(None), (ih * width + iw) * channels + c))
                        acc[pixel, f] = (acc[pixel, f] + value * take(flat_weights, k)).cast(accum)
    return np.stack([acc[pixel, f].cast(result).raw for pixel in range(n_pixels) for f in range(n_filt)], axis=1)


@pytest.mark.parametrize('accum', ['fixed<10,4,RND,SAT>', 'fixed<14,5,RND_CONV,SAT>', 'fixed<12,3>'])
def test_reuse_and_parallelization_factors_do_not_change_results(accum: str) -> None:
    """Every RF/PF visits each output's taps in (kh, kw, c) order, as the Latency loop and the reference."""
    (height, width, channels), window, strides = (5, 4, 2), (2, 3), (2, 1)
    padding = _padding((height, width), window, strides, True)
    x = _random('ufixed<6,2>', (12, height * width * channels))
    weights, biases = _random('fixed<4,1>', (*window, channels, 2)), _random('fixed<6,2>', (2,))
    result = 'fixed<8,3,RND,SAT>'
    expected = conv.conv2d(
        x, weights, biases, accum, result, in_height=height, in_width=width, strides=strides, padding=padding
    )
    geometry = ((height, width, channels), strides, padding)
    n_weights = weights.raw.size
    for reuse_factor in (1, 2, 5, 7, n_weights):
        for parallelization in (1, 3):
            got = _taps_in_weight_order(x, weights, biases, accum, result, geometry, reuse_factor, parallelization)
            assert np.array_equal(got, expected.raw), (reuse_factor, parallelization)


def test_conv_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match='do not match'):
        conv.conv2d(
            _random(T16, (2, 30)), _random(T16, (2, 2, 3, 2)), _random(T16, (2,)), FINE, T16, in_height=3, in_width=4
        )
    with pytest.raises(ValueError, match='does not fit'):
        conv.output_size(2, 3, 1, 0, 0)


def test_same_padding_matches_keras() -> None:
    # TensorFlow: out = ceil(in / stride), total = max((out - 1) * stride + window - in, 0), extra after.
    assert conv.same_padding(5, 3, 2) == (1, 1)
    assert conv.same_padding(7, 2, 1) == (0, 1)
    assert conv.same_padding(9, 4, 2) == (1, 2)
    assert conv.same_padding(5, 1, 3) == (0, 0)


# (in_height, in_width, channels), pool, strides, same
POOL_GEOMETRIES = [
    ((5, 7, 2), (2, 3), (2, 2), True),
    ((6, 5, 3), (2, 2), (2, 2), False),
    ((4, 4, 1), (3, 3), (1, 1), True),
    ((7, 3, 2), (3, 2), (2, 1), True),
    ((1, 9, 2), (1, 2), (1, 2), True),
]


@pytest.mark.parametrize('geometry', POOL_GEOMETRIES, ids=str)
def test_pooling_against_float(geometry) -> None:
    (height, width, channels), pool, strides, same = geometry
    padding = _padding((height, width), pool, strides, same)
    x = _random(T16, (10, height * width * channels))
    image = x.value.reshape(-1, height, width, channels)
    keywords = {'in_height': height, 'in_width': width, 'pool_size': pool, 'strides': strides, 'padding': padding}
    maximum = pooling.pooling2d(x, 'max', T16, **keywords)
    assert np.array_equal(maximum.value, _float_pool(image, 'max', pool, strides, padding))
    mean = _float_pool(image, 'average', pool, strides, padding)
    # The quotient keeps accum_t's fraction bits (truncated toward zero), then is written into the result.
    fine = pooling.pooling2d(x, 'average', FINE, WIDE, **keywords)
    assert np.all(np.abs(fine.value - mean) < _lsb(WIDE))
    rounded = pooling.pooling2d(x, 'average', 'fixed<16,6,RND>', WIDE, **keywords)
    assert np.all(np.abs(rounded.value - mean) <= _lsb(T16) / 2 + _lsb(WIDE))


def test_pooling1d_is_pooling2d_of_height_one() -> None:
    x = _random(T16, (5, 9 * 2))
    for op in pooling.POOL_OPS:
        got = pooling.pooling1d(x, op, FINE, WIDE, n_filt=2, pool_size=2, stride=2, padding=(0, 1))
        expected = pooling.pooling2d(
            x, op, FINE, WIDE, in_height=1, in_width=9, pool_size=(1, 2), strides=(1, 2), padding=(0, 0, 0, 1)
        )
        assert np.array_equal(got.raw, expected.raw) and got.shape == (5, 10)


def test_average_counts_only_valid_inputs() -> None:
    """Keras excludes the padding: a corner window of a 3x3 'same' pool averages 4 inputs, not 9."""
    x = FixedArray.from_raw(np.full((1, 16), 1 << 10), T16)  # all ones
    got = pooling.pooling2d(
        x, 'average', T16, WIDE, in_height=4, in_width=4, pool_size=(3, 3), strides=(1, 1), padding=(1, 1, 1, 1)
    )
    assert np.array_equal(got.value, np.ones((1, 16)))


def test_average_with_a_narrow_accumulator_saturates_in_order() -> None:
    x = FixedArray.from_raw(np.array([[100, 100, -100, 5]]), 'fixed<8,3>')  # 3.125, 3.125, -3.125, 0.15625
    got = pooling.global_pooling(x, 'average', 'fixed<16,6>', 'fixed<8,3,TRN,SAT>', n_filt=1)
    # 3.125 + 3.125 saturates at 3.96875, - 3.125 = 0.84375, + 0.15625 = 1.0; 1.0 / 4
    assert got.value.tolist() == [[0.25]]


@pytest.mark.parametrize('shape', [(3, 5, 3), (1, 7, 2), (2, 2, 1)])
def test_global_pooling_against_float(shape) -> None:
    height, width, channels = shape
    x = _random(T16, (8, height * width * channels))
    image = x.value.reshape(-1, height * width, channels)
    assert np.array_equal(pooling.global_pooling2d(x, 'max', T16, n_filt=channels).value, image.max(axis=1))
    fine = pooling.global_pooling1d(x, 'average', FINE, WIDE, n_filt=channels)
    assert np.all(np.abs(fine.value - image.mean(axis=1)) < _lsb(WIDE))


def test_pooling_rejects_bad_arguments() -> None:
    x = _random(T16, (2, 16))
    with pytest.raises(ValueError, match='pool_op'):
        pooling.global_pooling(x, 'min', T16, n_filt=1)
    with pytest.raises(ValueError, match='accum_type'):
        pooling.global_pooling(x, 'average', T16, n_filt=1)
    with pytest.raises(ValueError, match='entirely in the padding'):
        pooling.pooling2d(
            x, 'max', T16, in_height=4, in_width=4, pool_size=(2, 2), strides=(2, 2), padding=(2, 0, 0, 0)
        )
