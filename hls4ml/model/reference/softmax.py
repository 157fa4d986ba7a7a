"""References of `nnet::softmax_stable`, `softmax_latency` and `softmax_argmax`.

Each normalizes every row of `n_slice` consecutive values of a sample (the last axis of a
channels-last tensor); `n_slice=None` means one row of all the sample's values.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, integer, select, take
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def _rows(x: FixedArray, n_slice: int | None) -> FixedArray:
    """The input as (n_samples * rows, n_slice)."""
    x = as_samples(x)
    slice_length = n_slice or x.shape[1]
    if x.shape[1] % slice_length:
        raise ValueError(f'softmax: {x.shape[1]} values are not rows of n_slice={slice_length}')
    return FixedArray(x.raw.reshape(-1, slice_length), x.type, x.family)


def _samples(rows: FixedArray, like: FixedArray) -> FixedArray:
    return FixedArray(rows.raw.reshape(as_samples(like).shape), rows.type, rows.family)


def _first_max_index(x: FixedArray) -> np.ndarray:
    """Per row, the index of the first maximum (raw values of one type compare like the values)."""
    return np.argmax(x.raw, axis=1)


def _normalize(exponentials: FixedArray, inv_spec: TableSpec, accum_type: Type, result_type: Type) -> FixedArray:
    """sum += e_i in index order into accum_t; res_i = e_i * inv_table(sum) into the result type."""
    total = integer(0, exponentials.family).cast(accum_type)
    for i in range(exponentials.shape[1]):
        total = (total + take(exponentials, (slice(None), i))).cast(accum_type)
    inverse = inv_spec.lookup(take(total, (slice(None), np.newaxis)))
    return (exponentials * inverse).cast(result_type)


def softmax_stable(
    x: FixedArray,
    exp_spec: TableSpec,
    inv_spec: TableSpec,
    accum_type: Type,
    result_type: Type,
    n_slice: int | None = None,
    max_minus_x: bool = False,
) -> FixedArray:
    """e_i = exp_table(x_i - max x) (max_minus_x: exp_table(max x - x_i)); res_i = e_i * inv_table(sum e),
    per row."""
    rows = _rows(x, n_slice)
    maximum = take(take(rows, (np.arange(rows.shape[0]), _first_max_index(rows))), (slice(None), np.newaxis))
    differences = maximum - rows if max_minus_x else rows - maximum
    return _samples(_normalize(exp_spec.lookup(differences), inv_spec, accum_type, result_type), x)


def softmax_latency(
    x: FixedArray,
    exp_spec: TableSpec,
    inv_spec: TableSpec,
    accum_type: Type,
    result_type: Type,
    n_slice: int | None = None,
) -> FixedArray:
    """e_i = exp_table(x_i); res_i = e_i * inv_table(sum e), per row."""
    rows = _rows(x, n_slice)
    return _samples(_normalize(exp_spec.lookup(rows), inv_spec, accum_type, result_type), x)


def softmax_argmax(x: FixedArray, result_type: Type, n_slice: int | None = None) -> FixedArray:
    """One-hot of the first maximum of each row: 1 and 0 written into the result type."""
    rows = _rows(x, n_slice)
    hot = np.arange(rows.shape[1])[np.newaxis, :] == _first_max_index(rows)[:, np.newaxis]
    one, zero = integer(1, x.family).cast(result_type), integer(0, x.family).cast(result_type)
    return _samples(select(hot, one, zero), x)
