"""The routers of `hls4ml.nn.torch_routers` (docs/moe.md): `SoftTopKRouter` after its gate Linear is one
IR SoftTopKRouter layer, each token (row of the last axis) routed on its own."""

from __future__ import annotations

from typing import Any

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, module_forwards, tensor
from hls4ml.nn.torch_routers import soft_topk_router


@module_forwards(soft_topk_router)
def soft_router(
    step: Step,
    logits: Any,
    k: int,
    strength: float,
    k_max: int,
    mask_on: str,
    renormalize: bool,
    output: str,
    iterations: int = 12,
    p: float = 2.0,
) -> Value:
    """One IR SoftTopKRouter layer (p = 2 or 4/3; the builder refuses what the kernel does not compute)."""
    settings = {
        'k': int(k),
        'l': float(strength),
        'p': float(p),
        'iterations': int(iterations),
        'k_max': int(k_max),
        'mask_on': str(mask_on),
        'renormalize': bool(renormalize),
        'output': str(output),
    }
    return step.builder.soft_router(step.origin, tensor(step, logits, 'the router logits'), settings)
