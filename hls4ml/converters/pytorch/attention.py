"""torch `nn.MultiheadAttention` as a composition of existing IR kinds
(docs/attention.md), the same as Keras MultiHeadAttention's:

    q, k, v = x W^T + b            Dense along the last axis (pointwise convolutions), the query's
                                   weight and bias scaled by 1/sqrt(head_dim), as the scores are
    heads                          Reshape (tokens, heads, head_dim)
    scores = q . k                 Einsum 'qhd,khd->hqk'
    weights = softmax(scores)      Softmax along the keys
    mixed = weights . v            Einsum 'hqk,khd->qhd', Reshape (tokens, embed_dim)
    output                         Dense (out_proj)

The second output, the attention weights averaged over the heads (need_weights=True, the default),
is made only when the model reads it: a Dense of weight 1/heads over the head axis.
A constant attn_mask of 0 and -inf (is_causal is only a hint beside it) selects -MASKED for masked
keys, as the Keras handler does. batch_first=False converts when its inputs are `x.transpose(0, 1)` of
batch-first tensors (the usual pattern; the transposes cancel, no layer is made) and its output is
transposed back. key_padding_mask, a computed or boolean attn_mask, add_bias_kv and add_zero_attn are
refused by name."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.converters.attention import KEEP_TYPE, MASKED, OFFSET_TYPE
from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import SequenceFirst, Step, array, modules, tensor


class AttentionResult:
    """(output, averaged weights) of the module; the weights' layers are made when the item is read."""

    def __init__(self, step: Step, output: Value, weights: Value, module: Any, need: bool, average: bool) -> None:
        self.step, self.output, self.weights = step, output, weights
        self.module, self.need_weights, self.average = module, need, average
        self.averaged: Value | None = None

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> Value | SequenceFirst | None:
        if index == 0:  # batch_first=False returns (tokens, batch, embed); its weights stay batch-first
            return self.output if self.module.batch_first else SequenceFirst(self.output)
        if not self.need_weights:
            return None
        if not self.average:  # average_attn_weights=False: the weights of each head
            return self.weights
        if self.averaged is None:
            self.averaged = _averaged_weights(self.step, self.weights, self.module.num_heads)
        return self.averaged


@modules('MultiheadAttention')
def multihead_attention(
    step: Step,
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    key_padding_mask: Any = None,
    need_weights: bool = True,
    attn_mask: Any = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> AttentionResult:
    _refuse_unsupported(step, module, key_padding_mask, attn_mask, is_causal)
    if not module.batch_first:
        query, key, value = (
            _batch_first(step, x, role) for x, role in ((query, 'query'), (key, 'key'), (value, 'value'))
        )
    heads, embed_dim = module.num_heads, module.embed_dim
    head_dim = embed_dim // heads
    weights, biases = _projections(module)
    scale = 1 / math.sqrt(head_dim)
    operands = {'query': query, 'key': key, 'value': value}
    projected = {}
    for role, x in operands.items():
        factor = scale if role == 'query' else 1.0
        bias = None if biases is None else biases[role] * factor
        dense = step.builder.dense(step.part(role), tensor(step, x, f'the {role}'), weights[role].T * factor, bias)
        projected[role] = step.builder.reshape(step.part(f'{role}_heads'), dense, (dense.shape[0], heads, head_dim))
    scores = step.builder.einsum(step.part('scores'), 'qhd,khd->hqk', projected['query'], projected['key'])
    if attn_mask is not None:
        scores = _masked(step, scores, attn_mask)
    attention = step.builder.softmax(step.part('softmax'), scores, -1)
    mixed = step.builder.einsum(step.part('mixed'), 'hqk,khd->qhd', attention, projected['value'])
    joined = step.builder.reshape(step.part('joined'), mixed, (mixed.shape[0], embed_dim))
    out_bias = None if module.out_proj.bias is None else array(module.out_proj.bias)
    output = step.builder.dense(step.origin, joined, array(module.out_proj.weight).T, out_bias)
    return AttentionResult(step, output, attention, module, need_weights, average_attn_weights)


def _refuse_unsupported(step: Step, module: Any, key_padding_mask: Any, attn_mask: Any, is_causal: bool) -> None:
    """Settings the composition does not compute: refused with the setting's name."""
    if key_padding_mask is not None:
        raise step.refuse('key_padding_mask is not supported yet (a constant attn_mask of 0 and -inf is)')
    if isinstance(attn_mask, Value):
        raise step.refuse('an attn_mask computed from the inputs is not supported (a constant mask of 0 and -inf is)')
    if module.bias_k is not None or module.add_zero_attn:
        raise step.refuse('add_bias_kv=True and add_zero_attn=True are not supported (they add a key and a value)')


def _batch_first(step: Step, x: Any, role: str) -> Value:
    """The batch-first tensor behind a batch_first=False input, which must be `x.transpose(0, 1)` of one
    (the transposes cancel against the layer's layout); any other tensor's axis 1 is not its batch."""
    if isinstance(x, SequenceFirst):
        return x.value
    raise step.refuse(
        f'batch_first=False reads the {role} as (tokens, batch, features), and each sample is computed on its own: '
        f'pass x.transpose(0, 1) of a (batch, tokens, features) tensor (and transpose the output back), '
        'or construct the module with batch_first=True'
    )


def _masked(step: Step, scores: Value, attn_mask: np.ndarray) -> Value:
    """A constant float attn_mask (queries, keys) of 0 (attend) and -inf (masked), as
    nn.Transformer.generate_square_subsequent_mask makes: scores * keep + offset, -MASKED where masked,
    one BatchNormalization in exact types; masked keys then get weight exactly 0 (docs/attention.md)."""
    mask = np.asarray(attn_mask, dtype=np.float64)
    if mask.shape != scores.shape[1:]:
        raise step.refuse(f'attn_mask of shape {mask.shape} is not supported (queries, keys) = {scores.shape[1:]}')
    keep = np.isfinite(mask)
    if not (mask[keep] == 0).all() or not (mask[~keep] < 0).all():
        raise step.refuse(
            'attn_mask must be a float mask of 0 (attend) and -inf (masked); a boolean mask arrives as 0/1 and '
            'cannot be told from an additive one: convert it with mask.float().masked_fill(mask, -inf)'
        )
    if not keep.any(axis=-1).all():
        raise step.refuse('attn_mask masks every key of a query (PyTorch gives NaN there)')
    masked = step.builder.affine(step.part('masked'), scores, keep.astype(np.float64), np.where(keep, 0.0, -MASKED))
    step.builder.graph.layers[masked.tensor].types.update(scale=KEEP_TYPE, bias=OFFSET_TYPE)
    return masked


def _projections(module: Any) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """The (out, in) weights of the query, key and value projections and their biases (None without bias)."""
    roles = ('query', 'key', 'value')
    if module._qkv_same_embed_dim:
        weights = dict(zip(roles, np.split(array(module.in_proj_weight), 3), strict=True))
    else:
        parts = (module.q_proj_weight, module.k_proj_weight, module.v_proj_weight)
        weights = {role: array(part) for role, part in zip(roles, parts, strict=True)}
    if module.in_proj_bias is None:
        return weights, None
    return weights, dict(zip(roles, np.split(array(module.in_proj_bias), 3), strict=True))


def _averaged_weights(step: Step, attention: Value, heads: int) -> Value:
    """The weights averaged over the heads (PyTorch's default second output): a Dense of weight
    1/heads along the head axis (exact when heads is a power of two)."""
    per_token = step.builder.transpose(step.part('weights_heads_last'), attention, (1, 2, 0))
    summed = step.builder.dense(step.part('weights_mean'), per_token, np.full((heads, 1), 1 / heads), None)
    return step.builder.reshape(step.part('weights'), summed, summed.shape[:2])
