"""Standard ONNX ops without a window: matrix products, activations, element-wise arithmetic.

Shapes and axes are ONNX's with the batch axis dropped (the builder's framework terms); constants
keep ONNX's shape and are brought to framework axes by `framework_constant`.
"""

from __future__ import annotations

import numpy as np

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx.einsum import reads_two_tensors, tensor_matmul
from hls4ml.converters.onnx.step import (
    Constant,
    Handler,
    Operand,
    Step,
    framework_constant,
    onnx_axis,
    preset_types,
    registrar,
)

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)

PLAIN_ACTIVATIONS = {
    'Relu': 'relu',
    'Sigmoid': 'sigmoid',
    'Tanh': 'tanh',
    'Softplus': 'softplus',
    'Softsign': 'softsign',
}
GELU_FORMS = {'none': 'gelu', 'tanh': 'gelu_tanh'}  # Gelu's `approximate` (opset 20) -> the table of that form
SELU_DEFAULTS = {'alpha': 1.67326319217681884765625, 'gamma': 1.05070102214813232421875}  # float32 in the spec
MERGES = {'Add': 'add', 'Sub': 'subtract', 'Mul': 'multiply', 'Max': 'maximum', 'Min': 'minimum'}


# ---- matrix products -----------------------------------------------------------------------------
def bias_vector(step: Step, constant: Constant, size: int) -> np.ndarray:
    """A bias broadcast over (batch, size): shape (size,), (1, size), (1,) or ()."""
    values = np.asarray(constant.values, dtype=np.float64)
    if values.ndim == 2 and values.shape[0] == 1:
        values = values[0]
    try:
        return np.broadcast_to(values, (size,)).copy()
    except ValueError:
        raise step.unsupported(f'a bias of shape {constant.values.shape} does not fit {size} outputs') from None


@handles('Gemm')
def gemm(step: Step) -> Operand:
    """`alpha * x @ B' + beta * C` with B (and C) constant; B' is B transposed when transB=1."""
    x, weight, bias = step.tensor(0), step.constant(1), step.optional_constant(2)
    if step.attribute('transA', 0):
        raise step.unsupported('transA=1 (the input transposed across the batch axis) is not supported')
    matrix = weight.values.T if step.attribute('transB', 0) else weight.values
    alpha, beta = float(step.attribute('alpha', 1.0)), float(step.attribute('beta', 1.0))
    vector = None if bias is None else beta * bias_vector(step, bias, matrix.shape[1])
    types = preset_types(weight=weight if alpha == 1 else None, bias=bias if beta == 1 else None)
    return step.builder.dense(step.origin, x, alpha * np.asarray(matrix, dtype=np.float64), vector, **types)


@handles('MatMul')
def matmul(step: Step) -> Operand:
    """`x @ W` with W constant; an Add of a constant that alone reads the product is its bias; with
    two computed tensors an Einsum (einsum.py)."""
    if reads_two_tensors(step):
        return tensor_matmul(step)
    x, weight, bias = step.tensor(0), *matmul_parts(step)
    vector = None if bias is None else bias_vector(step, bias, weight.values.shape[1])
    types = preset_types(weight=weight, bias=bias)
    return step.builder.dense(step.origin, x, weight.values, vector, **types)


def matmul_parts(step: Step) -> tuple[Constant, Constant | None]:
    """The weight of a MatMul and the constant of the Add that alone reads it (absorbed as its bias)."""
    weight, bias = step.constant(1), None
    follower = step.graph.follower(step.node)
    if follower is not None and follower.op_type == 'Add' and weight.values.ndim == 2:
        others = [name for name in follower.input if name != step.node.output[0]]
        bias = step.graph.constant_named(others[0]) if len(others) == 1 else None
        if bias is not None and _fits(bias, weight.values.shape[1]):
            step.graph.absorb(follower, step.node)
        else:
            bias = None
    return weight, bias


def _fits(constant: Constant, size: int) -> bool:
    shape = constant.values.shape
    return shape in ((size,), (1, size), (1,), ())


@handles('BatchNormalization')
def batch_normalization(step: Step) -> Operand:
    """Inference form: `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (ONNX axis 1)."""
    if step.attribute('training_mode', 0) or not step.attribute('spatial', 1):
        raise step.unsupported('training_mode=1 and spatial=0 are not supported (inference, per channel)')
    x = step.tensor(0)
    scale, bias, mean, variance = (np.asarray(step.constant(index).values, dtype=np.float64) for index in range(1, 5))
    epsilon = float(step.attribute('epsilon', 1e-5))
    factor = scale / np.sqrt(variance + epsilon)
    return step.builder.batchnorm(step.origin, x, factor, bias - mean * factor)


# ---- activations ---------------------------------------------------------------------------------
@handles(*PLAIN_ACTIVATIONS)
def plain_activation(step: Step) -> Operand:
    return step.builder.activation(step.origin, step.tensor(0), PLAIN_ACTIVATIONS[step.node.op_type])


@handles('Gelu')
def gelu(step: Step) -> Operand:
    approximate = step.attribute('approximate', 'none')
    approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
    if approximate not in GELU_FORMS:
        raise step.unsupported(f"Gelu with approximate={approximate!r} is not supported ('none' or 'tanh')")
    return step.builder.activation(step.origin, step.tensor(0), GELU_FORMS[approximate])


@handles('LayerNormalization')
def layer_normalization(step: Step) -> Operand:
    """Opset 17: over the axes from `axis` (default -1), a constant Scale and an optional constant B."""
    x = step.tensor(0)
    scale, bias = step.constant(1), step.optional_constant(2)
    axis = onnx_axis(step, step.attribute('axis', -1), x.rank)
    epsilon = float(step.attribute('epsilon', 1e-5))
    values = None if bias is None else bias.values
    return step.builder.layer_norm(step.origin, x, x.rank - axis, scale.values, values, epsilon)


@handles('Gather')
def gather(step: Step) -> Operand:
    """An embedding: rows (axis 0) of a constant table selected by a tensor of integer indices."""
    if step.attribute('axis', 0) != 0:
        raise step.unsupported(
            f'Gather along axis {step.attribute("axis")} is not supported (rows of a constant table)'
        )
    table, indices = step.constant(0), step.tensor(1)
    return step.builder.embedding(step.origin, indices, table.values)


@handles('LeakyRelu')
def leaky_relu(step: Step) -> Operand:
    alpha = float(step.attribute('alpha', 0.01))
    return step.builder.activation(step.origin, step.tensor(0), 'leaky_relu', alpha=alpha)


@handles('Elu')
def elu(step: Step) -> Operand:
    alpha = float(step.attribute('alpha', 1.0))
    return step.builder.activation(step.origin, step.tensor(0), 'elu', alpha=alpha)


@handles('Selu')
def selu(step: Step) -> Operand:
    for name, default in SELU_DEFAULTS.items():
        if np.float32(step.attribute(name, default)) != np.float32(default):
            raise step.unsupported(f'{name}={step.attribute(name)} is not supported (only the default {default})')
    return step.builder.activation(step.origin, step.tensor(0), 'selu')


@handles('HardSigmoid')
def hard_sigmoid(step: Step) -> Operand:
    slope, shift = float(step.attribute('alpha', 0.2)), float(step.attribute('beta', 0.5))
    return step.builder.activation(step.origin, step.tensor(0), 'hard_sigmoid', slope=slope, shift=shift)


@handles('PRelu')
def prelu(step: Step) -> Operand:
    """One slope, or one per channel (ONNX axis 1) constant over the other axes."""
    x = step.tensor(0)
    slope = np.broadcast_to(framework_constant(step, step.constant(1), x), x.shape)
    per_channel = slope.reshape(x.shape[0], -1)
    if np.any(per_channel != per_channel[:, :1]):
        raise step.unsupported('slopes that vary along an axis other than the channel axis are not supported')
    return step.builder.prelu(step.origin, x, per_channel[:, 0])


@handles('Softmax')
def softmax(step: Step) -> Operand:
    """Opset 13 normalises over `axis` (default -1); before, over the flattened axes from `axis`
    (default 1), which is the same only for (batch, features) inputs."""
    x = step.tensor(0)
    if step.opset < 13:
        axis = int(step.attribute('axis', 1))
        if x.rank != 1 or axis not in (1, -1):
            raise step.unsupported(
                f'softmax of opset {step.opset} over the axes from {axis} of a tensor of shape {x.shape} is not '
                'supported (only (batch, features) inputs); export with opset 13 or later'
            )
        return step.builder.softmax(step.origin, x, 0)
    return step.builder.softmax(step.origin, x, onnx_axis(step, step.attribute('axis', -1), x.rank))


# ---- element-wise arithmetic ---------------------------------------------------------------------
@handles('Add', 'Sub', 'Mul', 'Div', 'Max', 'Min')
def arithmetic(step: Step) -> Operand:
    """Two tensors of one shape -> Merge; a tensor and a constant -> x * scale + bias."""
    if len(step.inputs) != 2:
        raise step.unsupported(f'{len(step.inputs)} operands are not supported (two only)')
    first, second = step.inputs
    op = step.node.op_type
    if isinstance(first, Value) and isinstance(second, Value):
        if op not in MERGES:
            raise step.unsupported('the division of two tensors is not supported')
        return step.builder.merge(step.origin, first, second, MERGES[op])
    if isinstance(first, Value) and isinstance(second, Constant):
        return _with_constant(step, first, second, constant_first=False)
    if isinstance(first, Constant) and isinstance(second, Value):
        return _with_constant(step, second, first, constant_first=True)
    raise step.unsupported('an operation on constants only was not folded')


def _with_constant(step: Step, x: Value, constant: Constant, constant_first: bool) -> Operand:
    op, c = step.node.op_type, framework_constant(step, constant, x)
    builder, origin = step.builder, step.origin
    if op == 'Add':
        return builder.affine(origin, x, bias=c)
    if op == 'Mul':
        return builder.affine(origin, x, scale=c)
    if op == 'Sub' and constant_first:
        return builder.affine(origin, x, scale=-np.ones_like(c), bias=c)
    if op == 'Sub':
        return builder.affine(origin, x, bias=-c)
    if op == 'Div' and constant_first:
        raise step.unsupported('dividing a constant by a tensor (a reciprocal) is not supported')
    if op == 'Div':
        if np.any(c == 0):
            raise step.unsupported('division by a constant that holds a zero')
        return builder.affine(origin, x, scale=1.0 / c)
    raise step.unsupported(f'{op} of a tensor and a constant is not supported (two tensors only)')


# ---- selection -----------------------------------------------------------------------------------
@handles('TopK')
def topk(step: Step) -> tuple[Operand | None, ...]:
    """(Values, Indices) along the last axis of a vector, each an IR layer only if the model reads it;
    ties go to the lower index, as ONNX specifies. K is an input from opset 10, an attribute before."""
    x = step.tensor(0)
    k = int(step.scalar(1, 'K')) if step.opset >= 10 else int(step.attribute('k'))
    if x.rank != 1 or onnx_axis(step, step.attribute('axis', -1), x.rank) != 0:
        raise step.unsupported(f'TopK of a tensor of shape {x.shape} is supported only along the last axis of a vector')
    largest = bool(step.attribute('largest', 1))  # 0: the k smallest, smallest first
    if not 1 <= k <= x.shape[0]:
        raise step.unsupported(f'K={k} must be between 1 and {x.shape[0]}')
    builder = step.builder
    values = builder.topk(step.origin, x, k, 'values', largest=largest) if step.output_read(0) else None
    read_indices = step.output_read(1)
    indices = builder.topk(step.sub_origin('indices'), x, k, 'indices', largest=largest) if read_indices else None
    return values, indices


def router(step: Step, renormalize: bool) -> tuple[Operand | None, ...]:
    """A TopK of softmax probabilities matched as a router (router_pattern.py), its input the logits:
    the Router weights and indices, each an IR layer only if the model reads it."""
    x = step.tensor(0)
    k = int(step.scalar(1, 'K')) if step.opset >= 10 else int(step.attribute('k'))
    if x.rank != 1:
        raise step.unsupported(f'softmax -> TopK of logits of shape {x.shape} (only one vector per sample)')
    outputs = ((0, step.origin, 'weights'), (1, step.sub_origin('indices'), 'indices'))
    return tuple(
        step.builder.router(origin, x, k, renormalize, output) if step.output_read(position) else None
        for position, origin, output in outputs
    )
