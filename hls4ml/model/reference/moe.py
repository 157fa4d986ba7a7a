"""Reference of `nnet::moe` (nnet_moe.h): a mixture of Dense experts computing only the routed ones.

Per token (a row of n_in features and its row of E router logits): the Router's token choice picks
the k experts and their gates (`router.router_choices`, `router.router` with output 'weights': the
same selection, tables and writes as `nnet::router`); slot s computes its expert's Dense
acc_j = bias_j; acc_j += x_i * w[i, j] for i = 0 .. n_in-1 (each += a write into accum_t) (FFN
experts: that Dense into hidden_t, h = h > 0 ? h : 0, then the second Dense into accum_t); then
y_j = 0; y_j += gate_s * out_s[j] for s = 0 .. k-1 in rank order (each += a write into result_t).
`moe_exact` is the float64 definition, the accuracy oracle.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, select, take
from hls4ml.model.reference.router import router, router_choices, router_exact
from hls4ml.model.tables import TableSpec
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType
Stages = list[tuple[FixedArray, FixedArray]]  # per expert layer: weights (E, n_in, n_out), biases (E, n_out)


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


def expert_function(rows: FixedArray, stages: Stages, experts: np.ndarray, types: Mapping[str, Type]) -> FixedArray:
    """f_e of each row for its expert: one Dense into `accum` (linear experts) or Dense into `hidden`,
    ReLU (h = h > 0 ? h : 0, in `hidden`), Dense into `accum` (FFN experts)."""
    if len(stages) == 1:
        return expert_outputs(rows, *stages[0], experts, types['accum'])
    hidden = expert_outputs(rows, *stages[0], experts, types['hidden'])
    zero = FixedArray.from_raw(np.zeros(hidden.shape, dtype=np.int64), 'int<32>', hidden.family).cast(types['hidden'])
    rectified = select(hidden.raw > 0, hidden, zero)
    return expert_outputs(rectified, *stages[1], experts, types['accum'])


def moe(
    x: FixedArray,
    logits: FixedArray,
    stages: Stages,
    k: int,
    renormalize: bool,
    tables: Mapping[str, TableSpec],
    types: Mapping[str, Type],
) -> FixedArray:
    """y per token of `x` (each sample: n_rows tokens of n_in features, row-major) routed by its row
    of E `logits`; `stages` the experts' (weights (E, n_in, n), biases (E, n)): one pair (linear) or two
    (FFN); `types` holds 'accum', 'gate', 'gate_accum', 'result' (and 'hidden' for FFN experts).
    Returns (n_samples, n_rows * n_out)."""
    experts, n_in, _ = stages[0][0].shape
    n_out = stages[-1][0].shape[2]
    n_samples = as_samples(x).shape[0]
    rows, logit_rows = _rows(x, n_in), _rows(logits, experts)
    chosen = router_choices(logit_rows, k)
    gates = router(
        logit_rows, k, renormalize, 'weights', tables['exp_'], tables['inv_'], types['gate_accum'], types['gate']
    )
    result = types['result']
    total = FixedArray.from_raw(np.zeros((rows.shape[0], n_out), dtype=np.int64), 'int<32>', x.family).cast(result)
    for slot in range(k):
        out = expert_function(rows, stages, chosen[:, slot], types)
        total = (total + take(gates, (slice(None), slice(slot, slot + 1))) * out).cast(result)
    return FixedArray(total.raw.reshape(n_samples, -1), total.type, total.family)


def moe_exact(
    x: np.ndarray,
    logits: np.ndarray,
    weights: np.ndarray,
    biases: np.ndarray,
    k: int,
    renormalize: bool,
    second: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Float64 definition: softmax gating of the logits, top-k (ties to the lower index), optionally
    renormalised, y = sum over the chosen e of gate_e * f_e(x), f_e(x) = x W_e + b_e, or with `second`
    = (W2, b2) the FFN relu(x W_e + b_e) W2_e + b2_e; rows of x and logits pair up."""
    experts, n_in, _ = weights.shape
    rows = np.asarray(x, dtype=np.float64).reshape(-1, n_in)
    gates, chosen = router_exact(np.asarray(logits, dtype=np.float64).reshape(-1, experts), k, renormalize)
    outputs = np.einsum('ri,eio->reo', rows, weights) + biases[np.newaxis]
    if second is not None:
        outputs = np.einsum('reh,eho->reo', np.maximum(outputs, 0.0), second[0]) + second[1][np.newaxis]
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


def soft_moe_error_bound(x: np.ndarray, weights: np.ndarray, stages: dict[str, np.ndarray], eps: float) -> float:
    """The bound of docs/moe.md "Soft MoE" on |y - y_float64| for one group x (n, d) when every entry of
    the dispatch and combine matrices is within `eps` of its float value: the slot inputs within
    n eps max|x|, the slot outputs within that times the largest column sum of |W_e|, y within
    (E S) eps max|slot output| + (1 + E S eps) times the slot outputs' bound."""
    slots, tokens = stages['combine'].shape[1], x.shape[0]
    slot_input = tokens * eps * float(np.abs(x).max())
    slot_output = slot_input * float(np.abs(weights).sum(axis=1).max())
    return slots * eps * float(np.abs(stages['slot_outputs']).max()) + (1 + slots * eps) * slot_output
