"""Element-wise arithmetic and matrix products: tensor with tensor -> Merge, tensor with constant ->
an affine layer (`x * scale + bias`), tensor @ constant matrix -> Dense. Arithmetic on plain numbers
(sizes from `x.size(1)`) is done in Python."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.einsum import tensor_product
from hls4ml.converters.pytorch.registry import (
    BATCH,
    Step,
    array,
    broadcast_constant,
    constant,
    functions,
    modules,
    tensor,
)


def _numbers(step: Step, combine: Any, a: Any, b: Any) -> Any:
    """Both operands are Python values (sizes, scalars): compute the result now."""
    if a is BATCH or b is BATCH:
        raise step.refuse('arithmetic on the batch size is not supported')
    return combine(a, b)


@functions(operator.add, operator.iadd, torch.add, methods=('add', 'add_'))
def add(step: Step, a: Any, b: Any, alpha: float = 1) -> Any:
    """a + alpha * b."""
    builder, scaled = step.builder, float(alpha) != 1
    if isinstance(a, Value) and isinstance(b, Value):
        if scaled:
            raise step.refuse(f'add with alpha={alpha} of two tensors is not supported')
        return builder.merge(step.origin, a, b, 'add')
    if isinstance(a, Value):
        return builder.affine(step.origin, a, bias=float(alpha) * broadcast_constant(step, a, b))
    if isinstance(b, Value):
        scale = float(alpha) if scaled else None
        return builder.affine(step.origin, b, scale=scale, bias=broadcast_constant(step, b, a))
    return _numbers(step, lambda x, y: x + alpha * y, a, b)


@functions(operator.sub, operator.isub, torch.sub, torch.subtract, methods=('sub', 'sub_', 'subtract'))
def sub(step: Step, a: Any, b: Any, alpha: float = 1) -> Any:
    """a - alpha * b."""
    builder = step.builder
    if isinstance(a, Value) and isinstance(b, Value):
        if float(alpha) != 1:
            raise step.refuse(f'sub with alpha={alpha} of two tensors is not supported')
        return builder.merge(step.origin, a, b, 'subtract')
    if isinstance(a, Value):
        return builder.affine(step.origin, a, bias=-float(alpha) * broadcast_constant(step, a, b))
    if isinstance(b, Value):
        return builder.affine(step.origin, b, scale=-float(alpha), bias=broadcast_constant(step, b, a))
    return _numbers(step, lambda x, y: x - alpha * y, a, b)


@functions(operator.mul, operator.imul, torch.mul, torch.multiply, methods=('mul', 'mul_', 'multiply'))
def mul(step: Step, a: Any, b: Any) -> Any:
    if isinstance(a, Value) and isinstance(b, Value):
        return step.builder.merge(step.origin, a, b, 'multiply')
    if isinstance(a, Value):
        return step.builder.affine(step.origin, a, scale=broadcast_constant(step, a, b))
    if isinstance(b, Value):
        return step.builder.affine(step.origin, b, scale=broadcast_constant(step, b, a))
    return _numbers(step, operator.mul, a, b)


@functions(
    operator.truediv, operator.itruediv, torch.div, torch.divide, torch.true_divide, methods=('div', 'div_', 'divide')
)
def div(step: Step, a: Any, b: Any, rounding_mode: str | None = None) -> Any:
    if rounding_mode is not None:
        raise step.refuse(f'division with rounding_mode={rounding_mode!r} is not supported')
    if isinstance(b, Value):
        raise step.refuse('division by a tensor computed from the inputs is not supported (only by constants)')
    if not isinstance(a, Value):
        return _numbers(step, operator.truediv, a, b)
    divisor = broadcast_constant(step, a, b)
    if np.any(divisor == 0):
        raise step.refuse('division by zero')
    return step.builder.affine(step.origin, a, scale=1 / divisor)


@functions(torch.maximum, methods=('maximum',))
def maximum(step: Step, a: Any, b: Any) -> Value:
    return step.builder.merge(step.origin, tensor(step, a), tensor(step, b, 'the second tensor'), 'maximum')


@functions(torch.minimum, methods=('minimum',))
def minimum(step: Step, a: Any, b: Any) -> Value:
    return step.builder.merge(step.origin, tensor(step, a), tensor(step, b, 'the second tensor'), 'minimum')


@functions(operator.matmul, torch.matmul, torch.mm, methods=('matmul', 'mm'))
def matmul(step: Step, a: Any, b: Any) -> Value:
    """A vector times a constant (in, out) matrix: a Dense without bias; two computed tensors: an Einsum."""
    x = tensor(step, a, 'the left operand')
    if isinstance(b, Value):
        return tensor_product(step, x, b)
    weight = constant(step, b, 'the right operand')
    if weight.ndim != 2:
        raise step.refuse(f'a product with a constant of shape {weight.shape} is not supported (only matrices)')
    return step.builder.dense(step.origin, x, weight, None)


@functions(F.linear)
def linear(step: Step, x: Any, weight: Any, bias: Any = None) -> Value:
    """x @ weight.T + bias with a constant (out, in) weight."""
    weight = constant(step, weight, 'the weight')
    if weight.ndim != 2:
        raise step.refuse(f'a weight of shape {weight.shape} is not supported (only matrices)')
    bias = None if bias is None else constant(step, bias, 'the bias')
    return step.builder.dense(step.origin, tensor(step, x), weight.T, bias)


@modules('Linear')
def linear_module(step: Step, module: Any, x: Any) -> Value:
    bias = None if module.bias is None else array(module.bias)
    return linear(step, x, array(module.weight), bias)
