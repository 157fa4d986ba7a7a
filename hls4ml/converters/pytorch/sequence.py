"""Sequence layers: layer normalization and embedding (docs/sequence.md)."""

from __future__ import annotations

from typing import Any

import torch.nn.functional as F

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, array, constant, functions, modules, tensor


@functions(F.layer_norm)
def layer_norm(
    step: Step, x: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Value:
    """Over the last len(normalized_shape) axes, their values one row."""
    axes = len(tuple(normalized_shape))
    scale = None if weight is None else constant(step, weight, 'the weight')
    shift = None if bias is None else constant(step, bias, 'the bias')
    return step.builder.layer_norm(step.origin, tensor(step, x), axes, scale, shift, float(eps))


@modules('LayerNorm')
def layer_norm_module(step: Step, module: Any, x: Any) -> Value:
    weight = None if module.weight is None else array(module.weight)
    bias = None if module.bias is None else array(module.bias)
    return layer_norm(step, x, module.normalized_shape, weight, bias, module.eps)


@functions(F.embedding)
def embedding(
    step: Step,
    x: Any,
    weight: Any,
    padding_idx: Any = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Value:
    """Integer indices -> rows of `weight`; padding_idx only changes training, max_norm is refused."""
    if max_norm is not None:
        raise step.refuse(f'embedding with max_norm={max_norm} is not supported (it renormalizes rows at lookup)')
    return step.builder.embedding(step.origin, tensor(step, x), constant(step, weight, 'the table'))


@modules('Embedding')
def embedding_module(step: Step, module: Any, x: Any) -> Value:
    return embedding(step, x, array(module.weight), module.padding_idx, module.max_norm)
