"""The merge and index-move reference kernels (reference/merge.py, reference/array_ops.py) against
float numpy: np.maximum, np.concatenate, np.pad, slicing, np.repeat, np.transpose.

Every input here is exact in float64, so a result written into a type must equal the float result
quantized into that type, bit for bit.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference import array_ops, merge
from hls4ml.model.types import parse_precision

RNG = np.random.default_rng(11)
FAMILIES = ['ap', 'ac']
WIDE = 'fixed<48,24>'  # holds every sum, difference and product below exactly


def _random(precision: str, shape: tuple[int, ...], family: str = 'ap') -> FixedArray:
    kind = parse_precision(precision)
    return FixedArray.from_raw(RNG.integers(kind.raw_min, kind.raw_max, size=shape, endpoint=True), kind, family)


def _same(got: FixedArray, expected: np.ndarray, result_type: str) -> None:
    """`got` holds exactly `expected` (floats) written into `result_type`."""
    assert got.type == parse_precision(result_type)
    want = quantize(np.asarray(expected, dtype=np.float64), result_type, got.family)
    assert np.array_equal(got.raw, want.raw), f'{got.value} != {want.value}'


# ---- elementwise merges ---------------------------------------------------------------------------------

MERGE_PAIRS = [('fixed<16,6>', 'ufixed<8,2>'), ('int<8>', 'uint<6>'), ('fixed<6,8>', 'fixed<8,-2>')]
FLOAT_MERGES = {
    'add': np.add,
    'subtract': np.subtract,
    'multiply': np.multiply,
    'average': lambda a, b: (a + b) / 2,
    'maximum': np.maximum,
    'minimum': np.minimum,
}
RESULTS = [WIDE, 'fixed<10,4,RND,SAT>', 'ufixed<6,3,RND_CONV,SAT>', 'fixed<8,2,RND_ZERO,WRAP>', 'int<6>']


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('kernel', sorted(FLOAT_MERGES))
@pytest.mark.parametrize('types', MERGE_PAIRS, ids=str)
def test_elementwise_merges_are_one_write_of_the_exact_value(family: str, kernel: str, types: tuple) -> None:
    a, b = _random(types[0], (40, 7), family), _random(types[1], (40, 7), family)
    for result in RESULTS:
        got = getattr(merge, kernel)(a, b, result)
        _same(got, FLOAT_MERGES[kernel](a.value, b.value), result)


@pytest.mark.parametrize('family', FAMILIES)
def test_average_keeps_the_halved_bit(family: str) -> None:
    """An odd sum halves exactly: a truncating shift of the sum in its own type would lose 0.5 LSB."""
    a = quantize(np.array([[1, 3, -1, -3, 5]]) * 2.0**-4, 'fixed<8,3>', family)
    b = quantize(np.zeros((1, 5)), 'ufixed<4,1>', family)
    got = merge.average(a, b, 'fixed<12,3>')
    assert np.array_equal(got.value, a.value / 2)
    # ties of the exact half round by the result's mode: RND_CONV on a 1/16 grid rounds 1/32, 3/32, 5/32 to even
    assert np.array_equal(merge.average(a, b, 'fixed<7,3,RND_CONV>').value, [[0, 2**-3, 0, -(2**-3), 2**-3]])


@pytest.mark.parametrize('family', FAMILIES)
def test_maximum_and_minimum_are_exact_between_wide_mixed_sign_types(family: str) -> None:
    """Widths beyond 32 bits: the case where ap's own mixed-sign operator< goes wrong."""
    a, b = _random('fixed<40,20>', (60, 5), family), _random('ufixed<40,30>', (60, 5), family)
    b = FixedArray.from_raw(np.where(RNG.random((60, 5)) < 0.3, 0, b.raw), b.type, family)
    result = 'fixed<52,32>'
    _same(merge.maximum(a, b, result), np.maximum(a.value, b.value), result)
    _same(merge.minimum(a, b, result), np.minimum(a.value, b.value), result)
    _same(merge.maximum(b, a, result), np.maximum(a.value, b.value), result)


def test_merges_reject_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match='differ'):
        merge.add(_random('fixed<8,3>', (2, 4)), _random('fixed<8,3>', (2, 5)), WIDE)


# ---- concatenate ----------------------------------------------------------------------------------------

CONCAT_SHAPES = [
    ((5,), (3,)),
    ((4, 3), (2, 3)),
    ((4, 3), (4, 1)),
    ((3, 2, 5), (1, 2, 5)),
    ((3, 2, 5), (3, 4, 5)),
    ((3, 2, 1), (3, 2, 2)),
]


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('shapes', CONCAT_SHAPES, ids=str)
def test_concatenate_matches_numpy_on_every_axis(family: str, shapes: tuple) -> None:
    shape1, shape2 = shapes
    axis = next(k for k, (m, n) in enumerate(zip(shape1, shape2, strict=True)) if m != n or len(shape1) == 1)
    a = _random('fixed<16,6>', (9, int(np.prod(shape1))), family)
    b = _random('ufixed<8,2>', (9, int(np.prod(shape2))), family)
    result = 'fixed<12,4,RND,SAT>'
    if len(shape1) == 1:
        got = merge.concatenate1d(a, b, result)
    else:
        got = getattr(merge, f'concatenate{len(shape1)}d')(a, b, shape1, shape2, axis, result)
    expected = np.concatenate([a.value.reshape(9, *shape1), b.value.reshape(9, *shape2)], axis=axis + 1)
    _same(got, expected.reshape(9, -1), result)


def test_concatenate_rejects_mismatched_shapes() -> None:
    a, b = _random('fixed<8,3>', (2, 6)), _random('fixed<8,3>', (2, 6))
    with pytest.raises(ValueError, match='differ off axis'):
        merge.concatenate2d(a, b, (2, 3), (3, 2), 0, WIDE)


# ---- dot ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize('family', FAMILIES)
def test_dot_sums_in_index_order(family: str) -> None:
    a, b = _random('fixed<16,6>', (30, 6), family), _random('ufixed<8,2>', (30, 6), family)
    got = merge.dot1d(a, b, WIDE, WIDE)
    assert got.shape == (30, 1)
    _same(got, (a.value * b.value).sum(axis=1, keepdims=True), WIDE)
    accum, result = 'fixed<12,6,RND,SAT>', 'fixed<8,4,RND_CONV,SAT>'
    acc = quantize(np.zeros((30, 1)), accum, family)
    for i in range(6):
        acc = quantize(acc.value + a.value[:, i : i + 1] * b.value[:, i : i + 1], accum, family)
    _same(merge.dot1d(a, b, accum, result), acc.value, result)


# ---- copy, padding, cropping, upsampling, transpose ------------------------------------------------------


@pytest.mark.parametrize('family', FAMILIES)
def test_copy_is_a_write(family: str) -> None:
    x = _random('fixed<16,6>', (10, 13), family)
    _same(array_ops.copy(x, 'fixed<8,3,RND,SAT>'), x.value, 'fixed<8,3,RND,SAT>')


PAD_1D = [(5, 1, 0, 0), (5, 3, 2, 1), (1, 2, 0, 3), (4, 1, 3, 0)]  # width, channels, left, right


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('geometry', PAD_1D, ids=str)
def test_zeropad_and_cropping_1d(family: str, geometry: tuple) -> None:
    width, chan, left, right = geometry
    x = _random('fixed<12,4>', (7, width * chan), family)
    result = 'fixed<10,3,RND,SAT>'
    padded = np.pad(x.value.reshape(7, width, chan), ((0, 0), (left, right), (0, 0)))
    _same(array_ops.zeropad1d_cl(x, width, chan, left, right, result), padded.reshape(7, -1), result)
    wide = _random('fixed<12,4>', (7, (width + left + right) * chan), family)
    cropped = wide.value.reshape(7, width + left + right, chan)[:, left : left + width]
    got = array_ops.cropping1d_cl(wide, width + left + right, chan, left, right, result)
    _same(got, cropped.reshape(7, -1), result)


PAD_2D = [(3, 4, 2, (1, 0, 2, 1)), (2, 5, 1, (0, 2, 0, 0)), (1, 1, 3, (2, 1, 1, 2)), (4, 3, 1, (0, 0, 0, 0))]


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('geometry', PAD_2D, ids=str)
def test_zeropad_and_cropping_2d(family: str, geometry: tuple) -> None:
    height, width, chan, (top, bottom, left, right) = geometry
    x = _random('ufixed<8,2>', (5, height * width * chan), family)
    result = 'fixed<6,2,RND,SAT>'
    padded = np.pad(x.value.reshape(5, height, width, chan), ((0, 0), (top, bottom), (left, right), (0, 0)))
    got = array_ops.zeropad2d_cl(x, height, width, chan, top, bottom, left, right, result)
    _same(got, padded.reshape(5, -1), result)
    big_h, big_w = height + top + bottom, width + left + right
    wide = _random('ufixed<8,2>', (5, big_h * big_w * chan), family)
    cropped = wide.value.reshape(5, big_h, big_w, chan)[:, top : top + height, left : left + width]
    got = array_ops.cropping2d_cl(wide, big_h, big_w, chan, top, bottom, left, right, result)
    _same(got, cropped.reshape(5, -1), result)


def test_cropping_everything_is_refused() -> None:
    with pytest.raises(ValueError, match='leaves'):
        array_ops.cropping1d_cl(_random('fixed<8,3>', (2, 4)), 4, 1, 2, 2, WIDE)


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('geometry', [(3, 4, 2, 1, 3), (2, 1, 1, 3, 2), (1, 5, 3, 2, 1)], ids=str)
def test_upsampling_repeats_nearest(family: str, geometry: tuple) -> None:
    height, width, chan, height_factor, width_factor = geometry
    x = _random('fixed<16,6>', (6, height * width * chan), family)
    result = 'fixed<16,6>'
    tensor = x.value.reshape(6, height, width, chan)
    expected = np.repeat(np.repeat(tensor, height_factor, axis=1), width_factor, axis=2)
    got = array_ops.upsampling2d_cl(x, height, width, chan, height_factor, width_factor, result)
    _same(got, expected.reshape(6, -1), result)
    row = x.value.reshape(6, height * width, chan)
    got = array_ops.upsampling1d_cl(x, height * width, chan, width_factor, result)
    _same(got, np.repeat(row, width_factor, axis=1).reshape(6, -1), result)


TRANSPOSES = [((3, 5), perm) for perm in itertools.permutations(range(2))]
TRANSPOSES += [((2, 3, 4), perm) for perm in itertools.permutations(range(3))]
TRANSPOSES += [((1, 4, 3), (2, 0, 1)), ((5, 1), (1, 0))]


@pytest.mark.parametrize('family', FAMILIES)
@pytest.mark.parametrize('shape,perm', TRANSPOSES, ids=str)
def test_transpose_every_permutation(family: str, shape: tuple, perm: tuple) -> None:
    x = _random('fixed<16,6>', (4, int(np.prod(shape))), family)
    result = 'fixed<10,5,RND,SAT>'
    expected = np.transpose(x.value.reshape(4, *shape), (0, *(k + 1 for k in perm)))
    _same(array_ops.transpose(x, shape, perm, result), expected.reshape(4, -1), result)


def test_transpose_rejects_a_non_permutation() -> None:
    with pytest.raises(ValueError, match='permutation'):
        array_ops.transpose(_random('fixed<8,3>', (2, 6)), (2, 3), (0, 0), WIDE)
