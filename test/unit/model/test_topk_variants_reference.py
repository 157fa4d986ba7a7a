"""The hard top-k reference with largest=False (the k smallest, by value or magnitude): stable
ascending order, ties to the lower index, as ONNX specifies."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.reference import topk
from hls4ml.model.reference.topk import topk_indices
from hls4ml.model.types import FixedPrecisionType, parse_precision

INPUT = parse_precision('fixed<8,4>')
INDEX = FixedPrecisionType(4, 4, False)


@pytest.mark.parametrize('magnitude', [False, True])
@pytest.mark.parametrize('k', [1, 3, 8])
def test_smallest_with_ties(k: int, magnitude: bool) -> None:
    x = quantize(np.random.default_rng(k).integers(-3, 4, (200, 8)).astype(np.float64), INPUT)
    keys = np.abs(x.value) if magnitude else x.value
    order = np.argsort(keys, axis=1, kind='stable')[:, :k]
    np.testing.assert_array_equal(topk_indices(x, k, magnitude, largest=False), order)
    np.testing.assert_array_equal(topk(x, k, 'indices', INDEX, magnitude, largest=False).value, order)
    values = topk(x, k, 'values', INPUT, magnitude, largest=False).value
    np.testing.assert_array_equal(values, np.take_along_axis(x.value, order, axis=1))


def test_onnx_smallest_example() -> None:
    x = quantize(np.array([[0.0, 0.0, -5.0, 5.0]]), INPUT)  # C.3's vector, the other way round
    assert topk(x, 2, 'indices', INDEX, largest=False).value.tolist() == [[2, 0]]
