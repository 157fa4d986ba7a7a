"""Reference of `nnet::router` (nnet_router.h): token-choice MoE gating over n_in expert logits.

Selection runs on the raw logits (softmax is monotone, so it picks the same experts as top-k of the
probabilities): k passes of a stable argmax, the lower index winning ties, which is the stable
descending order's first k. Gates are e_j = exp_table(r_j - r_max) times inv_table(sum), where the
sum runs over the k chosen experts in rank order (renormalised: softmax of the kept logits, Mixtral)
or over all n_in experts in index order (no renormalisation: the softmax probabilities, V-MoE, Switch).
`expert_choice` is the twin of `nnet::expert_choice`: each expert picks its best tokens of a group.
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, integer, select, take
from hls4ml.model.reference.sinkhorn import DEFAULT_PLAN_BITS, sinkhorn_plan
from hls4ml.model.reference.soft_router import soft_expert_choice
from hls4ml.model.reference.softmax import softmax_stable
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def router_choices(x: FixedArray, k: int) -> np.ndarray:
    """(n_samples, k) experts in descending logit order, ties to the lower index."""
    rows = as_samples(x)
    return np.argsort(-rows.raw, axis=1, kind='stable')[:, :k].astype(np.int64)


def _sum(terms: FixedArray, accum_type: Type) -> FixedArray:
    total = integer(0, terms.family).cast(accum_type)
    for column in range(terms.shape[1]):
        total = (total + take(terms, (slice(None), column))).cast(accum_type)
    return total


def router(
    x: FixedArray,
    k: int,
    renormalize: bool,
    output: str,
    exp_spec: TableSpec,
    inv_spec: TableSpec,
    accum_type: Type,
    result_type: Type,
    n_in: int | None = None,
    capacity: int = 0,
    sinkhorn: tuple[int, int] = (0, DEFAULT_PLAN_BITS),
) -> FixedArray:
    """'gates' (n_in, the gate of each chosen expert, 0 elsewhere), 'weights' (the k gates in rank
    order) or 'indices' (the k experts), for each row of `n_in` logits (default: the whole sample). A
    sample of n_rows tokens (n_rows * n_in values, row-major) gives its n_rows results in that order.
    `capacity` > 0: the sample's tokens are one group and each expert takes at most `capacity` of
    them (`capacity_kept`); a dropped choice's gate is 0 (gates and weights only). `sinkhorn`:
    (iterations, plan fraction bits); iterations > 0 selects on the group's Sinkhorn-balanced plan
    (`sinkhorn.sinkhorn_plan`) instead of the logits, and the gates stay the softmax's."""
    samples = as_samples(x)
    n_samples, size = samples.shape
    rows = FixedArray(samples.raw.reshape(-1, n_in or size), samples.type, samples.family)
    chosen = router_choices(rows, k)
    if sinkhorn[0] > 0:
        plan = sinkhorn_plan(rows, rows.shape[0] // n_samples, sinkhorn[0], exp_spec, sinkhorn[1])
        chosen = router_choices(plan, k)
    group = (n_samples, capacity)
    routed = _route(rows, chosen, renormalize, output, exp_spec, inv_spec, accum_type, result_type, group)
    return FixedArray(routed.raw.reshape(n_samples, -1), routed.type, routed.family)


def capacity_from_factor(n_tokens: int, k: int, n_experts: int, capacity_factor: float, multiple_of: int = 4) -> int:
    """C = ceil(n_tokens k capacity_factor / n_experts), rounded up to a multiple of `multiple_of` (4 by
    default, as vmoe's compute_capacity; 1 for none), at most n_tokens (an expert never takes more)."""
    capacity = math.ceil(n_tokens * k * capacity_factor / n_experts)
    capacity = -(-capacity // multiple_of) * multiple_of
    return max(1, min(capacity, n_tokens))


def capacity_kept(chosen: np.ndarray, n_experts: int, capacity: int) -> np.ndarray:
    """Which choices of (groups, tokens, k) chosen experts an expert of capacity C accepts: all first
    choices before any second choice, and so on, earlier tokens first within each rank (vmoe's
    priority without batch-priority routing, seed-layers.md B.5.4)."""
    groups, tokens, k = chosen.shape
    load = np.zeros((groups, n_experts), dtype=np.int64)
    kept = np.zeros(chosen.shape, dtype=bool)
    every_group = np.arange(groups)
    for rank in range(k):
        for token in range(tokens):
            experts = chosen[:, token, rank]
            accepted = load[every_group, experts] < capacity
            kept[:, token, rank] = accepted
            load[every_group, experts] += accepted
    return kept


def _route(
    rows: FixedArray,
    chosen: np.ndarray,
    renormalize: bool,
    output: str,
    exp_spec: TableSpec,
    inv_spec: TableSpec,
    accum_type: Type,
    result_type: Type,
    group: tuple[int, int] = (1, 0),
) -> FixedArray:
    """`router` of (n_rows, n_in) logits, one token per row, given its (n_rows, k) chosen experts;
    `group`: (samples, capacity)."""
    k = chosen.shape[1]
    if output == 'indices':
        return FixedArray.from_raw(chosen, 'int<32>', rows.family).cast(result_type)
    samples = np.arange(rows.shape[0])[:, np.newaxis]
    # r_max of the exponentials: the largest of the summed logits (the first choice's unless Sinkhorn chose)
    summed = chosen if renormalize else np.broadcast_to(np.arange(rows.shape[1]), rows.shape)
    best = np.take_along_axis(summed, np.argmax(np.take_along_axis(rows.raw, summed, axis=1), axis=1)[:, None], axis=1)
    top = take(rows, (samples, best))
    exponentials = exp_spec.lookup(rows - top)
    chosen_exponentials = take(exponentials, (samples, chosen))
    total = _sum(chosen_exponentials if renormalize else exponentials, accum_type)
    inverse = inv_spec.lookup(take(total, (slice(None), np.newaxis)))
    weights = (chosen_exponentials * inverse).cast(result_type)
    n_samples, capacity = group
    if capacity > 0:
        kept = capacity_kept(chosen.reshape(n_samples, -1, k), rows.shape[1], capacity).reshape(chosen.shape)
        weights = select(kept, weights, integer(0, rows.family).cast(result_type))
    if output == 'weights':
        return weights
    if output != 'gates':
        raise ValueError(f'unknown router output {output!r}')
    raw = np.zeros(rows.shape, dtype=weights.raw.dtype)
    np.put_along_axis(raw, chosen, weights.raw, axis=1)
    return FixedArray(raw, weights.type, weights.family)


def router_exact(logits: np.ndarray, k: int, renormalize: bool) -> tuple[np.ndarray, np.ndarray]:
    """Float64 token-choice gating (softmax, then top-k with ties to the lower index, then optionally
    renormalise): the (n_samples, k) gates and experts, the accuracy oracle of `router`."""
    rows = np.atleast_2d(np.asarray(logits, dtype=np.float64))
    chosen = np.argsort(-rows, axis=1, kind='stable')[:, :k]
    exponentials = np.exp(rows - rows.max(axis=1, keepdims=True))
    probabilities = exponentials / exponentials.sum(axis=1, keepdims=True)
    gates = np.take_along_axis(probabilities, chosen, axis=1)
    if renormalize:
        gates = gates / gates.sum(axis=1, keepdims=True)
    return gates, chosen


def expert_choice(
    x: FixedArray,
    n_experts: int,
    capacity: int,
    exp_spec: TableSpec,
    inv_spec: TableSpec,
    accum_type: Type,
    result_type: Type,
    soft: tuple[float, int, float] = (0.0, 12, 2.0),
) -> FixedArray:
    """Expert choice over a group of tokens (each sample: n_tokens rows of n_experts logits, row-major):
    P = the stable softmax of each row, written into the result type; each expert keeps the P of its
    `capacity` best tokens (ties to the lower token index) and 0 elsewhere; `soft` = (l > 0, iterations, p):
    the gates are P times the soft top-k mask (k = capacity, p = 2 or 4/3) of each expert's column instead."""
    rows = as_samples(x)
    probabilities = as_samples(softmax_stable(rows, exp_spec, inv_spec, accum_type, result_type, n_experts))
    if soft[0] > 0:  # (l, iterations, p): the soft top-k over each expert's column (soft_router.py)
        return soft_expert_choice(probabilities, n_experts, capacity, *soft)
    n_samples = rows.shape[0]
    grid = probabilities.raw.reshape(n_samples, -1, n_experts)  # (sample, token, expert)
    order = np.argsort(-grid, axis=1, kind='stable')  # per expert, tokens best first
    kept = np.zeros(grid.shape, dtype=bool)
    np.put_along_axis(kept, order[:, :capacity, :], True, axis=1)
    zero = integer(0, x.family).cast(result_type)
    return select(kept.reshape(n_samples, -1), probabilities, zero)


def expert_choice_exact(logits: np.ndarray, capacity: int) -> np.ndarray:
    """Float64 expert choice of one group (n_tokens, n_experts) or a batch of groups: the gates."""
    groups = np.asarray(logits, dtype=np.float64)
    exponentials = np.exp(groups - groups.max(axis=-1, keepdims=True))
    probabilities = exponentials / exponentials.sum(axis=-1, keepdims=True)
    order = np.argsort(-probabilities, axis=-2, kind='stable')
    kept = np.zeros(probabilities.shape, dtype=bool)
    np.put_along_axis(kept, np.take(order, np.arange(capacity), axis=-2), True, axis=-2)
    return np.where(kept, probabilities, 0.0)
