"""Keras 3 layers of the top-k family that the Keras frontend converts (docs/moe.md, docs/topk.md).

* `TopKRouter`: token-choice MoE gating, x @ kernel (+ bias) -> softmax -> top-k -> optional
  renormalisation; `output_mode` 'gates' (dense combine weights, 0 for experts not chosen),
  'weights' (the k gates, best first) or 'indices' (the k experts, int32); `capacity` caps the
  tokens per expert of a sample (capacity-limited token choice).
* `ExpertChoiceRouter`: expert-choice gating of a group of tokens' router logits.
* `SparseSoftTopK`: sparse soft top-k (Sander et al. 2023), `mode` 'mask' (p = 2 or 4/3) or 'magnitude'
  (p = 2), any l > 0.

Both run on any Keras backend (keras.ops only). Ties go to the lower index (`keras.ops.top_k`'s rule
and the IR's). The soft top-k finds its threshold by evaluating the piecewise-linear budget at all of
its breakpoints and interpolating on the segment that crosses k: exact, O(n^2) per vector. With
p = 4/3 the budget is cubic between breakpoints: bisection to float precision, then one Newton step
that carries the implicit gradient.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import ops

from hls4ml.model.kinds import ROUTER_OUTPUTS, SOFT_TOPK_MODES
from hls4ml.model.reference.soft_topk import SOFT_TOPK_P_CHOICES, soft_topk_power

FAR = 1e30  # beyond every breakpoint


def _check(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f'{what} {value!r} is not one of {allowed}')
    return value


def route(logits: Any, k: int, renormalize: bool, output_mode: str, capacity: int = 0, sinkhorn: int = 0) -> Any:
    """Gating of a batch of expert logits: softmax, top-k (lower index first), optional renormalisation;
    `capacity` > 0: each expert takes at most that many of a sample's tokens (`capacity_kept`);
    `sinkhorn` > 0 iterations: the top-k of the sample's Sinkhorn-balanced scores, gates still the softmax's."""
    probabilities = ops.softmax(logits, axis=-1)
    keys = probabilities
    if sinkhorn > 0:
        grouped = logits if len(logits.shape) > 2 else ops.expand_dims(logits, -2)
        keys = ops.reshape(sinkhorn_balance(grouped, sinkhorn), ops.shape(logits))
    _, indices = ops.top_k(keys, k)
    values = ops.take_along_axis(probabilities, indices, axis=-1)
    if renormalize:
        values = values / ops.sum(values, axis=-1, keepdims=True)
    if capacity > 0:
        grouped = indices if len(indices.shape) > 2 else ops.expand_dims(indices, -2)
        kept = ops.reshape(capacity_kept(grouped, logits.shape[-1], capacity), ops.shape(values))
        values = ops.where(kept, values, ops.zeros_like(values))
    if output_mode == 'weights':
        return values
    if output_mode == 'indices':
        return ops.cast(indices, 'int32')
    hot = ops.one_hot(indices, ops.shape(logits)[-1], dtype=values.dtype)  # (batch, k, experts)
    return ops.sum(hot * ops.expand_dims(values, -1), axis=-2)


def sinkhorn_balance(logits: Any, iterations: int) -> Any:
    """exp(logits - row max) of (batch, tokens, experts) groups, then rows to 1 and columns to
    tokens / experts, `iterations` times (seed-layers.md B.5.7)."""
    plan = ops.exp(logits - ops.max(logits, axis=-1, keepdims=True))
    tokens, experts = logits.shape[-2], logits.shape[-1]
    for _ in range(iterations):
        plan = plan / ops.sum(plan, axis=-1, keepdims=True)
        plan = plan / ops.sum(plan, axis=-2, keepdims=True) * (tokens / experts)
    return plan


def capacity_kept(indices: Any, n_experts: int, capacity: int) -> Any:
    """Which of the (batch, tokens, k) chosen experts accept their token: every first choice before any
    second (earlier tokens first); a choice is kept when fewer than `capacity` before it chose its expert."""
    tokens, k = indices.shape[-2], indices.shape[-1]
    priority = ops.reshape(ops.swapaxes(indices, -1, -2), (-1, k * tokens))  # (batch, k * tokens)
    hot = ops.one_hot(priority, n_experts, dtype='int32')
    before = ops.sum((ops.cumsum(hot, axis=-2) - hot) * hot, axis=-1)
    return ops.swapaxes(ops.reshape(before < capacity, (-1, k, tokens)), -1, -2)


def expert_choice(logits: Any, capacity: int, strength: float = 0.0, p: float = 2.0) -> Any:
    """Expert-choice gating of groups of tokens (batch, tokens, experts): each token's softmax, kept
    where the token is among its expert's `capacity` best (ties to the lower token index); `strength`
    (l) > 0: times the sparse soft top-k mask (k = capacity, p = 2 or 4/3) of each expert's column instead."""
    probabilities = ops.softmax(logits, axis=-1)
    if strength > 0:
        masking = soft_topk_cubic_mask if soft_topk_power(p, 'mask') == 3 else soft_topk_mask
        mask = masking(ops.swapaxes(probabilities, -1, -2), capacity, strength)
        return probabilities * ops.swapaxes(mask, -1, -2)
    by_expert = ops.swapaxes(probabilities, -1, -2)  # (batch, experts, tokens)
    _, best = ops.top_k(by_expert, capacity)
    kept = ops.sum(ops.one_hot(best, ops.shape(logits)[-2], dtype=logits.dtype), axis=-2)  # (batch, experts, tokens)
    return probabilities * ops.swapaxes(kept, -1, -2)


def _interpolate(low: Any, high: Any, at_low: Any, at_high: Any, k: int) -> Any:
    """The point between two breakpoints where a linear function going from at_low to at_high is k."""
    span = at_high - at_low
    fraction = ops.where(ops.abs(span) > 0, (k - at_low) / ops.where(ops.abs(span) > 0, span, 1.0), 0.0)
    return low + fraction * (high - low)


def soft_topk_mask(x: Any, k: int, strength: float) -> Any:
    """y = clip((x - t) / l, 0, 1) with sum y = k; the budget falls in t, breakpoints x_i and x_i - l."""
    points = ops.concatenate([x, x - strength], axis=-1)
    spread = ops.expand_dims(x, -2) - ops.expand_dims(points, -1)  # (..., breakpoints, n)
    at_points = ops.sum(ops.clip(spread / strength, 0.0, 1.0), axis=-1)

    def budget(t: Any) -> Any:
        return ops.sum(ops.clip((x - t) / strength, 0.0, 1.0), axis=-1, keepdims=True)

    low = ops.max(ops.where(at_points >= k, points, -FAR), axis=-1, keepdims=True)
    high = ops.min(ops.where(at_points <= k, points, FAR), axis=-1, keepdims=True)
    t = _interpolate(low, high, budget(low), budget(high), k)
    return ops.clip((x - t) / strength, 0.0, 1.0)


def soft_topk_cubic_mask(x: Any, k: int, strength: float, steps: int = 60) -> Any:
    """y = clip((x - t) / l, 0, 1)^3 with sum y = k (p = 4/3): t by bisection on [x_(k) - l, x_(k+1)],
    then a Newton step on the budget (0 at the solution; its gradient is dt/dx)."""
    if k == x.shape[-1]:
        return ops.ones_like(x)
    ordered = ops.top_k(x, k + 1)[0]
    low, high = ordered[..., k - 1 : k] - strength, ordered[..., k : k + 1]

    def budget(t: Any) -> Any:
        return ops.sum(ops.clip((x - t) / strength, 0.0, 1.0) ** 3, axis=-1, keepdims=True)

    for _ in range(steps):
        middle = (low + high) / 2
        enough = budget(ops.stop_gradient(middle)) >= k
        low, high = ops.where(enough, middle, low), ops.where(enough, high, middle)
    t = ops.stop_gradient((low + high) / 2)
    u = ops.stop_gradient(ops.clip((x - t) / strength, 0.0, 1.0))
    inside = ops.cast((u > 0) & (u < 1), x.dtype)
    slope = ops.sum(3 / strength * u**2 * inside, axis=-1, keepdims=True)
    step = (budget(t) - k) / ops.maximum(slope, 1e-30)
    t = t + ops.where(slope > 0, step, 0.0)
    return ops.clip((x - t) / strength, 0.0, 1.0) ** 3


def soft_topk_magnitude(x: Any, k: int, strength: float) -> Any:
    """sign(x) min(|x|, (1 + l) / l relu(|x| - theta)); in rho = 1 / theta the budget
    sum_i clip((rho |x_i| - 1) / l, 0, 1) rises, with breakpoints 1 / |x_i| and (1 + l) / |x_i|."""
    magnitude = ops.abs(x)
    nonzero = magnitude > 0
    inverse = ops.where(nonzero, 1.0 / ops.where(nonzero, magnitude, 1.0), FAR)
    points = ops.concatenate([inverse, (1 + strength) * inverse], axis=-1)

    def budget(rho: Any) -> Any:
        return ops.sum(ops.clip((rho * magnitude - 1) / strength, 0.0, 1.0), axis=-1, keepdims=True)

    at_points = ops.sum(
        ops.clip((ops.expand_dims(points, -1) * ops.expand_dims(magnitude, -2) - 1) / strength, 0.0, 1.0), axis=-1
    )
    low = ops.max(ops.where(at_points <= k, points, 0.0), axis=-1, keepdims=True)
    high = ops.min(ops.where(at_points >= k, points, FAR), axis=-1, keepdims=True)
    rho = _interpolate(low, high, budget(low), budget(high), k)
    theta = 1.0 / ops.maximum(rho, 1.0 / FAR)
    soft = ops.sign(x) * ops.minimum(magnitude, (1 + strength) / strength * ops.relu(magnitude - theta))
    few = ops.sum(ops.cast(nonzero, x.dtype), axis=-1, keepdims=True) <= k
    return ops.where(few, x, soft)


@keras.saving.register_keras_serializable(package='hls4ml')
class TopKRouter(keras.layers.Layer):
    """Token-choice MoE router over the last axis: a gate matrix (no bias by default, as V-MoE and
    Mixtral), then `route`. Input (batch, features) or (batch, tokens, features), each token routed
    on its own; output (..., num_experts) or (..., k)."""

    def __init__(
        self,
        num_experts: int,
        k: int = 2,
        renormalize: bool = True,
        output_mode: str = 'gates',
        use_bias: bool = False,
        capacity: int | None = None,
        sinkhorn_iterations: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not 1 <= int(k) <= int(num_experts):
            raise ValueError(f'TopKRouter: k={k} must be between 1 and num_experts={num_experts}')
        self.num_experts, self.k = int(num_experts), int(k)
        self.renormalize, self.use_bias = bool(renormalize), bool(use_bias)
        self.output_mode = _check(output_mode, ROUTER_OUTPUTS, 'TopKRouter output_mode')
        if capacity is not None and (int(capacity) < 1 or self.output_mode == 'indices'):
            raise ValueError(f"TopKRouter: capacity={capacity} must be positive and output_mode 'gates' or 'weights'")
        self.capacity = 0 if capacity is None else int(capacity)
        self.sinkhorn_iterations = int(sinkhorn_iterations)

    def build(self, input_shape: Any) -> None:
        self.kernel = self.add_weight(shape=(int(input_shape[-1]), self.num_experts), name='kernel')
        self.bias = (
            self.add_weight(shape=(self.num_experts,), name='bias', initializer='zeros') if self.use_bias else None
        )

    def call(self, x: Any) -> Any:
        logits = ops.matmul(x, self.kernel)
        if self.bias is not None:
            logits = logits + self.bias
        return route(logits, self.k, self.renormalize, self.output_mode, self.capacity, self.sinkhorn_iterations)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[:-1], self.num_experts if self.output_mode == 'gates' else self.k)

    def get_config(self) -> dict[str, Any]:
        settings = {'num_experts': self.num_experts, 'k': self.k, 'renormalize': self.renormalize}
        settings |= {'output_mode': self.output_mode, 'use_bias': self.use_bias, 'capacity': self.capacity or None}
        settings['sinkhorn_iterations'] = self.sinkhorn_iterations
        return {**super().get_config(), **settings}


@keras.saving.register_keras_serializable(package='hls4ml')
class ExpertChoiceRouter(keras.layers.Layer):
    """Expert-choice router (Zhou et al. 2022) over a group of tokens: input the router logits
    (batch, tokens, experts), output the gates of that shape; each expert takes `capacity` tokens. With
    l, soft expert choice: the soft top-k mask with p = 2 (a linear ramp) or 4/3 (a cubic ramp)."""

    def __init__(
        self,
        capacity: int,
        l: float | None = None,  # noqa: E741  (the paper's name)
        iterations: int = 12,
        p: float = 2,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if int(capacity) < 1 or (l is not None and float(l) <= 0):
            raise ValueError(f'ExpertChoiceRouter: capacity={capacity} must be at least 1 and l={l} positive')
        if soft_topk_power(p, 'mask') is None:
            raise ValueError(f'ExpertChoiceRouter: p={p}: {SOFT_TOPK_P_CHOICES}')
        self.capacity, self.l, self.iterations, self.p = int(capacity), float(l or 0.0), int(iterations), float(p)

    def call(self, logits: Any) -> Any:
        return expert_choice(logits, self.capacity, self.l, self.p)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        soft = {'l': self.l or None, 'iterations': self.iterations, 'p': self.p}
        return {**super().get_config(), 'capacity': self.capacity, **soft}


@keras.saving.register_keras_serializable(package='hls4ml')
class SparseSoftTopK(keras.layers.Layer):
    """Sparse soft top-k along the last axis: any l > 0; p = 2 (a linear ramp) or, for the mask, the
    reference's p = 4/3 (a cubic ramp). `iterations` sets the firmware's search steps (docs/topk.md)."""

    def __init__(self, k: int, l: float = 0.25, mode: str = 'mask', p: float = 2, iterations: int = 12, **kwargs: Any):  # noqa: E741
        super().__init__(**kwargs)
        if not (int(k) >= 1 and float(l) > 0):
            raise ValueError(f'SparseSoftTopK: k={k} must be at least 1 and l={l} positive')
        self.k, self.l, self.iterations = int(k), float(l), int(iterations)
        self.mode = _check(mode, SOFT_TOPK_MODES, 'SparseSoftTopK mode')
        if soft_topk_power(p, self.mode) is None:
            raise ValueError(f'SparseSoftTopK: p={p} with mode {mode!r}: {SOFT_TOPK_P_CHOICES}')
        self.p = float(p)

    def call(self, x: Any) -> Any:
        if soft_topk_power(self.p, self.mode) == 3:
            return soft_topk_cubic_mask(x, self.k, self.l)
        if self.mode == 'mask':
            return soft_topk_mask(x, self.k, self.l)
        return soft_topk_magnitude(x, self.k, self.l)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict[str, Any]:
        settings = {'k': self.k, 'l': self.l, 'mode': self.mode, 'p': self.p, 'iterations': self.iterations}
        return {**super().get_config(), **settings}
