"""Reference of `nnet::moe` (nnet_moe.h): a mixture of Dense experts computing only the routed ones.

Per token (a row of n_in features and its row of E router logits): the Router's token choice picks
the k experts and their gates (`router.router_choices`, `router.router` with output 'weights': the
same selection, tables and writes as `nnet::router`); slot s computes its expert's Dense
acc_j = bias_j; acc_j += x_i * w[i, j] for i = 0 .. n_in-1 (each += a write into accum_t); then
y_j = 0; y_j += gate_s * out_s[j] for s = 0 .. k-1 in rank order (each += a write into result_t).
`moe_exact` is the float64 definition, the accuracy oracle.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.reference.router import router, router_choices, router_exact
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def _rows(x: FixedArray, width: int) -> FixedArray:
    samples = as_samples(x)
    return FixedArray(samples.raw.reshape(-1, width), samples.type, samples.family)


def expert_outputs(
    rows: FixedArray, weights: FixedArray, biases: FixedArray, experts: np.ndarray, accum: Type
) -> FixedArray:
    """Each row's Dense through its own expert `experts[row]`: (n_rows, n_out) in `accum`."""
    n_in = weights.shape[1]
    acc = take(biases, experts).cast(accum)
    for i in range(n_in):
        acc = (acc + take(rows, (slice(None), slice(i, i + 1))) * take(weights, (experts, i))).cast(accum)
    return acc


def moe(
    x: FixedArray,
    logits: FixedArray,
    weights: FixedArray,
    biases: FixedArray,
    k: int,
    renormalize: bool,
    tables: Mapping[str, TableSpec],
    types: Mapping[str, Type],
) -> FixedArray:
    """y per token of `x` (each sample: n_rows tokens of n_in features, row-major) routed by its row
    of E `logits`; `weights` (E, n_in, n_out), `biases` (E, n_out); `types` holds 'accum', 'gate',
    'gate_accum' and 'result'. Returns (n_samples, n_rows * n_out)."""
    experts, n_in, n_out = weights.shape
    n_samples = as_samples(x).shape[0]
    rows, logit_rows = _rows(x, n_in), _rows(logits, experts)
    chosen = router_choices(logit_rows, k)
    gates = router(
        logit_rows, k, renormalize, 'weights', tables['exp_'], tables['inv_'], types['gate_accum'], types['gate']
    )
    result = types['result']
    total = FixedArray.from_raw(np.zeros((rows.shape[0], n_out), dtype=np.int64), 'int<32>', x.family).cast(result)
    for slot in range(k):
        out = expert_outputs(rows, weights, biases, chosen[:, slot], types['accum'])
        total = (total + take(gates, (slice(None), slice(slot, slot + 1))) * out).cast(result)
    return FixedArray(total.raw.reshape(n_samples, -1), total.type, total.family)


def moe_exact(
    x: np.ndarray, logits: np.ndarray, weights: np.ndarray, biases: np.ndarray, k: int, renormalize: bool
) -> np.ndarray:
    """Float64 definition: softmax gating of the logits, top-k (ties to the lower index), optionally
    renormalised, y = sum over the chosen e of gate_e * (x W_e + b_e); rows of x and logits pair up."""
    experts, n_in, n_out = weights.shape
    rows = np.asarray(x, dtype=np.float64).reshape(-1, n_in)
    gates, chosen = router_exact(np.asarray(logits, dtype=np.float64).reshape(-1, experts), k, renormalize)
    outputs = np.einsum('ri,eio->reo', rows, weights) + biases[np.newaxis]
    picked = np.take_along_axis(outputs, chosen[:, :, np.newaxis], axis=1)  # (rows, k, n_out)
    return (gates[:, :, np.newaxis] * picked).sum(axis=1)


def soft_moe_exact(x: np.ndarray, slots: np.ndarray, weights: np.ndarray, biases: np.ndarray) -> dict[str, np.ndarray]:
    """Float64 Soft MoE of one group of tokens x (n, d) (no normalisation or scale): logits x slots
    (slots (d, E S), expert-major), dispatch = softmax over the tokens, combine = softmax over the slots,
    slot inputs dispatch^T x, expert e on its S slots, y = combine (slot outputs). All the stages."""
    experts, _, out_features = weights.shape
    logits = np.asarray(x, dtype=np.float64) @ slots
    dispatch = np.exp(logits - logits.max(axis=0)) / np.exp(logits - logits.max(axis=0)).sum(axis=0)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    combine = shifted / shifted.sum(axis=1, keepdims=True)
    slot_inputs = dispatch.T @ x
    grouped = slot_inputs.reshape(experts, -1, slot_inputs.shape[1])
    slot_outputs = (np.einsum('esd,edo->eso', grouped, weights) + biases[:, np.newaxis]).reshape(-1, out_features)
    stages = {'dispatch': dispatch, 'combine': combine, 'slot_inputs': slot_inputs}
    return {**stages, 'slot_outputs': slot_outputs, 'y': combine @ slot_outputs}
