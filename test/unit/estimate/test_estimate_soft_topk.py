"""The SoftTopK estimate for the settings added after p = 2 with l = 2^e: an l that is not a power of
two (constant products with 1 / l, where a power of two is a shift) and p = 4/3 (a square and a cube
per unit, no polish table), at the widths the lowering prints."""

from __future__ import annotations

from estimate_models import GraphBuilder, Origin, convert

from hls4ml.backends.devices import family_of
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.model import RULES
from hls4ml.model.graph import ModelGraph
from hls4ml.model.reference.soft_topk_cubic import layer_soft_topk_cubic_types

N, K = 8, 2


def soft_topk_model(strength: float, mode: str = 'mask', iterations: int = 12, p: float = 2.0) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (N,))
    y = builder.soft_topk(Origin('soft', 'SoftTopK'), x, K, strength, mode, iterations, p)
    builder.output(y, Origin('y', 'out'))
    return convert(builder)


def soft_topk_rule(model: ModelGraph):
    family, _ = family_of('xcvu13p-flga2577-2-e', 'amd')
    ctx = RuleContext(model.graph, family, 3.65, False)
    layer = model.graph.layers['soft']
    return RULES[layer.kind](layer, ctx)


def test_power_of_two_strength_needs_no_product_with_it() -> None:
    exact = soft_topk_rule(soft_topk_model(0.25)).cost.multipliers
    rounded = soft_topk_rule(soft_topk_model(0.3)).cost.multipliers
    assert len(exact) == 1  # the polish's one reciprocal product
    assert sum(multiplier.count for multiplier in rounded) >= 1 + N  # and 1 / l at each output


def test_cubic_units_by_hand() -> None:
    """14 steps and the outputs: 15 * 8 units, each a square (ramp x ramp) and a cube (cube x ramp);
    z = x / 4 is a shift, z = x / 0.3 adds 8 constant products."""
    model = soft_topk_model(0.25, iterations=14, p=4 / 3)
    layer = model.graph.layers['soft']
    types = layer_soft_topk_cubic_types(layer, model.graph.input_type(layer))  # type: ignore[arg-type]
    cubic = soft_topk_rule(model)
    shapes = sorted((m.count, m.data_bits, m.coefficient_bits) for m in cubic.cost.multipliers)
    assert shapes == sorted(
        [(15 * N, types.ramp.width, types.ramp.width), (15 * N, types.cube.width, types.ramp.width)]
    )
    assert cubic.cost.memories == [] and 'p = 4/3: 14 unrolled bisection steps' in cubic.notes[0]
    scaled = soft_topk_rule(soft_topk_model(0.3, iterations=14, p=4 / 3)).cost.multipliers
    assert sum(m.count for m in scaled) == 2 * 15 * N + N
