"""The hard top-k reference (hls4ml/model/reference/topk.py) against numpy, torch and the spec's
test vectors (seed-layers.md C.3), and its properties: ties to the lower index, exactly k ones."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hls4ml.model.fixed import quantize
from hls4ml.model.reference import topk
from hls4ml.model.reference.topk import topk_indices
from hls4ml.model.types import FixedPrecisionType, parse_precision

INPUT = parse_precision('fixed<8,4>')
INDEX = FixedPrecisionType(4, 4, False)
MASK = FixedPrecisionType(1, 1, False)


def _fixed(values) -> object:
    return quantize(np.atleast_2d(np.asarray(values, dtype=np.float64)), INPUT)


def test_spec_vectors() -> None:
    ties = _fixed([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0])
    assert topk(ties, 3, 'indices', INDEX).value.tolist() == [[0, 1, 3]]
    x = _fixed([0, 0, -5, 5])
    assert topk(x, 2, 'indices', INDEX).value.tolist() == [[3, 0]]
    assert topk(x, 2, 'values', INPUT).value.tolist() == [[5, 0]]
    assert topk(x, 2, 'mask', MASK).value.tolist() == [[1, 0, 0, 1]]
    assert topk(_fixed([-5, -2, 3, 1]), 2, 'masked', INPUT, magnitude=True).value.tolist() == [[-5, 0, 3, 0]]
    assert topk(_fixed([-5, -2, 3, 1]), 2, 'values', INPUT, magnitude=True).value.tolist() == [[-5, 3]]


@pytest.mark.parametrize('k', [1, 4, 9])
def test_matches_stable_numpy_and_torch_without_ties(k: int) -> None:
    x = _fixed(np.random.default_rng(k).normal(0, 2, (50, 9)))
    expected = np.argsort(-x.value, axis=1, kind='stable')[:, :k]
    np.testing.assert_array_equal(topk(x, k, 'indices', INDEX).value, expected)
    values, indices = torch.topk(torch.tensor(x.value), k)
    distinct = np.array([len(set(row)) == len(row) for row in x.value])
    np.testing.assert_array_equal(topk(x, k, 'values', INPUT).value, values.numpy())
    np.testing.assert_array_equal(topk(x, k, 'indices', INDEX).value[distinct], indices.numpy()[distinct])


@pytest.mark.parametrize('magnitude', [False, True])
@pytest.mark.parametrize('k', [1, 3, 8])
def test_properties_with_ties(k: int, magnitude: bool) -> None:
    x = _fixed(np.random.default_rng(3).integers(-3, 4, (200, 8)))  # many ties, +-v for magnitude
    keys = np.abs(x.value) if magnitude else x.value
    order = np.argsort(-keys, axis=1, kind='stable')[:, :k]
    np.testing.assert_array_equal(topk_indices(x, k, magnitude), order)
    mask = topk(x, k, 'mask', MASK, magnitude).value
    assert (mask.sum(axis=1) == k).all()
    chosen = np.take_along_axis(keys, order, axis=1)
    assert (np.diff(chosen, axis=1) <= 0).all()  # sorted descending
    unselected = np.where(mask == 0, keys, -np.inf).max(axis=1)
    assert (chosen.min(axis=1) >= unselected).all()
    np.testing.assert_array_equal(topk(x, k, 'masked', INPUT, magnitude).value, np.where(mask == 1, x.value, 0))
    np.testing.assert_array_equal(topk(x, k, 'values', INPUT, magnitude).value, np.take_along_axis(x.value, order, 1))


def test_permutation_equivariant_up_to_ties() -> None:
    x = _fixed(np.random.default_rng(4).normal(0, 2, (30, 7)))
    perm = np.random.default_rng(5).permutation(7)
    permuted = _fixed(x.value[:, perm])
    mask, permuted_mask = topk(x, 3, 'mask', MASK).value, topk(permuted, 3, 'mask', MASK).value
    distinct = np.array([len(set(row)) == len(row) for row in x.value])
    np.testing.assert_array_equal(mask[:, perm][distinct], permuted_mask[distinct])


def test_most_negative_magnitude_and_unknown_output() -> None:
    x = _fixed([-8, 7.9375, 1])  # |-8| does not fit fixed<8,4>: compared on raw integers
    assert topk(x, 1, 'indices', INDEX, magnitude=True).value.tolist() == [[0]]
    with pytest.raises(ValueError, match='unknown top-k output'):
        topk(x, 1, 'argmax', INDEX)
