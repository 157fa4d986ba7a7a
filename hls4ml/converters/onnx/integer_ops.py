"""Standard ONNX ops on integer-domain tensors (`Scaled`) and on float-scaled quantized weights.

`convert` is the walk's entry: an op that reads a `Scaled` tensor, or a constant quantized with a
float scale, goes to its integer-domain handler here, which builds the same IR layers as the plain
handler on the integers and returns the result with its pending scale:

* Gemm, MatMul (+ its bias Add), Conv: `(v * c) @ (W * s_w) + b = (v @ W + b / (c * s_w)) * c * s_w`;
  the weights are the integers `q - z` (exact), the bias is written with BIAS_FRACTION_BITS
  fraction bits of the accumulator (exact when it is a dyadic rational that fits, as integer
  biases are), the output scale is `c * s_w` per output channel.
* Relu, max and average pooling, padding, Identity / Dropout: the op on the integers, same scale
  (Relu and max pooling need a positive scale). Reshapes, Flatten, Transpose: same scale when it is
  one per tensor.
* Add, Sub, Max, Min and Concat of tensors with equal scales; Mul of two tensors (scales multiply);
  Mul / Div by a constant (folded into the scale).

Anything else reads its inputs dequantized (`integer_domain.dequantize`, with a warning when that is
not exact); a float-scaled constant it reads is refused (no fixed-point type holds it exactly).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx import handlers as plain
from hls4ml.converters.onnx import rescale as math_of
from hls4ml.converters.onnx import spatial, structure
from hls4ml.converters.onnx.integer_domain import as_scaled, channel_scale, dequantize, uniform
from hls4ml.converters.onnx.quant import QONNX_OPS
from hls4ml.converters.onnx.step import Constant, Handler, Operand, Scaled, Step, framework_constant

IntegerHandler = Callable[[Step], Operand | None]  # None: the op has no integer form for these inputs
INTEGER_HANDLERS: dict[str, IntegerHandler] = {}


def handles(*op_types: str) -> Callable[[IntegerHandler], IntegerHandler]:
    def register(handler: IntegerHandler) -> IntegerHandler:
        INTEGER_HANDLERS.update(dict.fromkeys(op_types, handler))
        return handler

    return register


SAME_SCALE_OPS = ('Relu', 'MaxPool', 'GlobalMaxPool', 'Pad', 'Identity', 'Dropout')
POSITIVE_SCALE_OPS = ('Relu', 'MaxPool', 'GlobalMaxPool')
LAYOUT_OPS = ('Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Transpose')


def convert(step: Step, handlers: dict[str, Handler]) -> Operand | tuple[Operand | None, ...]:
    """The node's result: in the integer domain when an input is in it and the op has a form there;
    else by the plain handler, with integer-domain inputs made plain."""
    op = step.node.op_type
    if op in QONNX_OPS or not _reads_integer_domain(step):
        return handlers[op](step)
    handler = INTEGER_HANDLERS.get(op)
    result = handler(step) if handler is not None else None
    if result is not None:
        return result
    _make_plain(step)
    return handlers[op](step)


def _reads_integer_domain(step: Step) -> bool:
    return any(
        isinstance(operand, Scaled) or (isinstance(operand, Constant) and operand.quantum is not None)
        for operand in step.inputs
    )


def _make_plain(step: Step) -> None:
    for index, operand in enumerate(step.inputs):
        if isinstance(operand, Scaled):
            reason = f'the op has no integer-domain form, so its input {index} is dequantized first'
            step.inputs[index] = dequantize(step.builder, operand, step.origin, reason)
        elif isinstance(operand, Constant) and operand.quantum is not None:
            raise step.unsupported(
                f'its constant input {index} is quantized with a float scale (not a power of two), which this op '
                'cannot use here (a product needs one input scale per tensor and weight scales per output channel; '
                'Mul and Div take any; other ops none); no fixed-point type holds its values exactly'
            )


# ---- matrix products -----------------------------------------------------------------------------
def _integer_weights(step: Step, weight: Constant, output_axis: int) -> tuple[Constant, np.ndarray] | None:
    """The weights as integers with their exact type, and the scale of each output (None when the
    scale varies along an input axis, which leaves no integer product, or when the weights are not
    quantized at all: their type would round them, outside any bound kept here)."""
    if weight.quantum is None or weight.integers is None:
        if weight.precision is None:
            return None
        return weight, np.ones(weight.values.shape[output_axis])  # power-of-two quantized: exact already
    moved = np.moveaxis(weight.quantum, output_axis, 0).reshape(weight.quantum.shape[output_axis], -1)
    if np.any(moved != moved[:, :1]):
        return None
    precision = math_of.fixed_constant(weight.integers, math_of.MAX_FRACTION_BITS).precision
    return Constant(weight.integers, precision), moved[:, 0]


def _bias(step: Step, bias: Constant | None, scale: np.ndarray, size: int) -> tuple[Constant | None, float]:
    """The bias in units of the accumulator (`bias / scale`) written in fixed point, and its error."""
    if bias is None:
        return None, 0.0
    real = bias.values if bias.integers is None else bias.integers * bias.quantum
    vector = plain.bias_vector(step, Constant(np.asarray(real, dtype=np.float64)), size) / scale
    written = math_of.fixed_constant(vector, math_of.BIAS_FRACTION_BITS)
    return Constant(written.values, written.precision), written.absolute_error


def _product(step: Step, weight: Constant, bias: Constant | None, output_axis: int, factor: float) -> tuple | None:
    """(input, integer weights, bias in accumulator units, output scale, carried error) of a product
    `factor * x @ W + bias`; None when it has no integer form."""
    x = as_scaled(step.inputs[0])  # type: ignore[arg-type]
    if not isinstance(x.value, Value) or not uniform(x.scale):
        return None
    parts = _integer_weights(step, weight, output_axis)
    if parts is None:
        return None
    integers, weight_scale = parts
    scale = factor * float(np.asarray(x.scale).reshape(-1)[0]) * weight_scale
    written_bias, bias_error = _bias(step, bias, scale, scale.size)
    magnitudes = np.abs(np.moveaxis(integers.values, output_axis, 0)).reshape(scale.size, -1).sum(axis=1)
    error = float(magnitudes.max(initial=0.0)) * x.error + bias_error
    return x.value, integers, written_bias, scale, error


@handles('Gemm')
def gemm(step: Step) -> Operand | None:
    weight, bias = step.constant(1), step.optional_constant(2)
    if step.attribute('transA', 0):
        return None
    transposed = bool(step.attribute('transB', 0))
    alpha, beta = float(step.attribute('alpha', 1.0)), float(step.attribute('beta', 1.0))
    if bias is not None and beta != 1:
        bias = Constant(bias.values * beta) if bias.quantum is None else Constant(bias.integers * bias.quantum * beta)
    parts = _product(step, weight, bias, 0 if transposed else 1, alpha)
    if parts is None:
        return None
    x, integers, written_bias, scale, error = parts
    matrix = integers.values.T if transposed else integers.values
    vector = None if written_bias is None else written_bias.values
    types = plain.preset_types(weight=integers, bias=written_bias)
    return Scaled(step.builder.dense(step.origin, x, matrix, vector, **types), scale, error)


@handles('MatMul')
def matmul(step: Step) -> Operand | None:
    if not isinstance(step.inputs[1], Constant):  # two computed tensors: an Einsum of the plain values
        return None
    weight, bias = plain.matmul_parts(step)
    parts = _product(step, weight, bias, 1, 1.0)
    if parts is None:
        return None
    x, integers, written_bias, scale, error = parts
    vector = None if written_bias is None else written_bias.values
    types = plain.preset_types(weight=integers, bias=written_bias)
    return Scaled(step.builder.dense(step.origin, x, integers.values, vector, **types), scale, error)


@handles('Conv')
def conv(step: Step) -> Operand | None:
    weight, bias = step.constant(1), step.optional_constant(2)
    parts = _product(step, weight, bias, 0, 1.0)
    if parts is None:
        return None
    x, integers, written_bias, scale, error = parts
    step.inputs[:3] = [x, integers, written_bias]
    result = spatial.conv(step)
    assert isinstance(result, Value)
    return Scaled(result, scale.reshape((-1,) + (1,) * (result.rank - 1)), error)


# ---- ops that keep the scale ---------------------------------------------------------------------
@handles(*SAME_SCALE_OPS, *LAYOUT_OPS, 'AveragePool', 'GlobalAveragePool')
def same_scale(step: Step) -> Operand | None:
    """The op on the integers; the scale stays (per channel only where the channel axis stays)."""
    x = step.inputs[0]
    if not isinstance(x, Scaled) or any(isinstance(operand, Scaled) for operand in step.inputs[1:]):
        return None
    op = step.node.op_type
    if op in POSITIVE_SCALE_OPS and np.any(x.scale <= 0):
        return None
    if op == 'Relu':
        return _relu(step, x)
    if op in LAYOUT_OPS and not uniform(x.scale):
        return None
    step.inputs[0] = x.value
    if op in ('AveragePool', 'GlobalAveragePool') and uniform(x.scale):
        step.unit = float(np.asarray(x.scale).reshape(-1)[0])  # a Trunc after it declares types in that unit
    result = {**plain.HANDLERS, **spatial.HANDLERS, **structure.HANDLERS}[op](step)
    if not isinstance(result, Value):
        return None
    scale = np.asarray(x.scale).reshape(-1)[0] if uniform(x.scale) else x.scale
    return Scaled(result, np.asarray(scale), x.error)


def _relu(step: Step, x: Scaled) -> Operand | None:
    """A Relu read only by a Quant waits for it: `Quant(relu(x)) = relu(Quant(x))` for monotone
    rounding, and after the quantizer the integers have a known exact type (here they would be the
    wide accumulator). Any other Relu reads its input dequantized."""
    follower = step.graph.follower(step.node) if step.graph is not None else None
    if follower is None or follower.op_type != 'Quant':
        return None
    return Scaled(x.value, x.scale, x.error, relu=step.origin)


# ---- element-wise arithmetic ---------------------------------------------------------------------
@handles('Add', 'Sub', 'Max', 'Min', 'Mul', 'Div')
def arithmetic(step: Step) -> Operand | None:
    if len(step.inputs) != 2:
        return None
    first, second = step.inputs
    if isinstance(first, Constant) or isinstance(second, Constant):
        return _with_constant(step, first, second)
    if not isinstance(first, (Value, Scaled)) or not isinstance(second, (Value, Scaled)):
        return None
    a, b = as_scaled(first), as_scaled(second)
    op = step.node.op_type
    if op == 'Mul':
        if a.error or b.error:  # the error of a product depends on the magnitudes: no bound kept
            return None
        return Scaled(step.builder.merge(step.origin, a.value, b.value, 'multiply'), np.asarray(a.scale * b.scale))
    if op == 'Div' or np.shape(a.scale) != np.shape(b.scale) or np.any(a.scale != b.scale):
        return None
    result = step.builder.merge(step.origin, a.value, b.value, plain.MERGES[op])
    return Scaled(result, a.scale, a.error + b.error if op in ('Add', 'Sub') else max(a.error, b.error))


def _with_constant(step: Step, first: Operand | None, second: Operand | None) -> Operand | None:
    """Mul / Div of an integer-domain tensor by a constant: the constant joins the scale."""
    op = step.node.op_type
    if op == 'Mul' and isinstance(first, Constant) and isinstance(second, Scaled):
        first, second = second, first
    if op not in ('Mul', 'Div') or not isinstance(first, Scaled) or not isinstance(second, Constant):
        return None
    if second.quantum is not None and second.integers is not None:  # the exact value joins the scale
        second = Constant(second.integers * second.quantum)
    factor = channel_scale(framework_constant(step, second, first.value), first.value)
    if factor is None or np.any(factor == 0):
        return None
    factor = factor if op == 'Mul' else 1.0 / factor
    return Scaled(first.value, np.asarray(first.scale * factor), first.error)


@handles('Concat')
def concat(step: Step) -> Operand | None:
    values = [as_scaled(operand) for operand in step.inputs if isinstance(operand, (Value, Scaled))]
    if len(values) != len(step.inputs) or not all(uniform(value.scale) for value in values):
        return None
    scales = {float(np.asarray(value.scale).reshape(-1)[0]) for value in values}
    if len(scales) != 1:
        return None
    step.inputs = [value.value for value in values]
    result = structure.concat(step)
    return Scaled(result, np.asarray(scales.pop()), max(value.error for value in values))  # type: ignore[arg-type]
