"""Keras 3 mixture-of-experts layers that compute only the routed experts in firmware (docs/moe.md,
"Conditional experts").

* `SparseMoE`: token choice over `num_experts` Dense experts (with bias), or two-layer FFN experts
  (Dense -> ReLU -> Dense, `hidden_units`): a gate matrix gives the
  router logits, the softmax gates of the k best experts (ties to the lower index, renormalised over
  them or not; `keras_moe.route`) weight those experts' outputs, y = sum of gate_e * (x W_e + b_e).
  hls4ml converts it into a gate Dense `<name>_gate` and one MoE layer `<name>`, whose firmware
  computes k experts per token, not all of them.

* `SoftMoE`: Soft MoE over a group of tokens, converted into Dense, Softmax, Einsum and EinsumDense
  layers (docs/moe.md, "Soft MoE").

Runs on any Keras backend (keras.ops only); SparseMoE's float call evaluates every expert.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from hls4ml.nn.keras_moe import route


@keras.saving.register_keras_serializable(package='hls4ml')
class SparseMoE(keras.layers.Layer):
    """Token-choice mixture of `num_experts` Dense(units) experts, k per token. Input (batch, features)
    or (batch, tokens, features), each token routed on its own; output (..., units)."""

    def __init__(
        self,
        units: int,
        num_experts: int,
        k: int = 2,
        renormalize: bool = True,
        gate_bias: bool = False,
        hidden_units: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not 1 <= int(k) <= int(num_experts):
            raise ValueError(f'SparseMoE: k={k} must be between 1 and num_experts={num_experts}')
        self.units, self.num_experts, self.k = int(units), int(num_experts), int(k)
        self.renormalize, self.gate_bias = bool(renormalize), bool(gate_bias)
        self.hidden_units = int(hidden_units) if hidden_units else None

    def build(self, input_shape: Any) -> None:
        features = int(input_shape[-1])
        self.gate_kernel = self.add_weight(shape=(features, self.num_experts), name='gate_kernel')
        self.gate_bias_weight = (
            self.add_weight(shape=(self.num_experts,), name='gate_bias', initializer='zeros')
            if self.gate_bias
            else None
        )
        first = self.hidden_units or self.units
        self.kernel = self.add_weight(shape=(self.num_experts, features, first), name='kernel')
        self.bias = self.add_weight(shape=(self.num_experts, first), name='bias', initializer='zeros')
        self.kernel2, self.bias2 = None, None
        if self.hidden_units:
            self.kernel2 = self.add_weight(shape=(self.num_experts, first, self.units), name='kernel2')
            self.bias2 = self.add_weight(shape=(self.num_experts, self.units), name='bias2', initializer='zeros')

    def call(self, x: Any) -> Any:
        logits = ops.matmul(x, self.gate_kernel)
        if self.gate_bias_weight is not None:
            logits = logits + self.gate_bias_weight
        gates = route(logits, self.k, self.renormalize, 'gates')  # (..., experts), 0 where not routed
        outputs = ops.einsum('...i,eio->...eo', x, self.kernel) + self.bias
        if self.kernel2 is not None:
            outputs = ops.einsum('...eh,eho->...eo', ops.relu(outputs), self.kernel2) + self.bias2
        return ops.sum(ops.expand_dims(gates, -1) * outputs, axis=-2)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        settings = {'units': self.units, 'num_experts': self.num_experts, 'k': self.k}
        flags = {'renormalize': self.renormalize, 'gate_bias': self.gate_bias, 'hidden_units': self.hidden_units}
        return {**super().get_config(), **settings, **flags}


@keras.saving.register_keras_serializable(package='hls4ml')
class SoftMoE(keras.layers.Layer):
    """Soft MoE (Puigcerver et al. 2023) over a group of tokens (batch, tokens, features), without the
    token normalisation and scale: logits x slots (slots (features, E S), expert-major), dispatch =
    softmax over the tokens, combine = softmax over the slots, slot inputs dispatch^T x, expert e (a
    Dense to `units`) on its S slots, y = combine (slot outputs). No top-k: every slot sees every token."""

    def __init__(self, units: int, num_experts: int, slots_per_expert: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if int(num_experts) < 1 or int(slots_per_expert) < 1:
            raise ValueError(f'SoftMoE: num_experts={num_experts} and slots_per_expert={slots_per_expert} must be >= 1')
        self.units, self.num_experts, self.slots_per_expert = int(units), int(num_experts), int(slots_per_expert)

    def build(self, input_shape: Any) -> None:
        features, slots = int(input_shape[-1]), self.num_experts * self.slots_per_expert
        self.slots = self.add_weight(shape=(features, slots), name='slots')
        self.kernel = self.add_weight(shape=(self.num_experts, features, self.units), name='kernel')
        self.bias = self.add_weight(shape=(self.num_experts, self.units), name='bias', initializer='zeros')

    def call(self, x: Any) -> Any:
        logits = ops.matmul(x, self.slots)
        dispatch, combine = ops.softmax(logits, axis=-2), ops.softmax(logits, axis=-1)
        slot_inputs = ops.einsum('...tm,...td->...md', dispatch, x)
        grouped = ops.reshape(slot_inputs, (-1, self.num_experts, self.slots_per_expert, slot_inputs.shape[-1]))
        outputs = ops.einsum('...esd,edo->...eso', grouped, self.kernel) + ops.expand_dims(self.bias, 1)
        flat = ops.reshape(outputs, (-1, self.num_experts * self.slots_per_expert, self.units))
        return ops.einsum('...tm,...mo->...to', combine, flat)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        settings = {'units': self.units, 'num_experts': self.num_experts, 'slots_per_expert': self.slots_per_expert}
        return {**super().get_config(), **settings}
