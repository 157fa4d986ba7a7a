"""Reference of `nnet::soft_topk_cubic` (nnet_softtopk_cubic.h): the sparse soft top-k mask with p = 4/3.

With p = 4/3 (q = 4, the reference code's default) the mask is y_i = clip(u_i, 0, 1)^3 with
u_i = (x_i - t) / l and t such that sum y = k (seed-layers.md B.2 "General p"). The kernel scales once,
z = x (1 / l) (B.6 step 1; a shift when l = 2^e), and then works with l = 1: y_i = clip(z_i - tau, 0, 1)^3.
The budget is cubic between its breakpoints, so there is no linear closed form to polish with: the
kernel bisects on [z_(k) - 1, z_(k+1)] and reads the outputs at the centre of the last bracket.

z is rounded down into abs_t; every u = z - tau is rounded down into ramp_t, every cube u * u * u into
cube_t (the square first); the budget sum is exact in sum_t. The roundings after z are towards zero,
so the computed budget never exceeds the exact one (for that z): `soft_topk_cubic_error_bound` rests
on it (docs/topk.md derives the bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import as_samples, constant, integer, select, take
from hls4ml.model.reference.soft_topk import check_strength
from hls4ml.model.types import FixedPrecisionType

CUBIC_POWER = 3  # the ramp's exponent q - 1 for p = 4/3
SCALE_GUARD = 6  # fraction bits of z beyond the result's: its rounding moves y by < 6 2^-(F+6)


@dataclass(frozen=True)
class CubicTypes:
    keys: FixedPrecisionType  # abs_t: z = x (1 / l), rounded down (exact when l = 2^e)
    threshold: FixedPrecisionType  # threshold_t: bracket bounds and midpoints in z units, exact
    param: FixedPrecisionType  # param_t: 1/2, 1 / l rounded down
    ramp: FixedPrecisionType  # ramp_t: u = z - tau in [0, 1], rounded down
    cube: FixedPrecisionType  # cube_t: u^2 and u^3, rounded down
    sum: FixedPrecisionType  # sum_t: the budget sum_i u_i^3, exact


def soft_topk_cubic_types(
    source: FixedPrecisionType, result: FixedPrecisionType, n_in: int, k: int, strength: float, iterations: int
) -> CubicTypes:
    """z with SCALE_GUARD more fraction bits than the result (all of x / 2^e when l = 2^e); exact
    midpoints (z's fraction bits + iterations + 1); u and the cubes with log2(n_in) + 4 more fraction
    bits than the result, so that n_in of their roundings stay small; 1 / l to a relative 2^-(F + 6)."""
    below, above = math.floor(math.log2(check_strength(strength))), math.ceil(math.log2(strength))
    scale_fraction = max(result.fractional + SCALE_GUARD, source.fractional - below)
    scale_integer = source.integer - below + 1
    threshold_fraction = scale_fraction + iterations + 1
    ramp_fraction = result.fractional + 4 + max(n_in.bit_length(), 1)
    count_bits = max(n_in.bit_length(), k.bit_length(), 1)
    param_fraction = max(result.fractional + SCALE_GUARD + above, above, 1)
    param_integer = max(-below, 0) + 2
    return CubicTypes(
        keys=FixedPrecisionType(scale_fraction + scale_integer, scale_integer, True),
        threshold=FixedPrecisionType(threshold_fraction + scale_integer + 2, scale_integer + 2, True),
        param=FixedPrecisionType(param_fraction + param_integer, param_integer, False),
        ramp=FixedPrecisionType(ramp_fraction + 1, 1, False),
        cube=FixedPrecisionType(ramp_fraction + 1, 1, False),
        sum=FixedPrecisionType(ramp_fraction + count_bits + 1, count_bits + 1, False),
    )


def soft_topk_cubic_constants(strength: float) -> dict[str, float]:
    """The double of the config struct, converted into param_t (rounded down) by the kernel."""
    return {'inv_l': 1 / strength}


def soft_topk_cubic_error_bound(
    types: CubicTypes, result: FixedPrecisionType, strength: float, n_in: int
) -> tuple[float, float]:
    """(rounded, per_unit_bracket): |y - exact| <= rounded + per_unit_bracket * 2^-iterations.

    eta bounds the error of one computed cube (all round down): 3 2^-R + 2 2^-C. The bracket's low end
    always has the computed z's exact budget >= k; the output at the centre is within 3 times half a
    bracket of that z's exact one, plus n_in eta when the exact threshold lies past the high end; then
    one more eta and one LSB for the outputs. The rounding of z moves y by at most 6 2^-Z, the
    rounding of 1 / l (the firmware's l = 1 / inv_l) by 3 |l - l_q| / l.
    """
    inv_l = float(constant(1 / strength, types.param, 'ap').value)
    eta = CUBIC_POWER * 2.0**-types.ramp.fractional + 2 * 2.0**-types.cube.fractional
    scaled = 2 * CUBIC_POWER * 2.0**-types.keys.fractional
    moved = CUBIC_POWER * abs(strength - 1 / inv_l) / strength
    return 2.0**-result.fractional + (n_in + 1) * eta + scaled + moved, CUBIC_POWER / 2


# ---- the kernel ----------------------------------------------------------------------------------


class _Cubic:
    """One layer's constants, as the kernel converts them into param_t, and its u and cube rounding."""

    def __init__(self, types: CubicTypes, strength: float, family: str) -> None:
        self.types, self.family = types, family
        self.inv_l = constant(1 / strength, types.param, family)
        self.half = constant(0.5, types.param, family)
        self.one = integer(1, family)

    def cubes(self, keys: FixedArray, t: FixedArray) -> FixedArray:
        """clip(u, 0, 1)^3 per entry: u = z - tau rounded into ramp_t, then u^2, u^3 into cube_t."""
        types, family = self.types, self.family
        difference = keys - take(t, (slice(None), np.newaxis))
        u = difference.cast(types.ramp)
        square = (u * u).cast(types.cube)
        cube = (square * u).cast(types.cube)
        one, zero = self.one.cast(types.cube), integer(0, family).cast(types.cube)
        inside = select(difference < self.one, cube, one)
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
    """The p = 4/3 soft top-k mask of each row, as `nnet::soft_topk_cubic` computes it."""
    check_strength(strength)
    rows = as_samples(x)
    n_samples, n_in = rows.shape
    cubic = _Cubic(types, strength, rows.family)
    keys = (rows * cubic.inv_l).cast(types.keys)
    order = np.argsort(-keys.raw, axis=1, kind='stable')  # the all-pairs ranking, ties to the lower index
    rank = np.argsort(order, axis=1)
    one, zero = integer(1, rows.family).cast(result), integer(0, rows.family).cast(result)
    hard = select(rank < k, one, zero)
    if k == n_in:
        return hard
    samples = np.arange(n_samples)
    kth, following = take(keys, (samples, order[:, k - 1])), take(keys, (samples, order[:, k]))
    use_hard = ~(kth - following < cubic.one)
    low, high = (kth - cubic.one).cast(types.threshold), following.cast(types.threshold)
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
