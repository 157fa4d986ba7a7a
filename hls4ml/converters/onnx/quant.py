"""QONNX quantizers (`Quant`, `BipolarQuant`, `Trunc`): their specs, and the exact fixed-point types
of those that have one (the handlers are in `quantizers.py`).

qonnx semantics (`qonnx/custom_op/general/intquant.py`, `bipolar_quant.py`, `trunc.py`):

* `Quant(x, scale, zeropt, bitwidth; signed, narrow, rounding_mode)`:
  `y = (round(clip(x / scale + zeropt, min_int, max_int)) - zeropt) * scale`; clipping before
  rounding to an integer range equals rounding then saturating. With zero point 0 and scale `2^e`
  this is writing `x` into `fixed<b, b + e>` with the mode's rounding and saturation (SAT, or
  SAT_SYM for the narrow signed range). A 1-bit signed Quant is bipolar (`x >= 0 ? +s : -s`).
* `BipolarQuant(x, scale)`: `(x >= 0 ? 1 : -1) * scale`.
* `Trunc` (qonnx opset 2, as Brevitas exports it): `x` is read as integers of `scale` (rounded half
  to even), divided by `2^round(log2(output_scale / scale))`, clipped to `output_bit_width` and
  rounded with `rounding_mode`, then multiplied by `output_scale`.

Quantizers of constants (weights, biases) fold into the constant; `precision_of_constant` gives the
exact type of the folded values for the consuming layer when the scale is a power of two, and
`constant_integers` the integers and scales otherwise (the integer domain, `integer_domain.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.builder import UnsupportedOperation
from hls4ml.converters.onnx.step import Step
from hls4ml.model.passes.infer_precision import integer_bits
from hls4ml.model.types import MAX_WIDTH, FixedPrecisionType

QONNX_OPS = ('Quant', 'BipolarQuant', 'Trunc')
# qonnx rounding_mode -> fixed-point rounding (fixed-point.md section 3.1). CEIL has none: the
# integer domain writes it as -floor(-x) (integer_domain.rescale); UP (away from zero) is refused
CEIL = 'CEIL'
ROUNDING = {
    'ROUND': 'RND_CONV',  # numpy round: half to even
    'HALF_EVEN': 'RND_CONV',
    'FLOOR': 'TRN',
    'DOWN': 'TRN_ZERO',  # numpy fix
    'ROUND_TO_ZERO': 'TRN_ZERO',  # Brevitas' name for it
    'HALF_UP': 'RND_INF',  # ties away from zero
    'HALF_DOWN': 'RND_ZERO',  # ties toward zero
}


@dataclass(frozen=True)
class QuantSpec:
    """The inputs and attributes of one `Quant` (or, with `bipolar`, `BipolarQuant`) node."""

    scale: np.ndarray
    zero_point: np.ndarray
    bit_width: np.ndarray
    signed: bool
    narrow: bool
    rounding_mode: str
    bipolar: bool = False


def quant_spec(op_type: str, constants: list[np.ndarray], custom_op: Any) -> QuantSpec:
    """The spec of a Quant / BipolarQuant node from its constant inputs 1.. and its qonnx CustomOp."""
    if op_type == 'BipolarQuant':
        one = np.ones(1)
        return QuantSpec(constants[0], np.zeros(1), one, True, False, 'ROUND', bipolar=True)
    scale, zero_point, bit_width = constants[:3]
    signed, narrow = bool(custom_op.get_nodeattr('signed')), bool(custom_op.get_nodeattr('narrow'))
    rounding = str(custom_op.get_nodeattr('rounding_mode')).upper()
    is_bipolar = bit_width.size == 1 and float(bit_width.reshape(-1)[0]) == 1 and signed
    return QuantSpec(scale, zero_point, bit_width, signed, narrow, rounding, bipolar=is_bipolar)


def power_of_two_exponents(values: np.ndarray) -> np.ndarray | None:
    """The integer exponents `e` with `values == 2**e`, or None when one value is not a power of two."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        return None
    mantissa, exponent = np.frexp(values)
    return exponent - 1 if np.all(mantissa == 0.5) else None


def integer_range(spec: QuantSpec) -> tuple[int, int]:
    """The integers a quantizer produces before the zero point and scale are applied."""
    if spec.bipolar:
        return -1, 1
    bits = int(spec.bit_width.reshape(-1).max())
    if spec.signed:
        return -(2 ** (bits - 1)) + int(spec.narrow), 2 ** (bits - 1) - 1
    return 0, 2**bits - 1 - int(spec.narrow)


def precision_of_constant(spec: QuantSpec) -> FixedPrecisionType | None:
    """The narrowest type holding every value a quantizer of a constant can produce, exactly; None
    when the scale is not a power of two (or the zero point or bit width not whole)."""
    exponents = power_of_two_exponents(spec.scale)
    zero_point = np.asarray(spec.zero_point, dtype=np.float64)
    whole = np.all(zero_point == np.round(zero_point)) and np.all(spec.bit_width == np.round(spec.bit_width))
    if exponents is None or not whole:
        return None
    low, high = integer_range(spec)
    scale = np.asarray(spec.scale, dtype=np.float64)
    ends = np.concatenate([((low - zero_point) * scale).reshape(-1), ((high - zero_point) * scale).reshape(-1)])
    lowest, highest = float(ends.min()), float(ends.max())
    signed = lowest < 0
    integer = integer_bits(lowest, highest, signed)
    width = max(integer - int(exponents.min()), 1)
    return FixedPrecisionType(width, integer, signed)


def constant_integers(spec: QuantSpec, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The integers `q - zero point` a quantizer makes of constant `values` (computed with qonnx's own
    float32 steps, so they are qonnx's integers) and each element's scale, both of the output's shape."""
    from qonnx.custom_op.general.quant import resolve_rounding_mode

    values = np.asarray(values)
    shape = np.broadcast_shapes(values.shape, np.shape(spec.scale), np.shape(spec.zero_point))
    scaled = values / spec.scale + spec.zero_point
    if spec.bipolar:
        integers = np.where(scaled >= 0, 1.0, -1.0)
    else:
        low, high = integer_range(spec)
        integers = resolve_rounding_mode(spec.rounding_mode)(np.clip(scaled, low, high))
    integers = np.broadcast_to(np.asarray(integers, dtype=np.float64) - np.asarray(spec.zero_point, np.float64), shape)
    quantum = np.broadcast_to(np.asarray(spec.scale, dtype=np.float64), shape)
    return integers.copy(), quantum.copy()


def one_exponent(step: Step, values: np.ndarray, what: str) -> int:
    """The exponent of a power-of-two scale that is one value for the whole tensor; else refused."""
    exponents = power_of_two_exponents(values)
    if exponents is None:
        raise step.unsupported(
            f'the {what} {shown(values)} is not a power of two; only power-of-two scales map to fixed-point types'
        )
    if np.any(exponents != exponents.reshape(-1)[0]):
        raise step.unsupported(f'per-channel {what}s are not supported here (one scale per tensor only)')
    return int(exponents.reshape(-1)[0])


def exact_without_rescale(spec: QuantSpec) -> bool:
    """Whether a Quant of a plain tensor is one write into a fixed-point type: one power-of-two scale,
    zero point 0 and a rounding mode fixed-point types have."""
    exponents = power_of_two_exponents(spec.scale)
    one_scale = exponents is not None and np.all(exponents == exponents.reshape(-1)[0])
    return bool(one_scale and not np.any(spec.zero_point) and spec.rounding_mode.upper() in ROUNDING)


def zero_only(step: Step, zero_point: np.ndarray) -> None:
    if np.any(np.asarray(zero_point) != 0):
        raise step.unsupported(f'zero point {shown(zero_point)}: only zero point 0 is supported here')


def whole_bits(step: Step, bit_width: np.ndarray, what: str) -> int:
    values = np.asarray(bit_width, dtype=np.float64).reshape(-1)
    bits = float(values[0]) if values.size else 0.0
    if np.any(values != bits) or bits != int(bits) or not 1 <= bits <= MAX_WIDTH:
        raise step.unsupported(f'{what} {shown(bit_width)} must be one whole number of bits from 1 to {MAX_WIDTH}')
    return int(bits)


def rounding(step: Step, mode: str, ceil_allowed: bool = False) -> str:
    """The fixed-point rounding of a qonnx mode ('CEIL' itself where the caller handles it)."""
    name = mode.upper()
    if name == CEIL and ceil_allowed:
        return CEIL
    if name not in ROUNDING:
        supported = sorted([*ROUNDING, CEIL]) if ceil_allowed else sorted(ROUNDING)
        raise step.unsupported(
            f'rounding_mode {mode!r} has no fixed-point equivalent; supported: {", ".join(supported)}'
        )
    return ROUNDING[name]


def saturation(step: Step, signed: bool, narrow: bool) -> str:
    if narrow and not signed:
        raise step.unsupported('the narrow unsigned range [0, 2^b - 2] has no fixed-point type')
    return 'SAT_SYM' if narrow else 'SAT'


def tensor_precision(step: Step, spec: QuantSpec) -> FixedPrecisionType:
    """The type a Quant writes a tensor into: fixed<b, b + e> for scale 2^e."""
    exponent = one_exponent(step, spec.scale, 'scale')
    zero_only(step, spec.zero_point)
    bits = whole_bits(step, spec.bit_width, 'bit width')
    mode = saturation(step, spec.signed, spec.narrow)
    return FixedPrecisionType(bits, bits + exponent, spec.signed, rounding(step, spec.rounding_mode), mode)


def node_spec(step: Step) -> QuantSpec:
    constants = [step.constant(index).values for index in range(1, len(step.node.input))]
    return quant_spec(step.node.op_type, constants, step.custom_op)


@dataclass(frozen=True)
class TruncSpec:
    """A Trunc in units of `unit` (the scale its input tensor is counted in: 1 for a plain tensor)."""

    input_exponent: int  # the input is read as integers of 2^input_exponent units
    input_bits: int
    output_exponent: int  # the output grid: 2^output_exponent units
    output_bits: int
    signed: bool
    narrow: bool
    rounding: str
    output_factor: float  # output_scale / the output grid: 1 unless the scales are not powers of two apart

    @property
    def output_type(self) -> FixedPrecisionType:
        saturation = 'SAT_SYM' if self.narrow else 'SAT'
        return FixedPrecisionType(
            self.output_bits, self.output_bits + self.output_exponent, self.signed, self.rounding, saturation
        )

    @property
    def declared_input(self) -> FixedPrecisionType:
        """The type the node declares its input to have (`input_bit_width` integers of `scale`),
        with a sign bit added when the output is unsigned."""
        bits = self.input_bits + (0 if self.signed else 1)
        return FixedPrecisionType(bits, bits + self.input_exponent, True)


def check_trunc_version(step: Step) -> None:
    from qonnx.custom_op.general.trunc import Trunc_v2

    if not isinstance(step.custom_op, Trunc_v2):
        raise step.unsupported(
            'Trunc of qonnx opset 1 (without an output scale) is not supported; export with qonnx opset 2 '
            '(current Brevitas does)'
        )


def trunc_spec(step: Step, unit: float = 1.0) -> TruncSpec:
    """The Trunc's spec counted in `unit`: its input scale must be a power of two of them."""
    check_trunc_version(step)
    scale, zero_point, input_bits, output_scale, output_bits = (step.constant(index).values for index in range(1, 6))
    zero_only(step, zero_point)
    signed, narrow = bool(step.custom_op.get_nodeattr('signed')), bool(step.custom_op.get_nodeattr('narrow'))
    saturation(step, signed, narrow)
    input_exponent = one_exponent(
        step, np.asarray(scale, dtype=np.float64) / unit, 'input scale (in units of its input)'
    )
    ratio = np.asarray(output_scale, dtype=np.float64).reshape(-1) / np.asarray(scale, np.float64).reshape(-1)
    if ratio.size != 1 or ratio[0] <= 0:
        raise step.unsupported(f'the output scale {shown(output_scale)} must be one positive value')
    shift = int(np.round(np.log2(ratio[0])))  # qonnx: trunc_scale = 2^round(log2(output_scale / scale))
    return TruncSpec(
        input_exponent,
        whole_bits(step, input_bits, 'input bit width'),
        input_exponent + shift,
        whole_bits(step, output_bits, 'output bit width'),
        signed,
        narrow,
        rounding(step, str(step.custom_op.get_nodeattr('rounding_mode'))),
        float(ratio[0] / 2.0**shift),
    )


def declared_average(step: Step, window: int, unit: float = 1.0) -> dict[str, FixedPrecisionType]:
    """Types for an average pooling read only by a Trunc that declares its input (Brevitas'
    TruncAvgPool): the average in the declared type, the sum `log2(window)` bits wider with the
    same LSB, so that the division is exact. Empty when nothing is declared or it cannot be exact.
    `unit`: the scale the pooled tensor is counted in (integer domain)."""
    follower = step.graph.follower(step.node) if step.graph is not None else None
    if follower is None or follower.op_type != 'Trunc' or window & (window - 1):
        return {}
    try:
        spec = trunc_spec(step.graph.step_for(follower), unit)
    except UnsupportedOperation:
        return {}  # the Trunc reports its own problem
    average = spec.declared_input
    extra = int(math.log2(window))
    accum = FixedPrecisionType(average.width + extra, average.integer + extra, True)
    return {'result': average, 'accum': accum}


def shown(values: np.ndarray) -> str:
    flat = np.asarray(values).reshape(-1)
    return str(flat[0]) if flat.size == 1 else f'of shape {np.asarray(values).shape}'
