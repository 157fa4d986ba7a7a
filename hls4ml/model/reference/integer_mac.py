"""The multiply-accumulate of Dense and Conv as one integer product on the raw values, where that is exact.

The kernels run `acc = bias; acc += x_i * w_i` with a write into accum_t after every +=. The product
and the sum are exact (full precision), so each step is `acc = write(acc + p_i)`. When the accumulator
wraps (WRAP without saturation bits) that write is reduction modulo 2^W, and when the product has bits
below the accumulator's LSB and the rounding looks only at those dropped bits (TRN, RND, RND_MIN_INF:
not the sign, not the parity of the total), write(acc + p) = acc + write(p), because acc is already a
multiple of the LSB. The whole loop then equals bias + sum_i round(p_i), wrapped once at the end:
the rule of the C++ fast path (`nnet_csim_fast.h`). Any other type combination returns None and
the caller keeps its step-by-step loop. The int64 sum never overflows: the bound is checked on the
actual raw values first, and a sum that could leave int64 also returns None.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.fixed import cast as _cast
from hls4ml.model.types import FixedPrecisionType, PrecisionType, RoundingMode, SaturationMode, parse_precision

SEPARABLE_ROUNDINGS = (RoundingMode.TRN, RoundingMode.RND, RoundingMode.RND_MIN_INF)
INT64_LIMIT = 2**62  # sums stay below this (a margin of one bit below int64's range)
FLOAT_EXACT_LIMIT = 2**53  # integer sums below this are exact in float64, in any summation order
CHUNK_ELEMENTS = 1 << 17  # products held at once when each must be rounded on its own (1 MB: stays in cache)


def integer_product(
    x: FixedArray, weights: FixedArray, accumulator_start: FixedArray, accum_type: str | PrecisionType
) -> FixedArray | None:
    """accumulator_start + x @ weights written into accum_type as the step-by-step loop would, or None.

    `x` is (n_samples, n_in), `weights` (n_in, n_out), `accumulator_start` (n_out,) or (n_samples, n_out)
    already of accum_type (the biases written into it). None when the types or values do not allow it.
    """
    accum = parse_precision(accum_type)
    if not isinstance(accum, FixedPrecisionType):
        return None
    drop = _dropped_bits(x, weights, accum)
    if drop is None or not _fits(x, weights, accumulator_start, drop):
        return None
    x_raw, weight_raw = x.raw, weights.raw
    if drop <= 0:
        total = _exact_matmul(x_raw, weight_raw) << -drop
    else:
        total = _rounded_products_sum(x_raw, weight_raw, drop, _cast.write_mode(accum, x.family))
    wrapped = _cast.wrap(total + accumulator_start.raw, accum.width, accum.signed)
    return FixedArray(_cast.canonical(wrapped, accum), accum, x.family)


def _dropped_bits(x: FixedArray, weights: FixedArray, accum: FixedPrecisionType) -> int | None:
    """Product bits below the accumulator's LSB when the integer path is exact for these types, else None."""
    if x.family != weights.family:
        return None
    if accum.saturation_mode is not SaturationMode.WRAP or accum.saturation_bits != 0 or accum.width > 62:
        return None
    if x.raw.dtype != np.int64 or weights.raw.dtype != np.int64:
        return None
    drop = x.type.fractional + weights.type.fractional - accum.fractional
    if drop > 0 and _cast.write_mode(accum, x.family) not in SEPARABLE_ROUNDINGS:
        return None
    return drop if drop < 62 else None


def _largest(raw: np.ndarray) -> int:
    return int(np.abs(raw).max(initial=0))


def _fits(x: FixedArray, weights: FixedArray, start: FixedArray, drop: int) -> bool:
    """Whether every product, its rounding and the whole sum stay within int64 (exact Python-int bound)."""
    if start.raw.dtype != np.int64:
        return False
    product = _largest(x.raw) * _largest(weights.raw)
    if drop > 0:
        scaled = (product >> drop) + 1
        if product + (1 << drop) >= INT64_LIMIT:
            return False
    else:
        scaled = product << -drop
    return x.raw.shape[-1] * scaled + _largest(start.raw) < INT64_LIMIT


def _exact_matmul(x_raw: np.ndarray, weight_raw: np.ndarray) -> np.ndarray:
    """x_raw @ weight_raw exactly: in float64 when every partial sum is below 2^53 (exact in any order),
    else in int64 blocks (numpy's own int64 matmul measured about 3x slower than the blocks). einsum,
    not BLAS: as fast here, on one thread, where BLAS's two threads measured 10x slower on a loaded machine."""
    bound = _largest(x_raw) * _largest(weight_raw) * x_raw.shape[-1]
    if bound < FLOAT_EXACT_LIMIT:
        return np.einsum('ij,jk->ik', x_raw.astype(np.float64), weight_raw.astype(np.float64)).astype(np.int64)
    return _rounded_products_sum(x_raw, weight_raw, 0, RoundingMode.TRN)


def _rounded_products_sum(x_raw: np.ndarray, weight_raw: np.ndarray, drop: int, rounding: RoundingMode) -> np.ndarray:
    """sum_i round(x[:, i] * w[i, :] / 2^drop), each product rounded on its own as the accumulator does,
    a block of input columns at a time (the products of one block stay in cache)."""
    half = 0 if rounding is RoundingMode.TRN or drop <= 0 else 1 << (drop - 1)
    offset = half - 1 if rounding is RoundingMode.RND_MIN_INF else half
    (n_samples, n_in), n_out = x_raw.shape, weight_raw.shape[1]
    block = max(1, CHUNK_ELEMENTS // max(n_samples * n_out, 1))
    total = np.zeros((n_samples, n_out), dtype=np.int64)
    for start in range(0, n_in, block):
        products = x_raw[:, start : start + block, None] * weight_raw[None, start : start + block]
        if offset:
            products += offset
        products >>= drop
        total += products.sum(axis=1)
    return total
