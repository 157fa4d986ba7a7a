"""Our fixed-point types as da4ml's quantizers see them: (signed, integer bits, fraction bits) and modes.

da4ml's `quantize` knows the rounding modes TRN (toward -inf) and RND (nearest, ties toward +inf) and the
overflow modes WRAP, SAT and SAT_SYM, with the semantics of ap_fixed's modes of the same names; they round
first and then handle the overflow, as ap_fixed does. The other modes (TRN_ZERO, RND_ZERO, RND_MIN_INF,
RND_INF, RND_CONV, SAT_ZERO, WRAP_SM, saturation bits) have no such quantizer: a model that writes into
one of them is refused by name rather than approximated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.types import FixedPrecisionType, PrecisionType, RoundingMode, SaturationMode

ROUNDING = {RoundingMode.TRN: 'TRN', RoundingMode.RND: 'RND'}
OVERFLOW = {SaturationMode.WRAP: 'WRAP', SaturationMode.SAT: 'SAT', SaturationMode.SAT_SYM: 'SAT_SYM'}


class UnsupportedInRTL(ValueError):
    """A layer, type or setting the Verilog backend cannot express exactly."""


@dataclass(frozen=True)
class Quantizer:
    """One write into a fixed-point type, in da4ml's terms."""

    signed: int
    integer: int  # integer bits without the sign bit
    fraction: int
    overflow: str
    rounding: str

    def apply(self, values: Any) -> Any:
        """`values` (a da4ml FixedVariableArray or FixedVariable) written into the type."""
        if self.overflow == 'WRAP' and not self.signed:
            values = _lifted(values, 2.0**self.integer)
        return values.quantize(self.signed, self.integer, self.fraction, self.overflow, self.rounding)


def _lifted(values: Any, modulus: float) -> Any:
    """`values` with a multiple of `modulus` added where a value can be negative, so none can.

    da4ml 0.6 wraps a possibly negative value into an unsigned type modulo the input's own width when
    that is narrower than the type's (-0.125 into ufixed<5,2> gives 1.875, not 3.875). Adding a multiple
    of the type's modulus changes neither the rounding (it lies on the grid) nor the wrapped result."""
    if not hasattr(values, '_vars'):
        low = float(values.low)
        return values + modulus * math.ceil(-low / modulus) if low < 0 else values
    flat = [_lifted(value, modulus) for value in np.asarray(values._vars).ravel()]
    lifted = np.array(flat, dtype=object).reshape(np.asarray(values._vars).shape)
    return type(values)(lifted, values.solver_options, hwconf=values.hwconf)


def quantizer(precision: PrecisionType, where: str) -> Quantizer:
    """The da4ml quantizer of `precision`; UnsupportedInRTL naming `where` when it has none."""
    if not isinstance(precision, FixedPrecisionType):
        raise UnsupportedInRTL(f'{where}: type {precision} is not a fixed-point type')
    rounding = ROUNDING.get(precision.rounding_mode)
    overflow = OVERFLOW.get(precision.saturation_mode)
    if rounding is None or overflow is None or precision.saturation_bits:
        raise UnsupportedInRTL(
            f'{where}: type {precision} uses a mode the Verilog backend has no exact logic for (it supports '
            'the rounding modes TRN and RND and the overflow modes WRAP, SAT and SAT_SYM without saturation '
            'bits); choose one of those in the config'
        )
    signed = int(precision.signed)
    return Quantizer(signed, precision.integer - signed, precision.fractional, overflow, rounding)
