"""The mixture-of-experts modules of `hls4ml.nn.torch_experts`: SparseMoE, one IR MoE layer after the
gate Linear, computing only the routed experts in firmware (docs/moe.md, "Conditional experts"); SoftMoE,
composed from Dense, Softmax, Einsum and EinsumDense layers (`converters/soft_moe.py`)."""

from __future__ import annotations

from typing import Any

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, constant, module_forwards, tensor
from hls4ml.converters.soft_moe import soft_moe
from hls4ml.nn.torch_experts import soft_moe as soft_moe_forward
from hls4ml.nn.torch_experts import sparse_moe, sparse_moe_ffn


@module_forwards(sparse_moe)
def moe(step: Step, x: Any, logits: Any, weight: Any, bias: Any, k: int, renormalize: bool) -> Value:
    """`SparseMoE` with linear experts, after its gate Linear: the features, the logits, the experts."""
    return _moe(step, x, logits, [(weight, bias)], k, renormalize)


@module_forwards(sparse_moe_ffn)
def moe_ffn(
    step: Step, x: Any, logits: Any, weight: Any, bias: Any, weight2: Any, bias2: Any, k: int, renormalize: bool
) -> Value:
    """`SparseMoE` with FFN experts (Linear -> ReLU -> Linear)."""
    return _moe(step, x, logits, [(weight, bias), (weight2, bias2)], k, renormalize)


def _moe(step: Step, x: Any, logits: Any, layers: list[tuple[Any, Any]], k: int, renormalize: bool) -> Value:
    features, scores = tensor(step, x), tensor(step, logits, 'the router logits')
    experts = [(constant(step, w, 'the expert weights'), constant(step, b, 'the expert biases')) for w, b in layers]
    return step.builder.moe(step.origin, features, scores, experts, int(k), bool(renormalize))


@module_forwards(soft_moe_forward)
def soft_mixture(step: Step, x: Any, slots: Any, weight: Any, bias: Any) -> Value:
    """`SoftMoE` on one group of tokens per sample."""
    features = tensor(step, x)
    parameters = [
        constant(step, value, what)
        for value, what in ((slots, 'the slots'), (weight, 'the expert weights'), (bias, 'the expert biases'))
    ]
    return soft_moe(step.builder, step.origin, features, *parameters)
