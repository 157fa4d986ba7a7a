"""Handlers of the QONNX quantizers on tensors: `Quant`, `BipolarQuant`, `Trunc`.

A quantizer of a plain tensor with one power-of-two scale, zero point 0 and a rounding mode that
fixed-point types have is one write into its exact type (`quant.tensor_precision`): a linear
activation the builder folds into the producer. Every other quantizer (a float scale, per-channel
scales, a zero point, CEIL rounding, or an input already in the integer domain) goes to the integer
domain (`integer_domain.py`): a rescale to its integers, minus the zero point, with the scale pending.
"""

from __future__ import annotations

import numpy as np

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx import quant
from hls4ml.converters.onnx.integer_domain import as_scaled, centered, channel_scale, relu_after, rescale, uniform
from hls4ml.converters.onnx.quant import QuantSpec, TruncSpec
from hls4ml.converters.onnx.rescale import quantizer_reach
from hls4ml.converters.onnx.step import Constant, Handler, Operand, Scaled, Step, framework_constant, registrar
from hls4ml.model.types import MAX_WIDTH, FixedPrecisionType

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)


@handles('Quant', 'BipolarQuant')
def quantize(step: Step) -> Operand:
    operand, spec = step.inputs[0], quant.node_spec(step)
    if not isinstance(operand, (Value, Scaled)):
        raise step.unsupported('input 0 must be a tensor computed by the model (a constant is folded)')
    if isinstance(operand, Value) and quant.exact_without_rescale(spec):
        return _bipolar(step, as_scaled(operand), spec) if spec.bipolar else _exact(step, operand, spec)
    if spec.bipolar:
        return _bipolar(step, as_scaled(operand), spec)
    return _requantize(step, as_scaled(operand), spec)


def _exact(step: Step, x: Value, spec: QuantSpec) -> Operand:
    return step.builder.quantize(step.origin, x, quant.tensor_precision(step, spec))


def _framework_scale(step: Step, values: np.ndarray, x: Value, what: str) -> np.ndarray:
    """A quantizer constant in framework axes: per tensor or per channel, else refused."""
    reduced = channel_scale(framework_constant(step, Constant(np.asarray(values)), x), x)
    if reduced is None:
        raise step.unsupported(f'a {what} that varies along an axis other than the channels is not supported')
    return reduced


def _requantize(step: Step, x: Scaled, spec: QuantSpec) -> Operand:
    """`(round(clip(v * c / s + z)) - z)` with the scale `s` pending; one rescale unless `c == s` and
    the rounding needs none (then the integers are one write of `v`)."""
    bits = quant.whole_bits(step, spec.bit_width, 'bit width')
    saturation = quant.saturation(step, spec.signed, spec.narrow)
    rounding = quant.rounding(step, spec.rounding_mode, ceil_allowed=True)
    ceil = rounding == quant.CEIL
    scale = _framework_scale(step, spec.scale, x.value, 'scale')
    zero = _framework_scale(step, spec.zero_point, x.value, 'zero point')
    if np.any(scale <= 0):
        raise step.unsupported(f'the scale {quant.shown(spec.scale)} must be positive')
    integer_type = FixedPrecisionType(bits, bits, spec.signed, 'TRN' if ceil else rounding, saturation)
    same = np.shape(scale) == np.shape(x.scale) and np.all(scale == x.scale)
    limits = quant.integer_range(spec)
    if same and not ceil and not np.any(zero) and x.error == 0:
        integers = step.builder.quantize(step.origin, x.value, integer_type)
    else:
        integers = rescale(step, x, scale, zero, integer_type, quantizer_reach(*limits, zero), ceil)
    return Scaled(relu_after(step, x, centered(step, integers, zero, limits), zero, limits), scale)


def _bipolar(step: Step, x: Scaled, spec: QuantSpec) -> Operand:
    """`sign(v * c) * s` is `sign(v) * s` for a positive `c`: the bipolar activation, `s` pending (or
    multiplied in exactly when it is a power of two of a plain tensor, as before)."""
    quant.zero_only(step, spec.zero_point)
    if x.relu is not None:
        raise step.unsupported('a bipolar quantizer after a Relu (every sign would be +1) is not supported')
    if np.any(np.asarray(x.scale) <= 0):
        raise step.unsupported('a bipolar quantizer of a tensor with a negative scale is not supported')
    signs = step.builder.activation(step.origin, x.value, 'bipolar')
    scale = _framework_scale(step, spec.scale, x.value, 'scale')
    exponents = quant.power_of_two_exponents(scale)
    if exponents is not None and np.all(x.scale == 1) and uniform(scale):
        if np.all(scale == 1):
            return signs
        return step.builder.affine(step.sub_origin('scale'), signs, scale=scale)
    return Scaled(signs, scale)


@handles('Trunc')
def trunc(step: Step) -> Operand:
    """Counted in the unit of its input (1 for a plain tensor). When its input scale is not a power of
    two of that unit, a rescale first rounds (half to even) to integers of it."""
    operand = step.inputs[0]
    if not isinstance(operand, (Value, Scaled)):
        raise step.unsupported('input 0 must be a tensor computed by the model')
    x = as_scaled(operand)
    if not uniform(x.scale) or np.any(np.asarray(x.scale) <= 0):
        raise step.unsupported('a Trunc of a tensor with per-channel or negative scales is not supported')
    unit = float(np.asarray(x.scale).reshape(-1)[0])
    quant.check_trunc_version(step)
    if quant.power_of_two_exponents(np.asarray(step.scalar(1, 'the Trunc input scale')) / unit) is None:
        x, unit = _to_input_grid(step, x)
    spec = quant.trunc_spec(step, unit)
    result = _exact_trunc(step, x.value, spec)
    factor = unit * spec.output_factor
    if isinstance(operand, Value) and factor == 1:
        return result
    return Scaled(result, np.asarray(factor))


def _to_input_grid(step: Step, x: Scaled) -> tuple[Scaled, float]:
    """`round_half_even(v * c / scale)` into integers two bits wider than the output (values beyond
    saturate at the output anyway); the Trunc's other inputs are checked by its spec afterwards."""
    grid = step.scalar(1, 'the Trunc input scale')
    output_bits = quant.whole_bits(step, step.constant(5).values, 'output bit width')
    shift = int(np.round(np.log2(step.scalar(4, 'the Trunc output scale') / grid)))
    width = output_bits + max(shift, 0) + 2
    if width > MAX_WIDTH:
        raise step.unsupported(f'the output scale is out of proportion to the input scale ({width} bits)')
    integer_type = FixedPrecisionType(width, width, True, 'RND_CONV', 'SAT')
    origin = step.sub_origin('grid')
    integers = rescale(step, x, np.asarray(grid), np.zeros(()), integer_type, 2.0 ** (width - 1) + 1, origin=origin)
    return Scaled(integers, np.asarray(grid)), grid


def _exact_trunc(step: Step, x: Value, spec: TruncSpec) -> Value:
    """Round to the input scale (half to even), then write into the output type; one write when the
    scales are equal. The first write saturates two bits above the output's MSB, where the second
    write saturates anyway, so clipping it early changes nothing."""
    final = spec.output_type
    if spec.output_exponent == spec.input_exponent:
        return step.builder.quantize(step.origin, x, final.replace(rounding_mode='RND_CONV'))
    integer = final.integer + 2
    width = integer - spec.input_exponent
    if not 1 <= width <= MAX_WIDTH:
        raise step.unsupported(f'the input scale 2^{spec.input_exponent} is out of proportion to the output type')
    rounded = FixedPrecisionType(width, integer, True, 'RND_CONV', 'SAT')
    return step.builder.quantize(step.origin, step.builder.quantize(step.sub_origin('round'), x, rounded), final)
