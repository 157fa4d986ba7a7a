"""Soft MoE (seed-layers.md B.5.6; docs/moe.md, "Soft MoE") composed from existing kinds, as attention
is: no kind of its own, so every part keeps its own kernel, reference, lowering and estimator rule.

For a group of n tokens X (n, d), slot parameters Phi (d, E S) (expert-major), experts W_e (d, o), b_e:
  logits   L = X Phi                          Dense on each token (a pointwise Conv1D)
  dispatch D = softmax of L over the tokens   Softmax along axis 0 (a Transpose first)
  combine  C = softmax of L over the slots    Softmax along axis 1
  slots    X~ = D^T X, as (E, S, d)           Einsum 'tm,td->md', Reshape
  experts  Y~_e = X~_e W_e + b_e              EinsumDense 'esd,edo->eso' (each expert its own weights)
  output   Y = C Y~                           Reshape to (E S, o), Einsum 'tm,mo->to'
"""

from __future__ import annotations

import numpy as np

from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation, Value


def _part(origin: Origin, suffix: str) -> Origin:
    return Origin(f'{origin.name}_{suffix}', origin.op, origin.where)


def soft_moe(
    builder: GraphBuilder, origin: Origin, x: Value, slots: np.ndarray, kernels: np.ndarray, biases: np.ndarray
) -> Value:
    """The layers of one Soft MoE on x (tokens, d); `slots` (d, E S), `kernels` (E, d, o), `biases` (E, o)."""
    experts, features, outputs = kernels.shape
    if x.rank != 2 or x.shape[1] != features or slots.shape[0] != features or slots.shape[1] % experts:
        raise UnsupportedOperation(
            f'{origin}: Soft MoE takes one group of tokens (tokens, {features}) per sample and slot parameters '
            f'({features}, experts * slots); got input {x.shape}, slots {slots.shape}, {experts} experts'
        )
    per_expert = slots.shape[1] // experts
    logits = builder.dense(_part(origin, 'logits'), x, slots, None)
    dispatch = builder.softmax(_part(origin, 'dispatch'), logits, axis=0)
    combine = builder.softmax(_part(origin, 'combine'), logits, axis=1)
    slot_inputs = builder.einsum(_part(origin, 'slot_inputs'), 'tm,td->md', dispatch, x)
    grouped = builder.reshape(_part(origin, 'slot_groups'), slot_inputs, (experts, per_expert, features))
    expert_outputs = builder.einsum_dense(
        _part(origin, 'experts'), 'esd,edo->eso', grouped, kernels, biases[:, np.newaxis, :]
    )
    flat = builder.reshape(_part(origin, 'slot_outputs'), expert_outputs, (experts * per_expert, outputs))
    return builder.einsum(origin, 'tm,mo->to', combine, flat)
