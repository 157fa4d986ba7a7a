"""Sinkhorn balancing of a group's router scores (seed-layers.md B.5.7), the twin of `nnet::router_sinkhorn`
(nnet_router.h), and its float64 definition.

A group of n tokens, (n, E) logits: S = exp(r - r_max) per token, then `iterations` times: every row
divided by its sum (rows sum to 1), every column divided by its sum (columns sum to 1). The definition
scales columns to n/E; a uniform factor changes neither the next row division nor any ordering, so the
firmware normalises columns to 1 and its plan is the definition's divided by n/E. Each division is
exact: floor(value / sum) at the plan's LSB by restoring division (the quotient is in [0, 1]); a sum
of 0 leaves its zeros. The plan then selects the experts (top-k per token) in place of the logits.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import exact_divide, select, take
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import FixedPrecisionType

DEFAULT_PLAN_BITS = 16  # fraction bits of the plan (the balanced matrix)


def sinkhorn_types(fraction: int, n_tokens: int, n_experts: int) -> tuple[FixedPrecisionType, FixedPrecisionType]:
    """(plan_t, remainder_t): the plan in [0, 1] with `fraction` bits; the sums and the division's
    remainder, exact, up to twice the largest sum (a row sums to at most E, a column to at most n)."""
    whole = max(n_tokens, n_experts).bit_length() + 1
    return FixedPrecisionType(fraction + 1, 1, False), FixedPrecisionType(fraction + whole, whole, False)


def _normalise(plan: np.ndarray, axis: int, plan_type, remainder_type, family: str) -> np.ndarray:
    """Every line along `axis` of the raw (groups, n, E) plan divided by its exact sum."""
    values = FixedArray(plan, plan_type, family).cast(remainder_type)
    sums = np.broadcast_to(values.raw.sum(axis=axis, keepdims=True), plan.shape)
    divisor = FixedArray(sums.copy(), remainder_type, family)
    quotient = exact_divide(values, divisor, plan_type)
    zero = FixedArray(np.zeros_like(plan), plan_type, family)
    return select(sums > 0, quotient, zero).raw


def sinkhorn_plan(
    rows: FixedArray, n_tokens: int, iterations: int, exp_spec: TableSpec, fraction: int = DEFAULT_PLAN_BITS
) -> FixedArray:
    """The balanced plan of (groups * n_tokens, E) logits, one row per token, in plan_t."""
    n_experts = rows.shape[1]
    plan_type, remainder_type = sinkhorn_types(fraction, n_tokens, n_experts)
    top = take(rows, (np.arange(rows.shape[0]), np.argmax(rows.raw, axis=1)))
    exponentials = exp_spec.lookup(rows - take(top, (slice(None), np.newaxis))).cast(plan_type)
    plan = exponentials.raw.reshape(-1, n_tokens, n_experts)
    for _ in range(iterations):
        plan = _normalise(plan, 2, plan_type, remainder_type, rows.family)
        plan = _normalise(plan, 1, plan_type, remainder_type, rows.family)
    return FixedArray(plan.reshape(rows.shape), plan_type, rows.family)


def sinkhorn_exact(logits: np.ndarray, iterations: int) -> np.ndarray:
    """Float64 definition of one group (n, E) or a batch of groups: rows to 1, columns to n/E."""
    plan = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    n_tokens, n_experts = plan.shape[-2:]
    for _ in range(iterations):
        plan = plan / plan.sum(axis=-1, keepdims=True)
        plan = plan / plan.sum(axis=-2, keepdims=True) * (n_tokens / n_experts)
    return plan
