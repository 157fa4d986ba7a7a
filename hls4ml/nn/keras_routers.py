"""Keras 3 MoE routers beyond hard top-k that the Keras frontend converts (docs/moe.md).

* `SoftTopKRouter`: token choice with a sparse soft top-k mask (seed-layers.md B.5.8): m = the soft
  top-k mask (p = 2 or 4/3, strength l) of the logits or of the probabilities, gate = m * softmax(r), optionally
  renormalised; `k_max` bounds the number of routed experts (the k_max largest m are kept, ties to the
  lower index, and the gates renormalised); `output_mode='overflow'` returns how many the bound dropped.

Runs on any Keras backend (keras.ops only); the mask is `keras_moe.soft_topk_mask` (p = 2) or
`keras_moe.soft_topk_cubic_mask` (p = 4/3), both exact.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from hls4ml.model.reference.soft_router import is_cubic, soft_router_settings
from hls4ml.nn.keras_moe import soft_topk_cubic_mask, soft_topk_mask


def _ranks(keys: Any) -> Any:
    """How many keys beat each one along the last axis (a higher key, or an equal one at a lower index)."""
    n = ops.shape(keys)[-1]
    mine, theirs = ops.expand_dims(keys, -1), ops.expand_dims(keys, -2)  # (..., i, j)
    earlier = ops.expand_dims(ops.arange(n), -1) > ops.expand_dims(ops.arange(n), 0)  # j < i
    beats = ops.logical_or(theirs > mine, ops.logical_and(theirs == mine, earlier))
    return ops.sum(ops.cast(beats, 'int32'), axis=-1)


def soft_route(logits: Any, settings: dict[str, Any]) -> Any:
    """The (..., experts) gates, or the (..., 1) overflow counts, of expert logits along the last axis."""
    probabilities = ops.softmax(logits, axis=-1)
    keys = logits if settings['mask_on'] == 'logits' else probabilities
    masking = soft_topk_cubic_mask if is_cubic(settings['p']) else soft_topk_mask
    mask = masking(keys, settings['k'], settings['l'])
    support = mask > 0
    kept = ops.logical_and(support, _ranks(keys) < settings['k_max'])
    if settings['output'] == 'overflow':
        dropped = ops.logical_and(support, ops.logical_not(kept))
        return ops.sum(ops.cast(dropped, logits.dtype), axis=-1, keepdims=True)
    gates = ops.where(kept, mask * probabilities, ops.zeros_like(probabilities))
    if settings['renormalize']:
        gates = gates / ops.sum(gates, axis=-1, keepdims=True)
    return gates


@keras.saving.register_keras_serializable(package='hls4ml')
class SoftTopKRouter(keras.layers.Layer):
    """Token-choice MoE router with a sparse soft top-k mask over the last axis: a gate matrix (no bias by
    default), then `soft_route`. Input (batch, features) or (batch, tokens, features); output (...,
    num_experts) gates or (..., 1) overflow counts. k_max defaults to num_experts (nothing dropped)."""

    def __init__(
        self,
        num_experts: int,
        k: int = 2,
        l: float = 0.25,  # noqa: E741  (the paper's name)
        p: float = 2,
        k_max: int | None = None,
        mask_on: str = 'logits',
        renormalize: bool = True,
        output_mode: str = 'gates',
        iterations: int = 12,
        use_bias: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_experts, self.use_bias = int(num_experts), bool(use_bias)
        routing = (mask_on, renormalize, output_mode, iterations)
        self.settings = soft_router_settings(num_experts, k, l, p, k_max, routing)

    def build(self, input_shape: Any) -> None:
        self.kernel = self.add_weight(shape=(int(input_shape[-1]), self.num_experts), name='kernel')
        self.bias = (
            self.add_weight(shape=(self.num_experts,), name='bias', initializer='zeros') if self.use_bias else None
        )

    def call(self, x: Any) -> Any:
        logits = ops.matmul(x, self.kernel)
        if self.bias is not None:
            logits = logits + self.bias
        return soft_route(logits, self.settings)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[:-1], self.num_experts if self.settings['output'] == 'gates' else 1)

    def get_config(self) -> dict[str, Any]:
        settings = {name: value for name, value in self.settings.items() if name != 'output'}
        return {
            **super().get_config(),
            **settings,
            'num_experts': self.num_experts,
            'use_bias': self.use_bias,
            'output_mode': self.settings['output'],
        }
