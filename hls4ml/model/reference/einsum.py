"""Reference of `nnet::einsum` (`templates/nnet/nnet_einsum.h`): the product of two tensors along an
`EinsumPlan` (hls4ml/model/einsum.py), both strategies (they make the same writes in the same order).

For every output position (batch b, row m, column n): acc = 0; for k = 0 .. inner-1:
acc += first[b, m, k] * second[b, k, n] (the product exact, each += a write into accum_t);
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


def einsum(first: FixedArray, second: FixedArray, plan: EinsumPlan, accum_type: Type, result_type: Type) -> FixedArray:
    """The (n_samples, batch * rows * columns) output, laid out as the plan's output strides say."""
    first, second = as_samples(first), as_samples(second)
    batch, rows, columns, inner = (np.arange(size) for size in plan.sizes)
    b, m, n = batch[:, None, None], rows[None, :, None], columns[None, None, :]
    first_at = b * plan.first[0] + m * plan.first[1]  # (batch, rows, 1) before the inner offset
    second_at = b * plan.second[0] + n * plan.second[2]  # (batch, 1, columns)
    zero = integer(0, first.family).cast(accum_type)
    shape = (first.shape[0], *plan.sizes[:3])
    acc = FixedArray(canonical(np.full(shape, zero.raw), zero.type), zero.type, zero.family)
    for k in inner:
        left = take(first, (slice(None), first_at + k * plan.first[2]))
        right = take(second, (slice(None), second_at + k * plan.second[1]))
        acc = (acc + left * right).cast(accum_type)
    result = acc.cast(result_type)
    positions = (b * plan.output[0] + m * plan.output[1] + n * plan.output[2]).reshape(-1)
    flat = result.raw.reshape(first.shape[0], -1)
    order = np.argsort(positions, kind='stable')
    return FixedArray(flat[:, order], result.type, result.family)
