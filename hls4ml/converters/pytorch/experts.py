"""The mixture-of-experts modules of `hls4ml.nn.torch_experts`: SparseMoE, one IR MoE layer after the
gate Linear, computing only the routed experts in firmware (docs/moe.md, "Conditional experts"); SoftMoE,
composed from Dense, Softmax, Einsum and EinsumDense layers (`converters/soft_moe.py`)."""

from __future__ import annotations

from typing import Any

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, constant, module_forwards, tensor
from hls4ml.converters.soft_moe import soft_moe
from hls4ml.nn.torch_experts import soft_moe as soft_moe_forward
from hls4ml.nn.torch_experts import sparse_moe


@module_forwards(sparse_moe)
def moe(step: Step, x: Any, logits: Any, weight: Any, bias: Any, k: int, renormalize: bool) -> Value:
    """`SparseMoE` after its gate Linear: the features, the router logits and the experts' parameters."""
    features, scores = tensor(step, x), tensor(step, logits, 'the router logits')
    kernels, biases = constant(step, weight, 'the expert weights'), constant(step, bias, 'the expert biases')
    return step.builder.moe(step.origin, features, scores, kernels, biases, int(k), bool(renormalize))


@module_forwards(soft_moe_forward)
def soft_mixture(step: Step, x: Any, slots: Any, weight: Any, bias: Any) -> Value:
    """`SoftMoE` on one group of tokens per sample."""
    features = tensor(step, x)
    parameters = [
        constant(step, value, what)
        for value, what in ((slots, 'the slots'), (weight, 'the expert weights'), (bias, 'the expert biases'))
    ]
    return soft_moe(step.builder, step.origin, features, *parameters)
