"""ONNX products of two tensors computed by the model: `MatMul` with two non-constant inputs (a
batched matrix product, the leading axes equal) and `Einsum` with two inputs -> one IR Einsum
(hls4ml/model/einsum.py). Each sample is computed on its own, so the batch axis must be a batch axis
of the product. A MatMul by a constant stays a Dense (handlers.py)."""

from __future__ import annotations

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx.step import Handler, Operand, Step, registrar
from hls4ml.model.einsum import EinsumError, drop_batch, explicit, matmul_equation

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)


def tensor_matmul(step: Step) -> Operand:
    """MatMul of two computed tensors: (..., m, k) @ (..., k, n) -> (..., m, n)."""
    first, second = step.tensor(0), step.tensor(1)
    try:
        equation = matmul_equation(first.shape, second.shape)
    except EinsumError as error:
        raise step.unsupported(str(error)) from None
    return step.builder.einsum(step.origin, equation, first, second)


@handles('Einsum')
def einsum(step: Step) -> Operand:
    if len(step.node.input) != 2:
        raise step.unsupported(f'an einsum of {len(step.node.input)} inputs is not supported (two tensors)')
    first, second = step.tensor(0), step.tensor(1)
    try:
        equation = drop_batch(explicit(str(step.attribute('equation')), (first.rank + 1, second.rank + 1)))
    except EinsumError as error:
        raise step.unsupported(str(error)) from None
    return step.builder.einsum(step.origin, equation, first, second)


def reads_two_tensors(step: Step) -> bool:
    """A MatMul whose second input is computed by the model (not a weight)."""
    return len(step.inputs) > 1 and isinstance(step.inputs[1], Value)
