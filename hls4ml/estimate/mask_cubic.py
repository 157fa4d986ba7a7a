"""The cost of one p = 4/3 soft top-k mask (`nnet_softtopk_cubic.h`), shared by the SoftTopK rule and the
soft routers' rules (docs/estimator.md): z = x (1 / l) (n constant products, shifts for l = 2^e), the
all-pairs ranking of z and the fast path, then per bisection step and for the outputs n units of a
difference, a square and a cube, and the budget's sum. Also the all-pairs ranking of nnet_topk.h that
the selection rules count."""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.primitives import (
    Cost,
    Multiplier,
    Range,
    constant_multipliers,
    index_bits,
    raw_values,
    tree_levels,
)
from hls4ml.model.reference.soft_topk import is_power_of_two
from hls4ml.model.reference.soft_topk_cubic import CubicTypes


def ranking(cost: Cost, n: int, bits: int, copies: int = 1) -> None:
    """`copies` all-pairs rankings of nnet_topk.h: n (n - 1) / 2 comparators and n vote counters each."""
    cost.adder_bits += copies * (n * (n - 1) // 2 * bits + n * (n - 1))


def ranking_ns(ctx: RuleContext, n: int, bits: int) -> Range:
    return ctx.compare_ns(bits) + ctx.add_ns(index_bits(n), tree_levels(n))


def cubic_mask_cost(
    cost: Cost, ctx: RuleContext, sizes: tuple[int, int], strength: float, types: CubicTypes, widths: tuple[int, int]
) -> Range:
    """Adds one mask of n values (sizes: n, iterations; widths: the keys' and the mask's bits) to `cost`
    and returns the delay of its chain."""
    (n, iterations), (source, result) = sizes, widths
    key, threshold, total = types.keys.width, types.threshold.width, types.sum.width
    ramp, cube, rank = types.ramp.width, types.cube.width, index_bits(n)
    ranking(cost, n, key)
    cost.logic_bits += 2 * n * rank + 2 * key * math.ceil(n / 3) + n * (rank + result) + 2 * threshold
    cost.adder_bits += 2 * threshold
    scale = (
        []
        if is_power_of_two(strength)
        else constant_multipliers(raw_values(np.array([1 / strength]), types.param), source, n)
    )
    units = (iterations + 1) * n  # the cube units of every step and of the outputs
    powers = [Multiplier(units, ramp, ramp), Multiplier(units, cube, ramp)]
    cost.add_multipliers(scale + powers)
    cost.adder_bits += units * threshold + iterations * (threshold + n * total)
    cost.logic_bits += units * (2 * threshold + cube) + iterations * (total + 2 * threshold)
    unit = ctx.add_ns(threshold) + ctx.multiply_ns(powers[:1]) + ctx.multiply_ns(powers[1:])
    step = unit + ctx.add_ns(total, tree_levels(n)) + ctx.compare_ns(total)
    chain = ctx.multiply_ns(scale) + ranking_ns(ctx, n, key) + ctx.compare_ns(threshold)
    return chain + step.scale(iterations) + unit
