"""Reference of `nnet::dense` (both strategies: the arithmetic does not depend on them)."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.types import PrecisionType


def dense(
    x: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    accum_type: str | PrecisionType,
    result_type: str | PrecisionType,
) -> FixedArray:
    """res_j = acc_j after acc_j = bias_j; acc_j += x_i * w[i, j] for i = 0 .. n_in-1 (each += a write).

    `weights` has shape (n_in, n_out) (row-major, the Keras kernel), `biases` shape (n_out,).
    """
    x = as_samples(x)
    n_in, n_out = weights.shape
    if x.shape[1] != n_in or biases.shape != (n_out,):
        raise ValueError(f'dense: input {x.shape}, weights {weights.shape}, biases {biases.shape} do not match')
    acc = take(biases.cast(accum_type), np.broadcast_to(np.arange(n_out), (x.shape[0], n_out)))
    for i in range(n_in):
        acc = (acc + take(x, (slice(None), slice(i, i + 1))) * take(weights, i)).cast(accum_type)
    return acc.cast(result_type)
