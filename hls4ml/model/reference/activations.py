"""References of the activations without tables (`templates/nnet/nnet_activation.h`)."""

from __future__ import annotations

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, constant, greater_than, integer, select
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def linear(x: FixedArray, result_type: Type) -> FixedArray:
    return as_samples(x).cast(result_type)


def relu(x: FixedArray, result_type: Type) -> FixedArray:
    x = as_samples(x)
    return select(x.raw > 0, x.cast(result_type), integer(0, x.family).cast(result_type))


def bipolar(x: FixedArray, result_type: Type) -> FixedArray:
    """x < 0 ? -1 : +1 (0 gives +1, as QONNX BipolarQuant), each an int constant written into result_type."""
    x = as_samples(x)
    return select(x.raw < 0, integer(-1, x.family).cast(result_type), integer(1, x.family).cast(result_type))


def leaky_relu(x: FixedArray, alpha: float, param_type: Type, result_type: Type) -> FixedArray:
    """x > 0 ? x : alpha * x, alpha written into param_type."""
    x = as_samples(x)
    negative_side = (constant(alpha, param_type, x.family) * x).cast(result_type)
    return select(x.raw > 0, x.cast(result_type), negative_side)


def thresholded_relu(x: FixedArray, theta: float, param_type: Type, result_type: Type) -> FixedArray:
    """x > theta ? x : 0, theta written into param_type."""
    x = as_samples(x)
    above = greater_than(x, constant(theta, param_type, x.family))
    return select(above, x.cast(result_type), integer(0, x.family).cast(result_type))


def clipped_relu(x: FixedArray, ceiling: float, param_type: Type, result_type: Type) -> FixedArray:
    """x > 0 ? min(x, ceiling) : 0, ceiling written into param_type (relu6: ceiling 6)."""
    x = as_samples(x)
    bound = constant(ceiling, param_type, x.family)
    capped = select(greater_than(x, bound), bound.cast(result_type), x.cast(result_type))
    return select(x.raw > 0, capped, integer(0, x.family).cast(result_type))


def prelu(x: FixedArray, alpha: FixedArray, result_type: Type) -> FixedArray:
    """x > 0 ? x : alpha[i] * x, with `alpha` already of param_t (shape (n_in,))."""
    x = as_samples(x)
    return select(x.raw > 0, x.cast(result_type), (alpha * x).cast(result_type))


def hard_sigmoid(x: FixedArray, slope: float, shift: float, param_type: Type, result_type: Type) -> FixedArray:
    """clip(x * slope + shift, 0, 1): the line at full precision, then one write."""
    x = as_samples(x)
    line = x * constant(slope, param_type, x.family) + constant(shift, param_type, x.family)
    one, zero = integer(1, x.family), integer(0, x.family)
    clipped_high = select(greater_than(line, one), one.cast(result_type), line.cast(result_type))
    return select(line.raw < 0, zero.cast(result_type), clipped_high)


def hard_swish(x: FixedArray, slope: float, shift: float, param_type: Type, result_type: Type) -> FixedArray:
    """x * clip(x * slope + shift, 0, 1): the gate and the product at full precision, then one write."""
    x = as_samples(x)
    gate = x * constant(slope, param_type, x.family) + constant(shift, param_type, x.family)
    one, zero = integer(1, x.family), integer(0, x.family)
    opened = select(greater_than(gate, one), x.cast(result_type), (x * gate).cast(result_type))
    return select(gate.raw < 0, zero.cast(result_type), opened)
