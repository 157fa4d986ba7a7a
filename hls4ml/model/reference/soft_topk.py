"""Reference of `nnet::soft_topk` (nnet_softtopk.h): sparse soft top-k, p = 2, bit for bit.

The kernel's internal types are computed here (`soft_topk_types`) from the input type, the result
type and the layer's attributes, and the lowering prints the same ones, so there is one source of
truth. Every sum and bound of the search is exact in its type; the only roundings are the polished
threshold (a product with a reciprocal table entry, written into threshold_t) and the outputs
(written into the result type). The error bound against the exact solution
(`soft_topk_exact.py`) is `soft_topk_error_bound`; docs/topk.md derives it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import as_samples, constant, integer, select, take
from hls4ml.model.shape_rules import SOFT_TOPK_P_CHOICES, soft_topk_power  # noqa: F401 (re-exported)
from hls4ml.model.types import FixedPrecisionType, SaturationMode

# sparse soft top-k, p = 2 (docs/topk.md): the soft mask in [0, 1], or x scaled towards 0 by magnitude
SOFT_TOPK_MODES = ('mask', 'magnitude')


RECIPROCAL_BITS = 52  # table entries are printed as doubles: at most 53 significant bits


@dataclass(frozen=True)
class SoftTopKTypes:
    keys: FixedPrecisionType  # abs_t: x (mask) or |x| (magnitude), exact
    threshold: FixedPrecisionType  # threshold_t: bracket bounds, midpoints, the polished threshold
    sum: FixedPrecisionType  # sum_t: the budget sums and the polish numerator, exact
    param: FixedPrecisionType  # param_t: 1/2, l, 1/l, k l, 1 + l, (1 + l) / l, 1 / (1 + l) rounded down
    recip: FixedPrecisionType  # recip_t: the polish reciprocals 1 / (m + l j) (mask: 1 / m)
    magnitude: FixedPrecisionType  # magnitude_t: |output| before its sign (the result's unsigned twin)
    strength: float  # the firmware's l: the layer's l, or l rounded to `strength_bits` fraction bits


def check_strength(strength: float) -> float:
    """The regularisation strength l as a float; anything but a positive finite number is refused."""
    if isinstance(strength, bool) or not (isinstance(strength, (int, float)) and strength > 0):
        raise ValueError(f'l={strength!r} must be a positive number')
    if not math.isfinite(strength):
        raise ValueError(f'l={strength!r} must be a positive number')
    return float(strength)


def is_power_of_two(strength: float) -> bool:
    """Whether l = 2^e: then x / l is a shift and every constant derived from l is exact."""
    return math.log2(check_strength(strength)).is_integer()


def strength_bits(strength: float, result: FixedPrecisionType, key_integer: int, mode: str, power: int = 1) -> int:
    """Fraction bits of the firmware's l. A power of two is exact; another l is rounded finely enough
    that the change of the exact solution it causes stays below 1/16 output LSB (docs/topk.md): the
    mask moves by at most `power` times the relative change of l, the magnitude form by at most
    theta (1 + 2 l) / l^2 times the change of l, theta < 2^key_integer."""
    below = math.floor(math.log2(check_strength(strength)))
    if is_power_of_two(strength):
        return max(-below, 0)
    spare = result.fractional + 3 - below + max(power - 1, 0).bit_length()
    if mode == 'mask':
        return spare
    return spare + key_integer + math.ceil(math.log2((1 + 2 * strength) / strength))


def firmware_strength(strength: float, bits: int) -> float:
    """l rounded to `bits` fraction bits (to nearest, at least one LSB): the l the kernel computes with."""
    scale = 2.0**bits
    return max(round(strength * scale), 1) / scale


def _bits(value: int) -> int:
    return max(int(value).bit_length(), 1)


def strength_exponents(strength: float) -> tuple[int, int, int]:
    """(floor log2 l, ceil log2 l, the larger of ceil log2 l and -floor log2 l): equal exponents for 2^e."""
    below, above = math.floor(math.log2(strength)), math.ceil(math.log2(strength))
    return below, above, max(above, -below)


def soft_topk_types(
    source: FixedPrecisionType,
    result: FixedPrecisionType,
    n_in: int,
    k: int,
    strength: float,
    iterations: int,
    mode: str,
) -> SoftTopKTypes:
    """Types wide enough that the search is exact and the polish rounds below 1/16 of an output LSB."""
    fraction, whole = source.fractional, source.integer
    strength_fraction = strength_bits(strength, result, whole, mode)
    strength = firmware_strength(check_strength(strength), strength_fraction)
    below, above, spread = strength_exponents(strength)
    if mode == 'mask':
        keys = source
        threshold_fraction = max(max(fraction, strength_fraction, 1) + iterations + 1, result.fractional - below + 4)
        threshold_integer = max(whole, above + 1) + 2
    else:
        keys = FixedPrecisionType(source.width, source.integer, False)
        ramp_bits = max(1, -below) + 1  # (1 + l) / l < 2^ramp_bits
        threshold_fraction = max(fraction + iterations + 1, result.fractional + 4 + ramp_bits)
        threshold_integer = whole + 2
    threshold = FixedPrecisionType(threshold_fraction + threshold_integer, threshold_integer, True)
    # the magnitude form's widths l * middle are products; the mask's budget only adds (the power of two
    # keeps its historical width)
    exact_sum = mode == 'magnitude' or is_power_of_two(strength)
    sum_fraction = threshold_fraction + (strength_fraction if exact_sum else 0)
    sum_integer = threshold_integer + max(_bits(n_in), _bits(k)) + max(above, 0) + 2
    param_integer = spread + _bits(k) + 2
    param_fraction = max(spread, 1) + max(threshold_fraction, strength_fraction)
    reciprocal = min(RECIPROCAL_BITS, threshold_fraction + sum_integer + 2)
    return SoftTopKTypes(
        keys=keys,
        threshold=threshold,
        sum=FixedPrecisionType(sum_fraction + sum_integer, sum_integer, True),
        param=FixedPrecisionType(param_fraction + param_integer, param_integer, False),
        recip=FixedPrecisionType(reciprocal + 1, 1, False),
        magnitude=unsigned_twin(result),
        strength=strength,
    )


def unsigned_twin(result: FixedPrecisionType) -> FixedPrecisionType:
    """The result type without its sign: same bits and modes, so |out| = 2^(I-1) (the most negative
    input passed through) fits, and -|out| rounds exactly as |out| does. (WRAP_SM, signed only,
    becomes WRAP: a magnitude below 2^(I-1) never wraps.)"""
    saturation = SaturationMode.WRAP if result.saturation_mode is SaturationMode.WRAP_SM else result.saturation_mode
    return FixedPrecisionType(
        result.width, result.integer, False, result.rounding_mode, saturation, result.saturation_bits
    )


def soft_topk_constants(k: int, strength: float) -> dict[str, float]:
    """The doubles of the config struct (from the firmware's l), each converted into param_t by the kernel."""
    return {
        'l': strength,
        'inv_l': 1 / strength,
        'k_l': k * strength,
        'one_plus_l': 1 + strength,
        'ramp': (1 + strength) / strength,
        'inv_one_plus_l': 1 / (1 + strength),
    }


def soft_topk_reciprocals(n_in: int, k: int, strength: float, mode: str) -> np.ndarray:
    """Entry m (k + 1) + j: 1 / (m + l j) (magnitude) or 1 / m (mask); 0 for m = 0."""
    middle = np.arange(n_in + 1)[:, np.newaxis]
    missing = np.arange(k + 1)[np.newaxis, :]
    denominator = middle + strength * missing if mode == 'magnitude' else np.broadcast_to(middle, (n_in + 1, k + 1))
    values = np.where(middle > 0, 1.0 / np.where(middle > 0, denominator, 1.0), 0.0)
    return values.reshape(-1)


def soft_topk_error_bound(
    types: SoftTopKTypes, result: FixedPrecisionType, strength: float, mode: str
) -> tuple[float, float]:
    """(polished, per_unit_bracket): |output - exact| <= polished + per_unit_bracket * 2^-iterations.

    `polished` covers the threshold's two roundings (the table entry, the write into threshold_t),
    one output LSB and, for an l that is not a power of two, the rounding of l, of 1 / l (mask) or
    of (1 + l) / l (magnitude); the second term is the bisection's last bracket, reached only when a
    breakpoint of the budget lies between its centre and the exact threshold (docs/topk.md).
    `strength` is the layer's l, the one the exact solution is computed with.
    """
    lsb, firmware = 2.0**-result.fractional, types.strength
    numerator = 2.0**types.sum.integer
    threshold_error = 2.0**-types.threshold.fractional + numerator * 2.0**-types.recip.fractional
    constants = {
        name: float(constant(value, types.param, 'ap').value)
        for name, value in soft_topk_constants(1, firmware).items()
    }
    if mode == 'mask':
        rounding = abs(strength - firmware) / strength + firmware * abs(1 / firmware - constants['inv_l'])
        return lsb + threshold_error / firmware + rounding, 1.0
    ramp, magnitude = (1 + firmware) / firmware, 2.0**types.keys.integer
    moved = magnitude * (1 + 2 * strength) / strength**2 * abs(strength - firmware)
    rounding = moved + magnitude * abs(ramp - constants['ramp'])
    return lsb + ramp * threshold_error + rounding, ramp * magnitude * firmware / (1 + firmware)


# ---- the kernel ----------------------------------------------------------------------------------


class _Search:
    """One layer's search: its settings and the param_t constants, as the kernel converts them."""

    def __init__(self, types: SoftTopKTypes, k: int, mode: str, family: str) -> None:
        self.types, self.k, self.strength, self.mode = types, k, types.strength, mode
        values = {**soft_topk_constants(k, types.strength), 'half': 0.5}
        param = {name: constant(value, types.param, family) for name, value in values.items()}
        self.l, self.inv_l, self.k_l, self.half = param['l'], param['inv_l'], param['k_l'], param['half']
        self.one_plus_l, self.ramp, self.inv_one_plus_l = param['one_plus_l'], param['ramp'], param['inv_one_plus_l']


def _column(values: FixedArray) -> FixedArray:
    return take(values, (slice(None), np.newaxis))


def _row_sum(values: FixedArray) -> FixedArray:
    """The exact sum of each row (the type is wide enough for every partial sum)."""
    return FixedArray(values.raw.sum(axis=1), values.type, values.family)


def _keys(rows: FixedArray, types: SoftTopKTypes, mode: str) -> FixedArray:
    if mode == 'magnitude':
        return select(rows.raw < 0, (-rows).cast(types.keys), rows.cast(types.keys))
    return rows.cast(types.keys)


def _spent(search: _Search, keys: FixedArray, t: FixedArray, width: FixedArray) -> FixedArray:
    """sum_i clip(key_i - t, 0, width) per row, in sum_t (`width`: a constant or one per row)."""
    sum_type = search.types.sum
    difference = (keys - _column(t)).cast(sum_type)
    width = width.cast(sum_type)
    width = _column(width) if width.raw.ndim else width
    clipped = select(difference < width, difference, width)  # select broadcasts the raw values
    return _row_sum(select(difference.raw > 0, clipped, integer(0, keys.family).cast(sum_type)))


def _bisect(search: _Search, keys: FixedArray, low: FixedArray, high: FixedArray, iterations: int):
    threshold = search.types.threshold
    for _ in range(iterations):
        middle = ((low + high) * search.half).cast(threshold)
        if search.mode == 'magnitude':
            width, budget = (search.l * middle).cast(search.types.sum), (search.k_l * middle).cast(search.types.sum)
            enough = ~(_spent(search, keys, middle, width) < budget)
        else:
            enough = ~(_spent(search, keys, middle, search.l) < search.k_l)
        low, high = select(enough, middle, low), select(enough, high, middle)
    return low, high


def _polish(search: _Search, keys: FixedArray, low: FixedArray, high: FixedArray, n_in: int) -> FixedArray:
    """The closed-form threshold on the segment of the bracket's centre, clamped into the bracket."""
    types, family, k = search.types, keys.family, search.k
    centre = ((low + high) * search.half).cast(types.threshold)
    difference = keys - _column(centre)
    width = _column((search.l * centre).cast(types.sum)) if search.mode == 'magnitude' else search.l
    saturated = ~(difference < width)
    middle = ~saturated & (difference.raw > 0)
    count, members = saturated.sum(axis=1), middle.sum(axis=1)
    zero = integer(0, family).cast(types.sum)
    middle_sum = _row_sum(select(middle, keys.cast(types.sum), zero))
    missing = np.clip(k - count, 0, k)
    reciprocals = quantize(soft_topk_reciprocals(n_in, k, search.strength, search.mode), types.recip, family)
    if search.mode == 'magnitude':
        entry = take(reciprocals, members * (k + 1) + missing)
        numerator = middle_sum
    else:
        entry = take(reciprocals, members * (k + 1))
        deficit = (search.k_l - search.l * quantize(count.astype(np.int64), 'int<32>', family)).cast(types.sum)
        numerator = (middle_sum - deficit).cast(types.sum)
    polished = (numerator * entry).cast(types.threshold)
    polished = select(high < polished, high, polished)
    polished = select(polished < low, low, polished)
    return select((members > 0) & (count <= k), polished, centre)


def _signed(rows: FixedArray, magnitudes: FixedArray, types: SoftTopKTypes, result: FixedPrecisionType):
    """|out| written into magnitude_t, then given the sign of x: out(-x) = -out(x) bit for bit."""
    positive = magnitudes.cast(types.magnitude)
    return select(rows.raw < 0, (-positive).cast(result), positive.cast(result))


def _outputs(search: _Search, rows: FixedArray, keys: FixedArray, t: FixedArray, result: FixedPrecisionType):
    family = rows.family
    difference = keys - _column(t)
    zero = integer(0, family).cast(result)
    if search.mode == 'magnitude':
        ramped = difference * search.ramp
        magnitudes = select(ramped < keys, ramped.cast(search.types.magnitude), keys.cast(search.types.magnitude))
        inside = _signed(rows, magnitudes, search.types, result)
    else:
        one = integer(1, family).cast(result)
        inside = select(difference < search.l, (difference * search.inv_l).cast(result), one)
    return select(difference.raw > 0, inside, zero)


def _hard(search: _Search, rows: FixedArray, rank: np.ndarray, result: FixedPrecisionType) -> FixedArray:
    zero = integer(0, rows.family).cast(result)
    if search.mode == 'magnitude':
        kept = _signed(rows, _keys(rows, search.types, 'magnitude'), search.types, result)
    else:
        kept = integer(1, rows.family).cast(result)
    return select(rank < search.k, kept, zero)


def soft_topk(
    x: FixedArray, k: int, strength: float, mode: str, iterations: int, types: SoftTopKTypes, result: FixedPrecisionType
) -> FixedArray:
    """Sparse soft top-k of each row (mode 'mask' or 'magnitude'), as `nnet::soft_topk` computes it; the
    kernel computes with the firmware's l, `types.strength` (`strength`, the layer's l, is checked)."""
    check_strength(strength)
    if mode not in SOFT_TOPK_MODES:
        raise ValueError(f'unknown soft top-k mode {mode!r}; expected one of {SOFT_TOPK_MODES}')
    rows = as_samples(x)
    n_samples, n_in = rows.shape
    search = _Search(types, k, mode, rows.family)
    keys = _keys(rows, types, mode)
    order = np.argsort(-keys.raw, axis=1, kind='stable')  # the all-pairs ranking, ties to the lower index
    rank = np.argsort(order, axis=1)
    hard = _hard(search, rows, rank, result)
    if k == n_in:
        return hard
    samples = np.arange(n_samples)
    kth, following = take(keys, (samples, order[:, k - 1])), take(keys, (samples, order[:, k]))
    if mode == 'magnitude':
        use_hard = ~(kth < following * search.one_plus_l)
        low = (kth * search.inv_one_plus_l).cast(types.threshold)
    else:
        use_hard = ~(kth - following < search.l)
        low = (kth - search.l).cast(types.threshold)
    high = following.cast(types.threshold)
    low, high = _bisect(search, keys, low, high, iterations)
    soft = _outputs(search, rows, keys, _polish(search, keys, low, high, n_in), result)
    return select(use_hard[:, np.newaxis], hard, soft)


def layer_soft_topk_types(layer: Layer, source: FixedPrecisionType) -> SoftTopKTypes:
    """The internal types of a SoftTopK layer (shared by the lowering and the interpreter)."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    if soft_topk_power(attributes.get('p', 2.0), attributes['mode']) != 1:
        raise ValueError(f'{layer.describe()}: p = {attributes.get("p")} has the types of soft_topk_cubic.py')
    return soft_topk_types(
        source,
        result,
        attributes['n_in'],
        attributes['k'],
        attributes['l'],
        attributes['iterations'],
        attributes['mode'],
    )
