"""Rules of the routers added after the top-k work's first two (docs/moe.md, docs/estimator.md).

SoftTopKRouter (`nnet_router_soft.h`), per token: the max of the logits (n - 1 compare-selects), n
exp-table reads; the softmax's sum, reciprocal read and n products when p is read (mask on p, or no
renormalisation); the soft top-k mask of the keys (the all-pairs ranking, `iterations` unrolled
bisection steps of n clipped differences and a sum, the polish's product and n clipped outputs, at the
widths of `reference.soft_topk.soft_topk_types`) and a second all-pairs ranking of the keys for k_max
(a tool may share the two; counted twice; with p = 4/3 the mask is `mask_cubic.cubic_mask_cost`'s,
no reciprocal table); then m e (n products), their sum, one reciprocal read and n
products (renormalise) or m p (n products). io_parallel unrolls one row per token; io_stream one row.
"""

from __future__ import annotations

from hls4ml.estimate.context import LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.kinds_other import table_memories
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.mask_cubic import cubic_mask_cost, ranking
from hls4ml.estimate.primitives import Cost, Memory, Multiplier, Range, index_bits, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.soft_router import (
    MaskTypes,
    SoftRouterSettings,
    is_cubic,
    layer_soft_router_settings,
    mask_key_types,
    soft_expert_choice_types,
)
from hls4ml.model.reference.soft_topk import SoftTopKTypes
from hls4ml.model.reference.soft_topk_cubic import CubicTypes
from hls4ml.model.types import FixedPrecisionType


def _mask_cost(cost: Cost, ctx: RuleContext, sizes: tuple[int, int, int, int], types: SoftTopKTypes) -> Range:
    """One soft top-k mask of n keys (sizes: n, k, iterations, mask bits) and one more ranking of its
    keys; returns the delay of the chain."""
    n, k, iterations, mask = sizes
    key, threshold, total, rank = types.keys.width, types.threshold.width, types.sum.width, index_bits(n)
    cost.adder_bits += 2 * (n * (n - 1) // 2 * key + n * (n - 1))  # two all-pairs rankings
    cost.logic_bits += 2 * n * rank + n * (rank + mask) + 4 * threshold  # k-th keys, hard mask, fast path
    cost.adder_bits += iterations * (threshold + n * (threshold + total))  # bisection
    cost.logic_bits += iterations * (2 * n * threshold + total + 2 * threshold)
    cost.adder_bits += n * (threshold + 2 * total + 2 * rank) + n * threshold  # polish, outputs
    cost.logic_bits += n * threshold + 4 * threshold + n * (2 * threshold + mask)
    recip = types.recip.width
    cost.memories.append(Memory('rom', (n + 1) * (k + 1), recip, label='reciprocal table'))
    polish = [Multiplier(1, total, recip)]
    cost.add_multipliers(polish)
    step = ctx.add_ns(threshold) + ctx.compare_ns(threshold) + ctx.add_ns(total, tree_levels(n))
    ranking = ctx.compare_ns(key) + ctx.add_ns(rank, tree_levels(n))
    return ranking + step.scale(iterations) + ctx.multiply_ns(polish) + ctx.compare_ns(threshold, 3)


def _any_mask_cost(
    cost: Cost, ctx: RuleContext, sizes: tuple[int, int, int, int], types: MaskTypes, keys: tuple[float, int]
) -> Range:
    """The mask by its kernel (keys: l and the keys' bits): p = 2 as `_mask_cost`; p = 4/3 the cubic
    kernel's cost and the second ranking of the keys for k_max."""
    if not isinstance(types, CubicTypes):
        return _mask_cost(cost, ctx, sizes, types)
    n, _, iterations, mask = sizes
    ranking(cost, n, keys[1])
    return cubic_mask_cost(cost, ctx, (n, iterations), keys[0], types, (keys[1], mask))


def _row_cost(cost: Cost, ctx: RuleContext, layer: Layer, settings: SoftRouterSettings) -> Range:
    """One token's row; returns the delay of its chain (the table reads are added by the caller)."""
    n, data_bits = layer.attributes['n_in'], ctx.input_bits(layer)
    exp_bits, result = ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'result')
    cost.logic_bits += (n - 1) * 2 * data_bits  # the max
    cost.adder_bits += n * data_bits  # r - r_max
    chain = ctx.compare_ns(data_bits, tree_levels(n)) + ctx.add_ns(data_bits)
    if settings.mask_on == 'probabilities' or not settings.renormalize:
        accum = settings.accum.width
        cost.adder_bits += n * accum
        softmax = [Multiplier(n, exp_bits, ctx.type_bits(layer, 'inv_table'))]
        cost.add_multipliers(softmax)
        chain = chain + ctx.add_ns(accum, tree_levels(n)) + ctx.multiply_ns(softmax)
    source = ctx.graph.input_type(layer)
    assert isinstance(source, FixedPrecisionType)
    sizes = (n, settings.k, settings.iterations, settings.mask.width)
    key_bits = source.width if settings.mask_on == 'logits' else settings.probability.width
    types = mask_key_types(settings, source, n)
    chain = chain + _any_mask_cost(cost, ctx, sizes, types, (settings.strength, key_bits))
    cost.logic_bits += n * (2 + result) + n  # kept, the output selects, the overflow count
    if settings.output == 'overflow':
        return chain
    if settings.renormalize:
        weight = settings.weight.width
        products = [
            Multiplier(n, settings.mask.width, exp_bits),
            Multiplier(n, weight, ctx.type_bits(layer, 'norm_table')),
        ]
        cost.adder_bits += n * weight
        cost.add_multipliers(products)
        return (
            chain + ctx.multiply_ns(products[:1]) + ctx.add_ns(weight, tree_levels(n)) + ctx.multiply_ns(products[1:])
        )
    products = [Multiplier(n, settings.mask.width, settings.probability.width)]
    cost.add_multipliers(products)
    return chain + ctx.multiply_ns(products)


def soft_expert_columns(cost: Cost, ctx: RuleContext, layer: Layer) -> Range:
    """Soft expert choice: per expert the soft top-k of its column of n_tokens gates (k = capacity) and
    n_tokens products mask x gate (the ranking of the hard expert choice is not built)."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    tokens, experts, capacity = attributes['n_tokens'], attributes['n_in'], attributes['capacity']
    strength, iterations = attributes['l'], attributes['iterations']
    mask, types = soft_expert_choice_types(result, tokens, capacity, strength, iterations, attributes.get('p', 2.0))
    column = Cost()
    sizes = (tokens, capacity, iterations, mask.width)
    chain = _any_mask_cost(column, ctx, sizes, types, (strength, result.width))
    cost.adder_bits += experts * column.adder_bits
    cost.logic_bits += experts * column.logic_bits
    cost.memories += column.memories
    products = [Multiplier(experts * tokens, mask.width, result.width)]
    cost.add_multipliers(products)
    cost.add_multipliers([Multiplier(m.count * experts, m.data_bits, m.coefficient_bits) for m in column.multipliers])
    return chain + ctx.multiply_ns(products)


@estimator_rule(Kind.SOFT_TOPK_ROUTER)
def soft_router(layer: Layer, ctx: RuleContext) -> LayerModel:
    """One row per token: io_parallel unrolls every row (copies = tokens) in one pipeline; io_stream
    routes one row per element with one copy."""
    n = layer.attributes['n_in']
    source = ctx.graph.input_type(layer)
    if not isinstance(source, FixedPrecisionType):
        raise TypeError(f'{layer.describe()}: a soft router of a {source} input')
    settings = layer_soft_router_settings(layer, source)
    rows = max(ctx.input_size(layer) // n, 1)
    copies = 1 if ctx.io_stream else rows
    row = Cost()
    chain = _row_cost(row, ctx, layer, settings)
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    cost.adder_bits, cost.logic_bits = copies * row.adder_bits, copies * row.logic_bits
    cost.add_multipliers(
        [Multiplier(m.count * copies, m.data_bits, m.coefficient_bits, m.digits) for m in row.multipliers]
    )
    cost.memories += row.memories
    memories, block_ram = table_memories(layer, ctx, {'exp_': copies * n, 'inv_': copies, 'norm_': copies})
    cost.memories += memories
    depth = ctx.cycles(chain, ctx.read_cycles(block_ram or in_block_ram(0)).scale(3))
    iterations = settings.iterations
    ramp = 'cubic ramps (p = 4/3)' if is_cubic(settings.p) else 'linear ramps'
    notes = [
        f'{copies} soft top-k masks of {n} experts, {ramp}, {iterations} bisection steps each; k_max {settings.k_max}'
    ]
    if ctx.io_stream and rows > 1:
        latency, interval = stream_schedule(depth, rows)
        return LayerModel(cost, latency, interval, depth, notes, coarse=True)
    latency, interval = pipelined(depth, int(layer.attributes.get('reuse_factor', 1)))
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)
