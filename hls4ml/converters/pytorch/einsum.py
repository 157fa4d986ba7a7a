"""Products of two tensors computed from the inputs: `a @ b`, `torch.matmul`, `torch.bmm` and
`torch.einsum` with two tensor operands -> one IR Einsum (hls4ml/model/einsum.py). Each sample is
computed on its own: the batch axis must be a batch axis of the product (matmul of operands of the
same rank, at least 3 with the batch axis; an einsum whose operands and output start with it)."""

from __future__ import annotations

from typing import Any

import torch

from hls4ml.converters.builder import Value
from hls4ml.converters.pytorch.registry import Step, functions, tensor
from hls4ml.model.einsum import EinsumError, drop_batch, explicit, matmul_equation


def tensor_product(step: Step, a: Value, b: Value) -> Value:
    """torch.matmul of two tensors: (..., m, k) @ (..., k, n) -> (..., m, n), the leading axes
    (batch included) equal in both."""
    try:
        equation = matmul_equation(a.shape, b.shape)
    except EinsumError as error:
        raise step.refuse(str(error)) from None
    return step.builder.einsum(step.origin, equation, a, b)


@functions(torch.bmm, methods=('bmm',))
def bmm(step: Step, a: Any, b: Any) -> Value:
    first, second = tensor(step, a, 'the first operand'), tensor(step, b, 'the second operand')
    if first.rank != 2:
        raise step.refuse(f'bmm takes (batch, n, m) tensors, got {first.shape} without the batch axis')
    return tensor_product(step, first, second)


@functions(torch.einsum)
def einsum(step: Step, equation: str, *operands: Any) -> Value:
    """torch.einsum(equation, a, b) or torch.einsum(equation, [a, b]) with two computed tensors."""
    values = list(operands[0]) if len(operands) == 1 and isinstance(operands[0], list | tuple) else list(operands)
    if len(values) != 2:
        raise step.refuse(f'einsum of {len(values)} operands is not supported (two tensors)')
    first, second = (tensor(step, value, f'einsum operand {index}') for index, value in enumerate(values, 1))
    try:
        without_batch = drop_batch(explicit(equation, (first.rank + 1, second.rank + 1)))
    except EinsumError as error:
        raise step.refuse(str(error)) from None
    return step.builder.einsum(step.origin, without_batch, first, second)
