"""Handlers of the Keras 3 einsums: the products of two tensors computed in the model,
`keras.ops.matmul` and `keras.ops.einsum` in a functional model (operations `Matmul`, `Einsum`) -> one
IR Einsum (hls4ml/model/einsum.py), `keras.ops.transpose` (operation `Transpose`, batch axis kept
first), which the operand of `Q @ K^T` needs, and the EinsumDense layer (-> IR EinsumDense: the
einsum with its constant kernel, plus the bias). Keras tensors are already in IR order."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.keras.handlers import (
    ACTIVATION_KINDS,
    Source,
    UnsupportedLayer,
    array_of,
    fused_activation,
    handles,
)
from hls4ml.model import einsum as equations
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind


@handles('Matmul', 'Einsum', produces=(Kind.EINSUM,))
def einsum(source: Source) -> list[Layer]:
    shapes = source.input_shapes
    if len(shapes) != 2:
        raise UnsupportedLayer(f'{source.origin}: a product of {len(shapes)} tensors is not supported (two)')
    try:
        if type(source.layer).__name__ == 'Matmul':
            equation = equations.matmul_equation(shapes[0], shapes[1])
        else:
            ranks = (len(shapes[0]) + 1, len(shapes[1]) + 1)
            equation = equations.drop_batch(equations.explicit(source.layer.subscripts, ranks))
        equations.plan(equation, shapes[0], shapes[1])
    except equations.EinsumError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from None
    return [source.make(Kind.EINSUM, equation=equation)]


@handles('Transpose', produces=(Kind.TRANSPOSE,))
def transpose(source: Source) -> list[Layer]:
    rank = len(source.input_shapes[0]) + 1
    axes = source.layer.axes
    axes = tuple(range(rank))[::-1] if axes is None else tuple(int(axis) % rank for axis in axes)
    if sorted(axes) != list(range(rank)) or axes[0] != 0:
        raise UnsupportedLayer(
            f'{source.origin}: axes {source.layer.axes} must keep the batch axis first (each sample on its own)'
        )
    return [source.make(Kind.TRANSPOSE, perm=tuple(axis - 1 for axis in axes[1:]))]


@handles('EinsumDense', produces=(Kind.EINSUM_DENSE, *ACTIVATION_KINDS))
def einsum_dense(source: Source) -> list[Layer]:
    """x (batch first) einsum kernel + bias (its bias_axes broadcast over the output), then the
    activation. The batch axis must lead the input and the output and be absent from the kernel."""
    layer = source.layer
    bias = None if layer.bias is None else array_of(layer.bias)
    made, output_shape = einsum_dense_layer(source, source.inputs, array_of(layer.kernel), bias)
    return [made, *fused_activation(source, source.config['activation'], output_shape)]


def einsum_dense_layer(
    source: Source, inputs: list[str], kernel: np.ndarray, bias: np.ndarray | None
) -> tuple[Layer, tuple[int, ...]]:
    """The IR EinsumDense of `kernel` on the layer's input, its bias (None: zeros) broadcast to the output,
    and the output's shape (Keras' EinsumDense, and HGQ2's QEinsumDense with its quantized kernel)."""
    try:
        equation = equations.drop_batch_of_input(
            equations.explicit(source.config['equation'], (len(source.input_shapes[0]) + 1, kernel.ndim))
        )
        output_shape = equations.plan(equation, source.input_shapes[0], kernel.shape).output_shape
    except equations.EinsumError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from None
    full_bias = np.zeros(output_shape) if bias is None else np.broadcast_to(bias, (1, *output_shape))[0]
    weights = {'weight': kernel, 'bias': np.ascontiguousarray(full_bias).reshape(-1)}
    attributes = {'equation': equation, 'kernel_shape': kernel.shape, 'n_out': full_bias.size}
    return source.make(Kind.EINSUM_DENSE, inputs=inputs, weights=weights, **attributes), tuple(output_shape)
