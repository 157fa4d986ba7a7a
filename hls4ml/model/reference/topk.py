"""Reference of `nnet::topk`: hard top-k of each sample's vector, stable (the lower index wins ties).

Every value of a sample has the same type, so raw integers order exactly like the values (and their
absolute values like the magnitudes). The C++ ranks by pairwise comparison; any correct stable
selection gives the same result, so a stable sort of the raw keys is its exact twin.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, integer, select, take
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def topk_indices(x: FixedArray, k: int, magnitude: bool = False, largest: bool = True) -> np.ndarray:
    """(n_samples, k) indices of the k largest (or smallest) values or |values|, best first, ties by index."""
    rows = as_samples(x)
    keys = np.abs(rows.raw) if magnitude else rows.raw
    return np.argsort(-keys if largest else keys, axis=1, kind='stable')[:, :k].astype(np.int64)


def topk(
    x: FixedArray, k: int, output: str, result_type: Type, magnitude: bool = False, largest: bool = True
) -> FixedArray:
    """The selected 'values', their 'indices', the 0/1 'mask', or x 'masked' (0 where not selected),
    each written into the result type."""
    rows = as_samples(x)
    chosen = topk_indices(rows, k, magnitude, largest)
    if output == 'values':
        return take(rows, (np.arange(rows.shape[0])[:, np.newaxis], chosen)).cast(result_type)
    if output == 'indices':
        return FixedArray.from_raw(chosen, 'int<32>', x.family).cast(result_type)
    selected = np.zeros(rows.shape, dtype=bool)
    np.put_along_axis(selected, chosen, True, axis=1)
    zero = integer(0, x.family).cast(result_type)
    if output == 'mask':
        return select(selected, integer(1, x.family).cast(result_type), zero)
    if output == 'masked':
        return select(selected, rows.cast(result_type), zero)
    raise ValueError(f'unknown top-k output {output!r}')
