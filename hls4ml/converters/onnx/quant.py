"""QONNX quantizers (`Quant`, `BipolarQuant`, `Trunc`) -> exact fixed-point types.

qonnx semantics (`qonnx/custom_op/general/intquant.py`, `bipolar_quant.py`, `trunc.py`):

* `Quant(x, scale, zeropt, bitwidth; signed, narrow, rounding_mode)`:
  `y = (round(clip(x / scale + zeropt, min_int, max_int)) - zeropt) * scale`; clipping before
  rounding to an integer range equals rounding then saturating. With zero point 0 and scale `2^e`
  this is writing `x` into `fixed<b, b + e>` with the mode's rounding and saturation (SAT, or
  SAT_SYM for the narrow signed range). A 1-bit signed Quant is bipolar (`x >= 0 ? +s : -s`).
* `BipolarQuant(x, scale)`: `(x >= 0 ? 1 : -1) * scale`.
* `Trunc` (qonnx opset 2, as Brevitas exports it): `x` is read as integers of `scale` (rounded half
  to even), rescaled to `output_scale`, clipped to `output_bit_width` and rounded with
  `rounding_mode`: two writes, one into a type of LSB `scale`, one into the output type.

Quantizers of constants (weights, biases) fold into the constant; `precision_of_constant` gives the
exact type of the folded values for the consuming layer. Quantizers of tensors become
`builder.quantize` (folded into the producer's result type by the builder when that is exact).
Anything without an exact fixed-point equivalent (a scale that is not a power of two on a tensor, a
non-zero zero point, rounding toward +inf) is refused with the reason.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.builder import UnsupportedOperation
from hls4ml.converters.onnx.step import Constant, Handler, Operand, Step, framework_constant, registrar
from hls4ml.model.passes.infer_precision import integer_bits
from hls4ml.model.types import MAX_WIDTH, FixedPrecisionType

HANDLERS: dict[str, Handler] = {}
handles = registrar(HANDLERS)

QONNX_OPS = ('Quant', 'BipolarQuant', 'Trunc')
# qonnx rounding_mode -> fixed-point rounding (fixed-point.md section 3.1); CEIL and UP have none
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


def _integer_range(spec: QuantSpec) -> tuple[int, int]:
    """The integers a quantizer produces before the zero point and scale are applied."""
    if spec.bipolar:
        return -1, 1
    bits = int(spec.bit_width.reshape(-1).max())
    if spec.signed:
        return -(2 ** (bits - 1)) + int(spec.narrow), 2 ** (bits - 1) - 1
    return 0, 2**bits - 1 - int(spec.narrow)


def precision_of_constant(spec: QuantSpec, where: str) -> FixedPrecisionType | None:
    """The narrowest type holding every value a quantizer of a constant can produce, exactly; None
    (with a warning) when the scale is not a power of two, so the values are not fixed-point."""
    exponents = power_of_two_exponents(spec.scale)
    zero_point = np.asarray(spec.zero_point, dtype=np.float64)
    whole = np.all(zero_point == np.round(zero_point)) and np.all(spec.bit_width == np.round(spec.bit_width))
    if exponents is None or not whole:
        warnings.warn(
            f'{where}: the quantized constant has a scale that is not a power of two (or a fractional zero '
            'point or bit width); its float values are used with an inferred type, so the result is not bit-exact',
            UserWarning,
            stacklevel=2,
        )
        return None
    low, high = _integer_range(spec)
    scale = np.asarray(spec.scale, dtype=np.float64)
    ends = np.concatenate([((low - zero_point) * scale).reshape(-1), ((high - zero_point) * scale).reshape(-1)])
    lowest, highest = float(ends.min()), float(ends.max())
    signed = lowest < 0
    integer = integer_bits(lowest, highest, signed)
    width = max(integer - int(exponents.min()), 1)
    return FixedPrecisionType(width, integer, signed)


def _one_exponent(step: Step, values: np.ndarray, what: str) -> int:
    exponents = power_of_two_exponents(values)
    if exponents is None:
        raise step.unsupported(
            f'the {what} {_shown(values)} is not a power of two; only power-of-two scales map to fixed-point types'
        )
    if np.any(exponents != exponents.reshape(-1)[0]):
        raise step.unsupported(f'per-channel {what}s on a tensor are not supported (one scale per tensor only)')
    return int(exponents.reshape(-1)[0])


def _zero(step: Step, zero_point: np.ndarray) -> None:
    if np.any(np.asarray(zero_point) != 0):
        raise step.unsupported(
            f'zero point {_shown(zero_point)}: only symmetric quantizers (zero point 0) of tensors are supported'
        )


def _bits(step: Step, bit_width: np.ndarray, what: str) -> int:
    values = np.asarray(bit_width, dtype=np.float64).reshape(-1)
    bits = float(values[0]) if values.size else 0.0
    if np.any(values != bits) or bits != int(bits) or not 1 <= bits <= MAX_WIDTH:
        raise step.unsupported(f'{what} {_shown(bit_width)} must be one whole number of bits from 1 to {MAX_WIDTH}')
    return int(bits)


def _rounding(step: Step, mode: str) -> str:
    rounding = ROUNDING.get(mode.upper())
    if rounding is None:
        raise step.unsupported(
            f'rounding_mode {mode!r} has no fixed-point equivalent; supported: {", ".join(sorted(ROUNDING))}'
        )
    return rounding


def _saturation(step: Step, signed: bool, narrow: bool) -> str:
    if narrow and not signed:
        raise step.unsupported('the narrow unsigned range [0, 2^b - 2] has no fixed-point type')
    return 'SAT_SYM' if narrow else 'SAT'


def tensor_precision(step: Step, spec: QuantSpec) -> FixedPrecisionType:
    """The type a Quant writes a tensor into: fixed<b, b + e> for scale 2^e."""
    exponent = _one_exponent(step, spec.scale, 'scale')
    _zero(step, spec.zero_point)
    bits = _bits(step, spec.bit_width, 'bit width')
    saturation = _saturation(step, spec.signed, spec.narrow)
    return FixedPrecisionType(bits, bits + exponent, spec.signed, _rounding(step, spec.rounding_mode), saturation)


def _spec(step: Step) -> QuantSpec:
    constants = [step.constant(index).values for index in range(1, len(step.node.input))]
    return quant_spec(step.node.op_type, constants, step.custom_op)


@handles('Quant', 'BipolarQuant')
def quant(step: Step) -> Operand:
    x, spec = step.tensor(0), _spec(step)
    if not spec.bipolar:
        return step.builder.quantize(step.origin, x, tensor_precision(step, spec))
    _zero(step, spec.zero_point)
    if power_of_two_exponents(spec.scale) is None:
        raise step.unsupported(f'the scale {_shown(spec.scale)} is not a power of two')
    signs = step.builder.activation(step.origin, x, 'bipolar')
    if np.all(spec.scale == 1):
        return signs
    scale = framework_constant(step, Constant(spec.scale), x)
    return step.builder.affine(step.sub_origin('scale'), signs, scale=scale)


@dataclass(frozen=True)
class TruncSpec:
    input_exponent: int  # the input is read as integers of 2^input_exponent
    input_bits: int
    output_exponent: int
    output_bits: int
    signed: bool
    narrow: bool
    rounding: str

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


def trunc_spec(step: Step) -> TruncSpec:
    from qonnx.custom_op.general.trunc import Trunc_v2

    if not isinstance(step.custom_op, Trunc_v2):
        raise step.unsupported(
            'Trunc of qonnx opset 1 (without an output scale) is not supported; export with qonnx opset 2 '
            '(current Brevitas does)'
        )
    scale, zero_point, input_bits, output_scale, output_bits = (step.constant(index).values for index in range(1, 6))
    _zero(step, zero_point)
    signed, narrow = bool(step.custom_op.get_nodeattr('signed')), bool(step.custom_op.get_nodeattr('narrow'))
    _saturation(step, signed, narrow)
    return TruncSpec(
        _one_exponent(step, scale, 'scale'),
        _bits(step, input_bits, 'input bit width'),
        _one_exponent(step, output_scale, 'output scale'),
        _bits(step, output_bits, 'output bit width'),
        signed,
        narrow,
        _rounding(step, str(step.custom_op.get_nodeattr('rounding_mode'))),
    )


@handles('Trunc')
def trunc(step: Step) -> Operand:
    """Round to the input scale (half to even), then write into the output type; one write when the
    scales are equal. The first write saturates two bits above the output's MSB, where the second
    write saturates anyway, so clipping it early changes nothing."""
    x, spec = step.tensor(0), trunc_spec(step)
    final = spec.output_type
    if spec.output_exponent == spec.input_exponent:
        return step.builder.quantize(step.origin, x, final.replace(rounding_mode='RND_CONV'))
    integer = final.integer + 2
    width = integer - spec.input_exponent
    if not 1 <= width <= MAX_WIDTH:
        raise step.unsupported(f'the input scale 2^{spec.input_exponent} is out of proportion to the output type')
    rounded = FixedPrecisionType(width, integer, True, 'RND_CONV', 'SAT')
    return step.builder.quantize(step.origin, step.builder.quantize(step.sub_origin('round'), x, rounded), final)


def declared_average(step: Step, window: int) -> dict[str, FixedPrecisionType]:
    """Types for an average pooling read only by a Trunc that declares its input (Brevitas'
    TruncAvgPool): the average in the declared type, the sum `log2(window)` bits wider with the
    same LSB, so that the division is exact. Empty when nothing is declared or it cannot be exact."""
    follower = step.graph.follower(step.node) if step.graph is not None else None
    if follower is None or follower.op_type != 'Trunc' or window & (window - 1):
        return {}
    try:
        spec = trunc_spec(step.graph.step_for(follower))
    except UnsupportedOperation:
        return {}  # the Trunc reports its own problem
    average = spec.declared_input
    extra = int(math.log2(window))
    accum = FixedPrecisionType(average.width + extra, average.integer + extra, True)
    return {'result': average, 'accum': accum}


def _shown(values: np.ndarray) -> str:
    flat = np.asarray(values).reshape(-1)
    return str(flat[0]) if flat.size == 1 else f'of shape {np.asarray(values).shape}'
