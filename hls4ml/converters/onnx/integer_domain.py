"""The integer domain of float-scaled QONNX tensors: rescales, dequantization and pending scales.

A tensor quantized with a float scale `s` is `(q - z) * s`. The IR keeps the exact values `q - z`
(a `Scaled` operand whose `scale` is still to be applied); integer weights keep products exact; the
pending factors meet the next quantizer as one fixed-point multiplier per channel (`rescale`, a
BatchNormalization layer marked `rescale` so that no pass folds it into the integer weights), and
a model output or an op with no integer form multiplies them back in (`dequantize`). The width of
each multiplier and the error it can cause are derived in `rescale.py`; a rescale that is not exact
warns once, naming the layer and the bound.
"""

from __future__ import annotations

import warnings

import numpy as np

from hls4ml.converters.builder import GraphBuilder, Origin, Value
from hls4ml.converters.onnx import rescale as math_of
from hls4ml.converters.onnx.step import Scaled, Step
from hls4ml.model.types import FixedPrecisionType

RESCALE_ATTRIBUTE = 'rescale'  # on BatchNormalization layers that apply a float scale: never fused
# on a quantizer's rescale: its bound (printed with the graph) and the exact ratios, for tests to measure
BOUND_ATTRIBUTE, RATIO_ATTRIBUTE = 'rescale_bound', 'rescale_ratio'


def channel_scale(values: np.ndarray | float, value: Value) -> np.ndarray | None:
    """A scale in framework axes, reduced to () when uniform or (C, 1, ...) when it varies only along
    the channel axis (framework axis 0); None when it varies along another axis."""
    full = np.broadcast_to(np.asarray(values, dtype=np.float64), value.shape)
    if full.size == 0 or np.all(full == full.reshape(-1)[0]):
        return np.asarray(full.reshape(-1)[0] if full.size else 1.0)
    per_channel = full.reshape(full.shape[0], -1)
    if np.any(per_channel != per_channel[:, :1]):
        return None
    return per_channel[:, 0].reshape((-1,) + (1,) * (value.rank - 1))


def as_scaled(operand: Value | Scaled) -> Scaled:
    """A plain tensor is the integer-domain tensor of scale 1."""
    return operand if isinstance(operand, Scaled) else Scaled(operand, np.asarray(1.0))


def uniform(scale: np.ndarray) -> bool:
    flat = np.asarray(scale).reshape(-1)
    return bool(np.all(flat == flat[0]))


def affine(
    builder: GraphBuilder,
    origin: Origin,
    x: Value,
    scale: np.ndarray | float,
    bias: np.ndarray | float,
    result: FixedPrecisionType | None = None,
    rescale: bool = False,
) -> Value:
    """`x * scale + bias` with both constants written exactly (they must be dyadic), rounded once into
    `result` (None: the exact type the precision pass infers)."""
    value = builder.affine(origin, x, scale=scale, bias=bias)
    layer = builder.graph.layers[value.tensor]
    for name in ('scale', 'bias'):
        layer.types[name] = math_of.fixed_constant(layer.weights[name], math_of.MAX_FRACTION_BITS).precision
    if result is not None:
        layer.types['result'] = result
    if rescale:
        layer.attributes[RESCALE_ATTRIBUTE] = True
    return value


def rescale(
    step: Step,
    x: Scaled,
    denominator: np.ndarray,
    zero_point: np.ndarray,
    integer_type: FixedPrecisionType,
    reach: float,
    ceil: bool = False,
    origin: Origin | None = None,
) -> Value:
    """The integers `round(clip(v * c / denominator + zero_point))` of a quantizer (not yet minus the
    zero point), written into `integer_type` (its rounding and saturation are the quantizer's). CEIL
    (`ceil`), which fixed-point types lack, is `-floor(-t)`: the negated value floored into one more
    bit (that early clip is wider than the final one, so it changes nothing), negated back. `origin`:
    the layer's name when it is not the node's own."""
    builder, value, origin = step.builder, x.value, origin or step.origin
    shape = np.broadcast_shapes(np.shape(x.scale), np.shape(denominator))
    factor = math_of.multiplier(np.broadcast_to(x.scale, shape), np.broadcast_to(denominator, shape), reach, x.error)
    _warn_if_bounded(origin, factor)
    zero = np.broadcast_to(zero_point, value.shape)
    if not ceil:
        result = affine(builder, origin, value, factor.constant.values, zero, integer_type, rescale=True)
        layer = builder.graph.layers[result.tensor]
        layer.attributes[BOUND_ATTRIBUTE] = factor.bound
        layer.attributes[RATIO_ATTRIBUTE] = builder.per_element(value, factor.ratios, origin)
        return result
    bits = integer_type.width + 1
    negated = FixedPrecisionType(bits, bits, True, 'TRN', 'SAT')
    floor_origin = Origin(f'{origin.name}_floor', origin.op, origin.where)
    floor = affine(builder, floor_origin, value, -factor.constant.values, -zero, negated, rescale=True)
    return affine(builder, origin, floor, -1.0, 0.0, integer_type)


def centered(step: Step, integers: Value, zero_point: np.ndarray, limits: tuple[int, int]) -> Value:
    """`q - zero_point` for `q` in `limits`, exactly (the IR value of a quantized tensor); `q` itself
    for zero point 0."""
    if not np.any(zero_point):
        return integers
    zero = np.asarray(zero_point, dtype=np.float64)
    ends = np.concatenate([(limits[0] - zero).reshape(-1), (limits[1] - zero).reshape(-1)])
    result = math_of.fixed_constant(ends, math_of.MAX_FRACTION_BITS).precision
    return affine(step.builder, step.sub_origin('zero_point'), integers, 1.0, -zero, result)


def relu_after(step: Step, x: Scaled, centered_value: Value, zero_point: np.ndarray, limits: tuple[int, int]) -> Value:
    """The Relu that waited for the quantizer (`x.relu`): exact on `q - z`, since the quantizer maps 0
    to 0 when the zero point is an integer in its range (else the Relu is refused)."""
    if x.relu is None:
        return centered_value
    zero = np.asarray(zero_point, dtype=np.float64)
    if np.any(zero != np.round(zero)) or np.any(zero < limits[0]) or np.any(zero > limits[1]):
        raise step.unsupported('a Relu before a quantizer whose zero point is not an integer in its range')
    ends = np.concatenate([np.zeros(1), (limits[1] - zero).reshape(-1)])
    result = math_of.fixed_constant(ends, 0).precision
    value = step.builder.activation(x.relu, centered_value, 'relu')
    step.builder.graph.layers[value.tensor].types['result'] = result
    return value


def dequantize(builder: GraphBuilder, x: Scaled, origin: Origin, reason: str) -> Value:
    """`value * scale` as a plain tensor: the scale written with OUTPUT_BITS significant bits (exact
    when it is a dyadic rational that fits); a warning names `origin` when that is not exact."""
    if np.all(x.scale == 1) and x.error == 0:
        return x.value
    constant = math_of.significant_constant(np.asarray(x.scale), math_of.OUTPUT_BITS)
    scaled_origin = Origin(f'{origin.name}_dequantize', origin.op, origin.where)
    value = affine(builder, scaled_origin, x.value, constant.values, 0.0, rescale=True)
    if not constant.exact or x.error:
        warnings.warn(
            f'{origin}: {reason}; the float scale is applied as a {constant.precision.width}-bit fixed-point '
            f'constant ({constant.precision}), relative error <= {constant.relative_error:.3g}'
            + (f', plus {x.error:.3g} units of the scale carried from float biases' if x.error else ''),
            UserWarning,
            stacklevel=2,
        )
    return value


def _warn_if_bounded(origin: Origin, factor: math_of.Multiplier) -> None:
    if factor.exact:
        return
    precision = factor.constant.precision
    warnings.warn(
        f'{origin}: float scale ratio(s) applied as a {precision.width}-bit fixed-point multiplier '
        f'({precision}); before rounding, within {math_of.describe_bound(factor.bound)} LSB of the exact value, '
        'so every output is the exactly rounded integer, or 1 LSB from it where the exact value lies within '
        'that distance of a rounding threshold (docs/quantization.md)',
        UserWarning,
        stacklevel=3,
    )
