"""Reference of `nnet::dense` (both strategies: the arithmetic does not depend on them)."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.reference.integer_mac import integer_product
from hls4ml.model.types import PrecisionType


def dense(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: str | PrecisionType,
    result_type: str | PrecisionType,
) -> FixedArray:
    """res_j = acc_j after acc_j = bias_j; acc_j += x_i * w[i, j] for i = 0 .. n_in-1 (each += a write).

    `weights` has shape (n_in, n_out) (row-major, the Keras kernel), `biases` shape (n_out,). Where the
    types allow, the loop runs as one integer matrix product (`integer_mac`), with the same bits.
    """
    x = as_samples(x)
    n_in, n_out = weights.shape
    if x.shape[1] != n_in or biases.shape != (n_out,):
        raise ValueError(f'dense: input {x.shape}, weights {weights.shape}, biases {biases.shape} do not match')
    start = biases.cast(accum_type)
    product = integer_product(x, weights, start, accum_type)
    if product is not None:
        return product.cast(result_type)
    return dense_by_columns(x, weights, start, accum_type).cast(result_type)


def dense_by_columns(
    x: FixedArray, weights: FixedArray, start: FixedArray, accum_type: str | PrecisionType
) -> FixedArray:
    """The accumulator after the kernel's loop, one input column (and one write into accum_type) at a time:
    the general path, for every type combination."""
    acc = take(start, np.broadcast_to(np.arange(weights.shape[1]), (x.shape[0], weights.shape[1])))
    for i in range(weights.shape[0]):
        acc = (acc + take(x, (slice(None), slice(i, i + 1))) * take(weights, i)).cast(accum_type)
    return acc
