"""Reference of `nnet::embedding` (templates/nnet/nnet_embedding.h): each integer index selects a row
of the table; an index outside [0, n_vocab) gives a row of zeros (the frameworks raise an error)."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples
from hls4ml.model.types import PrecisionType


def embedding(indices: FixedArray, table: FixedArray, n_dim: int, result_type: str | PrecisionType) -> FixedArray:
    """res[i * n_dim + j] = table[index_i * n_dim + j], zeros for an index out of range; `table` is the
    flat (n_vocab * n_dim) table in its own type, written into the result type."""
    indices = as_samples(indices)
    values = indices.to_double()  # integer-valued (the precision rule requires it): exact
    n_vocab = table.shape[0] // n_dim
    inside = (values >= 0) & (values < n_vocab)
    rows = np.where(inside, values, 0).astype(np.int64)
    flat = rows[:, :, np.newaxis] * n_dim + np.arange(n_dim)
    zero_raw = np.zeros_like(table.raw[:1])
    raw = np.where(inside[:, :, np.newaxis], table.raw[flat], zero_raw[0])
    picked = FixedArray(np.asarray(raw).reshape(len(values), -1), table.type, table.family)
    return picked.cast(result_type)
