"""Reference of `nnet::einsum` and `nnet::einsum_dense` (`templates/nnet/nnet_einsum.h`): the product
of two tensors along an `EinsumPlan` (hls4ml/model/einsum.py), both strategies (they make the same
writes in the same order).

For every output position (batch b, row m, column n): acc = 0; for k = 0 .. inner-1:
acc += first[b, m, k] * second[b, k, n] (the product exact, each += a write into accum_t; einsum_dense
starts acc from the position's bias, its second operand the weights);
res[b, m, n] = acc (a write into res_T). Positions are flat indices from the plan's strides.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.einsum import EinsumPlan
from hls4ml.model.fixed import FixedArray
from hls4ml.model.fixed.cast import canonical
from hls4ml.model.reference.arrays import as_samples, integer, take
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def einsum(
    first: FixedArray,
    second: FixedArray,
    plan: EinsumPlan,
    accum_type: Type,
    result_type: Type,
    biases: FixedArray | None = None,
) -> FixedArray:
    """The (n_samples, batch * rows * columns) output, laid out as the plan's output strides say.
    `biases` (einsum_dense: one per output value, in the output's layout) start the accumulators,
    else 0; a `second` of one row (the weights) is used for every sample."""
    first, second = as_samples(first), as_samples(second)
    if second.shape[0] == 1 and first.shape[0] != 1:  # constant weights: the same for every sample
        second = take(second, np.zeros(first.shape[0], dtype=np.intp))
    batch, rows, columns, inner = (np.arange(size) for size in plan.sizes)
    b, m, n = batch[:, None, None], rows[None, :, None], columns[None, None, :]
    first_at = b * plan.first[0] + m * plan.first[1]  # (batch, rows, 1) before the inner offset
    second_at = b * plan.second[0] + n * plan.second[2]  # (batch, 1, columns)
    positions = b * plan.output[0] + m * plan.output[1] + n * plan.output[2]  # (batch, rows, columns)
    acc = _start(first, biases, positions, accum_type)
    for k in inner:
        left = take(first, (slice(None), first_at + k * plan.first[2]))
        right = take(second, (slice(None), second_at + k * plan.second[1]))
        acc = (acc + left * right).cast(accum_type)
    result = acc.cast(result_type)
    flat = result.raw.reshape(first.shape[0], -1)
    order = np.argsort(positions.reshape(-1), kind='stable')
    return FixedArray(flat[:, order], result.type, result.family)


def _start(first: FixedArray, biases: FixedArray | None, positions: np.ndarray, accum_type: Type) -> FixedArray:
    """The accumulators' first values, (n_samples, batch, rows, columns): 0, or each position's bias."""
    shape = (first.shape[0], *positions.shape)
    start = integer(0, first.family).cast(accum_type) if biases is None else take(biases, positions).cast(accum_type)
    raw = np.broadcast_to(start.raw, shape).copy()
    return FixedArray(canonical(raw, start.type), start.type, start.family)
