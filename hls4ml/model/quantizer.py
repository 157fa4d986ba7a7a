"""The heterogeneous fixed-point quantizer (IR kind `FixedPointQuantizer`): what it computes and the types
and constants its kernel needs.

A quantizer holds `n_params` triples (keep_negative k, integer bits i, fraction bits f) and one rounding
and one overflow mode (WRAP, SAT or SAT_SYM). Value j of its input uses triple p = j % n_params, so one
array serves a per-element quantizer (n_params = n_in), a per-channel one on a channels-last tensor
(n_params = channels) and a uniform one (n_params = 1). Value j becomes x_j written into
`fixed<k+i+f, k+i, signed=k, rounding, overflow>`, as HGQ2's quantizers compute it at inference; it is 0
when that type has no bits (k+i+f <= 0) or holds only 0 (SAT_SYM with k = 1 and one bit: its
symmetric range is [-0, 0]). Such values are *pruned*.

The result type is the exact container of every triple: signed when any live triple keeps negatives,
as many fraction bits as the finest, as many integer bits as the widest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hls4ml.model.ir import Layer
from hls4ml.model.types import FixedPrecisionType, RoundingMode

OVERFLOW_MODES = ('WRAP', 'SAT', 'SAT_SYM')
PARAMETERS = ('keep_negative', 'integer_bits', 'fraction_bits')  # the layer's weights, n_params each
# rounding modes whose result after a truncation to a finer grid equals the result on the exact value
FLOOR_BASED = ('TRN', 'RND')


@dataclass(frozen=True)
class Triples:
    """The (k, i, f) triples of a quantizer as integer arrays, with its modes."""

    keep_negative: np.ndarray
    integer: np.ndarray
    fraction: np.ndarray
    rounding: str
    overflow: str

    @property
    def bits(self) -> np.ndarray:
        return self.keep_negative + self.integer + self.fraction

    @property
    def live(self) -> np.ndarray:
        """The triples whose values are not all 0."""
        only_zero = (self.overflow == 'SAT_SYM') & (self.keep_negative == 1) & (self.bits == 1)
        return (self.bits > 0) & ~only_zero


def triples_of(layer: Layer) -> Triples:
    k, i, f = (np.asarray(layer.weights[name], dtype=np.float64).astype(np.int64) for name in PARAMETERS)
    return Triples(k, i, f, layer.attributes['rounding'], layer.attributes['overflow'])


def element_type(k: int, i: int, f: int, rounding: str, overflow: str) -> FixedPrecisionType:
    """The type one live triple writes into."""
    return FixedPrecisionType(k + i + f, k + i, bool(k), rounding, overflow)


def container_type(triples: Triples) -> FixedPrecisionType:
    """The narrowest type holding every output exactly (ufixed<1,1>, i.e. only 0, when all are pruned)."""
    live = triples.live
    if not live.any():
        return FixedPrecisionType(1, 1, False)
    k, i, f = triples.keep_negative[live], triples.integer[live], triples.fraction[live]
    signed = bool(k.any())
    fraction = int(f.max())
    integer = int((i + (1 if signed else 0)).max())
    return FixedPrecisionType(integer + fraction, integer, signed)


def feeding_type(triples: Triples) -> FixedPrecisionType:
    """A type for a model input that this quantizer reads first, chosen so that quantizing the input
    value written into it gives what quantizing the float32 value itself gives (docs/quantization.md):
    truncation one bit below the finest LSB for TRN/RND (floor(floor(y)/2^n + c) = floor(y/2^n + c));
    25 bits below it for the other modes (a float32 at or above a quarter LSB has no bits beyond that,
    a smaller one rounds to 0 either way). Two integer bits more than the widest triple: wrapping into
    it keeps every value's residue, saturating it keeps every value's side of each range."""
    live = triples.live
    fraction = int(triples.fraction[live].max(initial=0))
    integer = int(triples.integer[live].max(initial=0)) + 2
    extra = 1 if triples.rounding in FLOOR_BASED else 25
    overflow = 'WRAP' if triples.overflow == 'WRAP' else 'SAT'
    return FixedPrecisionType(integer + fraction + extra, integer, True, 'TRN', overflow)


@dataclass(frozen=True)
class KernelConstants:
    """What `nnet::quantize_saturate` / `nnet::quantize_wrap` read (docs/kernels.md): per triple the
    scale 2^f, the LSB 2^-f (0 when pruned), the bounds in LSBs, and for WRAP the modulus 2^b and 2^-b;
    the types of those arrays and of the rounded integer."""

    arrays: dict[str, np.ndarray]
    types: dict[str, FixedPrecisionType]


def kernel_constants(triples: Triples) -> KernelConstants:
    live = triples.live
    k = np.where(live, triples.keep_negative, 0)
    f = np.where(live, triples.fraction, 0)
    bits = np.where(live, triples.bits, 0)
    symmetric = 1 if triples.overflow == 'SAT_SYM' else 0
    half = np.ldexp(1.0, (bits - 1).astype(np.int64))
    low = np.where(k == 1, -half + symmetric, 0.0)
    high = np.where(k == 1, half - 1, np.ldexp(1.0, bits) - 1)
    arrays = {
        'scale': np.ldexp(1.0, f),
        'lsb': np.where(live, np.ldexp(1.0, -f), 0.0),
        'low': np.where(live, low, 0.0),
        'high': np.where(live, high, 0.0),
        'modulus': np.ldexp(1.0, bits),
        'inverse': np.ldexp(1.0, -bits),
    }
    return KernelConstants(arrays, _kernel_types(triples, f, bits, k))


def _kernel_types(triples: Triples, f: np.ndarray, bits: np.ndarray, k: np.ndarray) -> dict[str, FixedPrecisionType]:
    rounded_width = int(max((bits + 1 - k).max(initial=0), 2))
    low_f, high_f = int(f.min(initial=0)), int(f.max(initial=0))
    widest = int(max(bits.max(initial=0), 1))
    overflow = 'WRAP' if triples.overflow == 'WRAP' else 'SAT'
    rounding = RoundingMode.from_string(triples.rounding)
    return {
        'rounded': FixedPrecisionType(rounded_width, rounded_width, True, rounding, overflow),
        'scale': FixedPrecisionType(high_f - low_f + 1, high_f + 1, False),
        'lsb': FixedPrecisionType(high_f - low_f + 1, -low_f + 1, False),
        'modulus': FixedPrecisionType(widest + 1, widest + 1, False),
        'inverse': FixedPrecisionType(widest + 1, 1, False),
        'wrapped': FixedPrecisionType(widest, 0, False),
    }


def period(values: list[np.ndarray], channels: int) -> int:
    """The fewest parameters that describe per-element arrays of one flattened channels-last tensor:
    1 (uniform), `channels` (per channel) or all of them."""
    size = values[0].size
    if all(np.all(array == array[0]) for array in values):
        return 1
    if channels and size % channels == 0:
        rows = [array.reshape(-1, channels) for array in values]
        if all(np.all(row == row[0]) for row in rows):
            return channels
    return size
