"""Reference of `nnet::soft_topk_cubic` (nnet_softtopk_cubic.h): the sparse soft top-k mask with p = 4/3.

With p = 4/3 (q = 4, the reference code's default) the mask is y_i = clip(u_i, 0, 1)^3 with
u_i = (x_i - t) / l and t such that sum y = k (seed-layers.md B.2 "General p"). The budget is cubic
between its breakpoints, so there is no linear closed form to polish with: the kernel bisects on the
same bracket as p = 2, [x_(k) - l, x_(k+1)], and reads the outputs at the centre of the last bracket.

Every u is d * (1 / l) rounded down into ramp_t (d = x_i - t exact), every cube u * u * u rounded down
into cube_t (the square first); the budget sum is exact in sum_t. All of these round towards zero, so
the computed budget never exceeds the exact one: the error bound of `soft_topk_cubic_error_bound`
rests on that (docs/topk.md derives it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import as_samples, constant, integer, select, take
from hls4ml.model.reference.soft_topk import check_strength, firmware_strength, strength_bits, strength_exponents
from hls4ml.model.types import FixedPrecisionType

CUBIC_POWER = 3  # the ramp's exponent q - 1 for p = 4/3


@dataclass(frozen=True)
class CubicTypes:
    keys: FixedPrecisionType  # abs_t: the input, as the ranking compares it
    threshold: FixedPrecisionType  # threshold_t: bracket bounds and midpoints, exact
    param: FixedPrecisionType  # param_t: 1/2, l (exact), 1 / l (rounded down)
    ramp: FixedPrecisionType  # ramp_t: u = (x - t) / l in [0, 1], rounded down
    cube: FixedPrecisionType  # cube_t: u^2 and u^3, rounded down
    sum: FixedPrecisionType  # sum_t: the budget sum_i u_i^3, exact
    strength: float  # the firmware's l


def soft_topk_cubic_types(
    source: FixedPrecisionType, result: FixedPrecisionType, n_in: int, k: int, strength: float, iterations: int
) -> CubicTypes:
    """Exact midpoints (the input's and l's fraction bits + iterations + 1); u and the cubes with
    log2(n_in) + 4 more fraction bits than the result, so that n_in of their roundings stay small."""
    strength_fraction = strength_bits(strength, result, source.integer, 'mask', CUBIC_POWER)
    strength = firmware_strength(check_strength(strength), strength_fraction)
    below, above, spread = strength_exponents(strength)
    threshold_fraction = max(source.fractional, strength_fraction, 1) + iterations + 1
    threshold_integer = max(source.integer, above + 1) + 2
    ramp_fraction = result.fractional + 4 + max(n_in.bit_length(), 1)
    count_bits = max(n_in.bit_length(), k.bit_length(), 1)
    param_fraction = max(spread, 1) + max(threshold_fraction, ramp_fraction + max(above, 0) + 2)
    return CubicTypes(
        keys=source,
        threshold=FixedPrecisionType(threshold_fraction + threshold_integer, threshold_integer, True),
        param=FixedPrecisionType(param_fraction + spread + 2, spread + 2, False),
        ramp=FixedPrecisionType(ramp_fraction + 1, 1, False),
        cube=FixedPrecisionType(ramp_fraction + 1, 1, False),
        sum=FixedPrecisionType(ramp_fraction + count_bits + 1, count_bits + 1, False),
        strength=strength,
    )


def soft_topk_cubic_constants(strength: float) -> dict[str, float]:
    """The doubles of the config struct (from the firmware's l), each converted into param_t."""
    return {'l': strength, 'inv_l': 1 / strength}


def soft_topk_cubic_error_bound(
    types: CubicTypes, result: FixedPrecisionType, strength: float, n_in: int
) -> tuple[float, float]:
    """(rounded, per_unit_bracket): |y - exact| <= rounded + per_unit_bracket * 2^-iterations.

    eta bounds the error of one computed cube (all round down): 3 (2^-R + l (1/l - inv_l)) + 2^-C twice.
    The bracket's low end always has the exact budget >= k; the output at the centre is within
    3 / l half a bracket of the exact one, plus n_in eta when the exact threshold lies past the high
    end; then one more eta and one LSB for the outputs, and 3 |l - l_q| / l for the firmware's l.
    """
    firmware = types.strength
    inv_l = float(constant(1 / firmware, types.param, 'ap').value)
    ramp_error = 2.0**-types.ramp.fractional + firmware * (1 / firmware - inv_l)
    eta = CUBIC_POWER * ramp_error + 2 * 2.0**-types.cube.fractional
    moved = CUBIC_POWER * abs(strength - firmware) / strength
    return 2.0**-result.fractional + (n_in + 1) * eta + moved, CUBIC_POWER / 2


# ---- the kernel ----------------------------------------------------------------------------------


class _Cubic:
    """One layer's constants, as the kernel converts them into param_t, and its u and cube rounding."""

    def __init__(self, types: CubicTypes, family: str) -> None:
        self.types, self.family = types, family
        self.l = constant(types.strength, types.param, family)
        self.inv_l = constant(1 / types.strength, types.param, family)
        self.half = constant(0.5, types.param, family)

    def cubes(self, keys: FixedArray, t: FixedArray) -> FixedArray:
        """clip(u, 0, 1)^3 per entry, u = (key - t) (1 / l) rounded into ramp_t, then u^2, u^3 into cube_t."""
        types, family = self.types, self.family
        difference = keys - take(t, (slice(None), np.newaxis))
        u = (difference * self.inv_l).cast(types.ramp)
        square = (u * u).cast(types.cube)
        cube = (square * u).cast(types.cube)
        one, zero = integer(1, family).cast(types.cube), integer(0, family).cast(types.cube)
        inside = select(difference < self.l, cube, one)
        return select(difference.raw > 0, inside, zero)


def _bisect(cubic: _Cubic, keys: FixedArray, low: FixedArray, high: FixedArray, k: int, iterations: int):
    types = cubic.types
    for _ in range(iterations):
        middle = ((low + high) * cubic.half).cast(types.threshold)
        spent = cubic.cubes(keys, middle).cast(types.sum)
        enough = spent.raw.sum(axis=1) >= integer(k, keys.family).cast(types.sum).raw
        low, high = select(enough, middle, low), select(enough, high, middle)
    return low, high


def soft_topk_cubic(
    x: FixedArray, k: int, strength: float, iterations: int, types: CubicTypes, result: FixedPrecisionType
) -> FixedArray:
    """The p = 4/3 soft top-k mask of each row, as `nnet::soft_topk_cubic` computes it (with the
    firmware's l, `types.strength`; `strength`, the layer's l, is checked)."""
    check_strength(strength)
    rows = as_samples(x)
    n_samples, n_in = rows.shape
    cubic = _Cubic(types, rows.family)
    keys = rows.cast(types.keys)
    order = np.argsort(-keys.raw, axis=1, kind='stable')  # the all-pairs ranking, ties to the lower index
    rank = np.argsort(order, axis=1)
    one, zero = integer(1, rows.family).cast(result), integer(0, rows.family).cast(result)
    hard = select(rank < k, one, zero)
    if k == n_in:
        return hard
    samples = np.arange(n_samples)
    kth, following = take(keys, (samples, order[:, k - 1])), take(keys, (samples, order[:, k]))
    use_hard = ~(kth - following < cubic.l)
    low, high = (kth - cubic.l).cast(types.threshold), following.cast(types.threshold)
    low, high = _bisect(cubic, keys, low, high, k, iterations)
    centre = ((low + high) * cubic.half).cast(types.threshold)
    soft = cubic.cubes(keys, centre).cast(result)
    return select(use_hard[:, np.newaxis], hard, soft)


def layer_soft_topk_cubic_types(layer: Layer, source: FixedPrecisionType) -> CubicTypes:
    """The internal types of a SoftTopK layer with p = 4/3 (shared by the lowering and the interpreter)."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    n_in, k, strength = attributes['n_in'], attributes['k'], attributes['l']
    return soft_topk_cubic_types(source, result, n_in, k, strength, attributes['iterations'])
