"""The router subgraph of hand-written MoE blocks, as the frontends match it (docs/moe.md):

    softmax(logits) -> top-k -> optional division of the top-k values by their sum

becomes the Router layers (the weights, the indices) reading the logits. The PyTorch frontend rewrites
its fx graph (converters/pytorch/router_pattern.py); the Keras and ONNX walks, which convert one
operation at a time, follow a `RouterMatches` plan (converters/keras/router_pattern.py,
converters/onnx/router_pattern.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PATTERN = 'softmax -> top-k -> divide by the sum, each result read by the next step alone'
DESCRIPTION = (  # for docs/layers.md
    'softmax -> top-k -> optional division by the sum of the top-k values (hand-written MoE gating, as in '
    'HF Mixtral), in PyTorch, Keras 3 functional models and ONNX: Router layers, see docs/moe.md'
)


@dataclass
class RouterMatches:
    """What a walk does differently for the matched subgraphs, by operation name."""

    passed: set[str] = field(default_factory=set)  # the softmax, sum and division: output = first input
    routers: dict[str, bool] = field(default_factory=dict)  # top-k -> renormalised: the Router layers
    explained: dict[str, str] = field(default_factory=dict)  # the sum (and division) of an unmatched one -> why


def renormalisation_refused(operations: str, topk: str, reasons: list[str], advice: str) -> str:
    """Why a division of top-k values by their sum (`operations`, named) cannot convert."""
    return (
        f"{operations}: divide the top-k values of '{topk}' by their sum, which converts only as part of a "
        f'router pattern ({PATTERN}), but {"; ".join(reasons)}; {advice}, or do not reuse the probabilities '
        'or the top-k values elsewhere'
    )
