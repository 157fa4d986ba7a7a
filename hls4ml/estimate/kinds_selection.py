"""Rules of the selection layers added after top-k: sparse soft top-k and the two MoE routers.

SoftTopK (`nnet_softtopk.h`): the keys, the all-pairs ranking of top-k, the fast-path test, then
`iterations` unrolled bisection steps of n clipped differences and a sum each, a polish step (a
reciprocal-table product) and n clipped outputs, at the widths the lowering chooses
(`reference.soft_topk.layer_soft_topk_types`). Router (`nnet_router.h`): k passes of an argmax tree
(k (n - 1) compare-selects), then (unless the output is the indices) exp-table reads and a sum over
the k chosen (renormalize) or all experts, one reciprocal read and one product per gate.
ExpertChoiceRouter: io_parallel, the softmax of every token's row, then an all-pairs ranking of
every expert's column; io_stream, a softmax row per token and an insertion queue per expert.
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.kinds_other import softmax_rows, table_memories
from hls4ml.estimate.kinds_products import mux_luts
from hls4ml.estimate.kinds_routers import soft_expert_columns
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.mask_cubic import cubic_mask_cost, ranking, ranking_ns
from hls4ml.estimate.primitives import (
    Cost,
    Memory,
    Multiplier,
    Range,
    constant_multipliers,
    index_bits,
    raw_values,
    tree_levels,
)
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.sinkhorn import DEFAULT_PLAN_BITS, sinkhorn_types
from hls4ml.model.reference.soft_topk import (
    SoftTopKTypes,
    is_power_of_two,
    layer_soft_topk_types,
    soft_topk_constants,
    soft_topk_power,
)
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER, layer_soft_topk_cubic_types
from hls4ml.model.types import FixedPrecisionType


@estimator_rule(Kind.SOFT_TOPK)
def soft_topk(layer: Layer, ctx: RuleContext) -> LayerModel:
    attributes = layer.attributes
    n, k, iterations = attributes['n_in'], attributes['k'], int(attributes['iterations'])
    source = ctx.graph.input_type(layer)
    if not isinstance(source, FixedPrecisionType):
        raise TypeError(f'soft top-k of a {source} input')
    if soft_topk_power(attributes.get('p', 2.0), attributes['mode']) == CUBIC_POWER:
        return _soft_topk_cubic(layer, ctx, source)
    types = layer_soft_topk_types(layer, source)
    key, threshold, total = types.keys.width, types.threshold.width, types.sum.width
    result, rank = ctx.type_bits(layer, 'result'), index_bits(n)
    magnitude = attributes['mode'] == 'magnitude'
    cost = Cost(register_bits=Range.exact(n * result))
    cost.adder_bits += n * key * magnitude  # |x|
    ranking(cost, n, key)
    cost.logic_bits += 2 * n * rank + 2 * key * math.ceil(n / 3)  # the k-th and (k+1)-th keys
    cost.logic_bits += n * (rank + result) + 2 * threshold  # the hard top-k and the fast-path test
    cost.adder_bits += 2 * threshold  # the gap (mask) and the bracket's low end
    scaled = _soft_topk_constants(cost, layer, types, (key, threshold, n, iterations))
    # bisection: the midpoint, n clipped differences summed, the budget test, the bracket update
    cost.adder_bits += iterations * (threshold + n * (threshold + total))
    cost.logic_bits += iterations * (2 * n * threshold + total + 2 * threshold)
    # polish: differences and width tests, two counters, the middle sum, the deficit, two clamps
    cost.adder_bits += n * (threshold + 2 * total + 2 * rank)
    cost.logic_bits += n * threshold + 4 * threshold
    recip = types.recip.width
    cost.memories.append(Memory('rom', (n + 1) * (k + 1), recip, label='reciprocal table'))
    polish = [Multiplier(1, total, recip)]
    cost.add_multipliers(polish)
    # outputs: differences, tests and selects (magnitude: a negation)
    cost.adder_bits += n * (threshold + result * magnitude)
    cost.logic_bits += n * (2 * threshold + result)
    step = ctx.add_ns(threshold) + ctx.compare_ns(threshold) + ctx.add_ns(total, tree_levels(n))
    step = step + ctx.compare_ns(total) + ctx.multiply_ns(scaled)
    polished = ctx.compare_ns(threshold) + ctx.add_ns(total, tree_levels(n)) + ctx.multiply_ns(polish)
    chain = ranking_ns(ctx, n, key) + ctx.compare_ns(threshold) + step.scale(iterations) + polished
    chain = chain + ctx.compare_ns(threshold, 3) + ctx.multiply_ns(scaled)  # clamps, the outputs
    depth = ctx.cycles(chain, ctx.read_cycles(in_block_ram((n + 1) * (k + 1) * recip)))
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    notes = [f'{iterations} unrolled bisection steps of {n} clipped differences; {threshold}-bit thresholds']
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)


def _soft_topk_cubic(layer: Layer, ctx: RuleContext, source: FixedPrecisionType) -> LayerModel:
    """p = 4/3: one mask of `mask_cubic.cubic_mask_cost`."""
    attributes = layer.attributes
    n, iterations = attributes['n_in'], int(attributes['iterations'])
    types = layer_soft_topk_cubic_types(layer, source)
    result = ctx.type_bits(layer, 'result')
    cost = Cost(register_bits=Range.exact(n * result))
    chain = cubic_mask_cost(cost, ctx, (n, iterations), attributes['l'], types, (source.width, result))
    latency, interval = pipelined(ctx.cycles(chain), int(attributes.get('reuse_factor', 1)))
    units = (iterations + 1) * n
    notes = [f'p = 4/3: {iterations} unrolled bisection steps of {n} cubes ({2 * units} multipliers)']
    return LayerModel(cost, ctx.vector_latency(latency), interval, ctx.cycles(chain), notes, coarse=True)


def _soft_topk_constants(
    cost: Cost, layer: Layer, types: SoftTopKTypes, sizes: tuple[int, int, int, int]
) -> list[Multiplier]:
    """The constant products with the firmware's l (shifts when l is a power of two): the mask's 1 / l
    per output; the magnitude form's (1 + l) and 1 / (1 + l) of the fast path, l and k l per step, the
    ramp (1 + l) / l per output."""
    key, threshold, n, iterations = sizes
    constants = soft_topk_constants(layer.attributes['k'], types.strength)

    def raw(name: str) -> list[int]:
        return raw_values(np.array([constants[name]]), types.param)

    exact = is_power_of_two(types.strength)  # l, 1 / l: shifts
    if layer.attributes['mode'] != 'magnitude':
        multipliers = [] if exact else constant_multipliers(raw('inv_l'), threshold, n)
        cost.add_multipliers(multipliers)
        return multipliers
    multipliers = constant_multipliers(raw('one_plus_l') + raw('inv_one_plus_l'), key)
    multipliers += constant_multipliers(([] if exact else raw('l')) + raw('k_l'), threshold, iterations)
    multipliers += constant_multipliers(raw('ramp'), threshold, n)
    cost.add_multipliers(multipliers)
    return multipliers


@estimator_rule(Kind.ROUTER)
def router(layer: Layer, ctx: RuleContext) -> LayerModel:
    """One token's router per row of n_in logits: io_parallel unrolls every row (copies = rows) in one
    pipeline; io_stream routes one row per element with one copy."""
    attributes = layer.attributes
    n, k = attributes['n_in'], attributes['k']
    rows = max(ctx.input_size(layer) // n, 1)
    copies = 1 if ctx.io_stream else rows
    data_bits, rank, result = ctx.input_bits(layer), index_bits(n), ctx.type_bits(layer, 'result')
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * result))
    cost.logic_bits += copies * (k * (n - 1) * (2 * data_bits + rank + 1) + k * n)  # compare-selects; taken flags
    chain, read = ctx.compare_ns(data_bits, tree_levels(n)).scale(k), Range(0, 0)
    if attributes['output'] != 'indices':
        gates, read = _router_gates(cost, ctx, layer, copies)
        chain = chain + gates
    if attributes['output'] == 'gates':  # res[e] = the gate of the s with chosen[s] == e
        cost.logic_bits += copies * n * k * (rank + result)
    capacity = attributes.get('capacity', 0)
    if capacity:
        chain = chain + _capacity(cost, ctx, rows * k, rank, result)
    if attributes.get('sinkhorn_iterations'):
        chain = chain + _sinkhorn(cost, ctx, layer, rows)
    depth = ctx.cycles(chain, read)
    per_token = f' per token, {rows} tokens' if rows > 1 else ''
    notes = [f'{copies * k * (n - 1)} comparators ({k} argmax passes{per_token})']
    if capacity:
        notes.append(
            f'capacity {capacity}: {rows * k * (rows * k - 1) // 2} expert-equality comparators over the group'
        )
    if ctx.io_stream and capacity and rows > 1:  # the group is read whole, routed, then written (2 rows)
        latency, interval = stream_schedule(depth + Range.exact(rows), rows)
        cost.register_bits += Range.exact(rows * n * data_bits)
        return LayerModel(cost, latency, interval + Range.exact(rows), depth, notes, coarse=True)
    if ctx.io_stream and rows > 1:
        latency, interval = stream_schedule(depth, rows)
        return LayerModel(cost, latency, interval, depth, notes, coarse=True)
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)


def _capacity(cost: Cost, ctx: RuleContext, choices: int, rank: int, result: int) -> Range:
    """router_capacity_kept: an equality comparator of expert indices for every pair of the group's
    choices, a count per choice compared with the capacity, a select per gate."""
    count = index_bits(choices)
    cost.logic_bits += choices * (choices - 1) // 2 * rank + choices * (count + result)
    cost.adder_bits += choices * (choices - 1) // 2
    return ctx.compare_ns(rank) + ctx.add_ns(count, tree_levels(choices)) + ctx.compare_ns(count)


def _sinkhorn(cost: Cost, ctx: RuleContext, layer: Layer, rows: int) -> Range:
    """router_sinkhorn: rows x experts exp reads, then per iteration every row's and every column's sum and
    an exact restoring division of each entry (fraction + 1 compare-subtract steps of remainder_t)."""
    attributes = layer.attributes
    n, iterations = attributes['n_in'], attributes['sinkhorn_iterations']
    plan, remainder = sinkhorn_types(attributes.get('sinkhorn_bits', DEFAULT_PLAN_BITS), rows, n)
    steps, width, entries = plan.fractional + 1, remainder.width, rows * n
    cost.adder_bits += iterations * 2 * entries * (width + steps * (width + plan.width))
    cost.logic_bits += iterations * 2 * entries * steps * width + entries * ctx.input_bits(layer)
    cost.register_bits += Range.exact(entries * plan.width)
    division = (ctx.add_ns(width) + ctx.compare_ns(width)).scale(steps)
    line = ctx.add_ns(width, tree_levels(max(rows, n))) + division
    return line.scale(2 * iterations)


def _router_gates(cost: Cost, ctx: RuleContext, layer: Layer, copies: int) -> tuple[Range, Range]:
    """router_gate_values, `copies` times: the chosen logits (multiplexers), r - r_max and an exp read
    for each of the k chosen (and for all n experts without renormalize), the sum, one reciprocal read,
    k products. Returns the delay and the cycles of the two reads in sequence."""
    attributes = layer.attributes
    n, k, data_bits = attributes['n_in'], attributes['k'], ctx.input_bits(layer)
    summed = k if attributes['renormalize'] else n
    exp_reads = k if attributes['renormalize'] else k + n
    memories, block_ram = table_memories(layer, ctx, {'exp_': copies * exp_reads, 'inv_': copies})
    cost.memories += memories
    accum = ctx.type_bits(layer, 'accum')
    cost.logic_bits += copies * k * data_bits * mux_luts(n)
    cost.adder_bits += copies * (exp_reads * data_bits + summed * accum)
    products = [Multiplier(copies * k, ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'inv_table'))]
    cost.add_multipliers(products)
    chain = ctx.add_ns(data_bits) + ctx.add_ns(accum, tree_levels(summed)) + ctx.multiply_ns(products)
    return chain, ctx.read_cycles(block_ram).scale(2)


@estimator_rule(Kind.EXPERT_CHOICE_ROUTER)
def expert_choice(layer: Layer, ctx: RuleContext) -> LayerModel:
    """io_parallel: the stable softmax of the n_tokens rows, then per expert the all-pairs rank of its
    column (n_tokens (n_tokens - 1) / 2 comparators) and n_tokens tests rank < capacity."""
    if layer.attributes.get('l', 0) > 0:
        return _soft_expert_choice(layer, ctx)
    if ctx.io_stream:
        return _expert_choice_stream(layer, ctx)
    attributes = layer.attributes
    experts, tokens = attributes['n_in'], attributes['n_tokens']
    gate, rank = ctx.type_bits(layer, 'result'), index_bits(tokens)
    cost = Cost(register_bits=Range.exact(tokens * experts * gate))
    rows = softmax_rows(cost, ctx, layer, tokens * experts, experts, 'stable')
    ranking(cost, tokens, gate, experts)
    cost.logic_bits += experts * tokens * (rank + gate)
    ranked = ctx.cycles(ranking_ns(ctx, tokens, gate) + ctx.compare_ns(rank))
    latency, interval = pipelined(rows + ranked, int(attributes.get('reuse_factor', 1)))
    notes = [f'{experts * tokens * (tokens - 1) // 2} comparators ({experts} rankings of {tokens} tokens)']
    return LayerModel(cost, latency, interval, rows + ranked, notes, coarse=True)


def _soft_expert_choice(layer: Layer, ctx: RuleContext) -> LayerModel:
    """nnet_router_soft.h: the softmax rows, then a soft top-k per expert column (kinds_routers); io_stream
    reads the group whole, runs the same kernel and writes it."""
    attributes = layer.attributes
    experts, tokens = attributes['n_in'], attributes['n_tokens']
    cost = Cost(register_bits=Range.exact(tokens * experts * ctx.type_bits(layer, 'result')))
    rows = softmax_rows(cost, ctx, layer, tokens * experts, experts, 'stable')
    depth = rows + ctx.cycles(soft_expert_columns(cost, ctx, layer))
    notes = [f'{experts} soft top-k masks of {tokens} tokens, {attributes["iterations"]} bisection steps each']
    if ctx.io_stream:
        latency, interval = stream_schedule(depth + Range.exact(tokens), tokens)
        return LayerModel(cost, latency, interval + Range.exact(tokens), depth, notes, coarse=True)
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    return LayerModel(cost, latency, interval, depth, notes, coarse=True)


def _expert_choice_stream(layer: Layer, ctx: RuleContext) -> LayerModel:
    """nnet_router_stream.h: per token a softmax row and an offer to every expert's queue of capacity
    (gate, token) entries (capacity comparators, a shift); the rows kept; then per token the queue
    look-ups. The loops carry no pragmas: low, the expert loops pipelined at II 1; high, every offer
    and look-up walking its queue slot by slot."""
    attributes = layer.attributes
    experts, tokens, capacity = attributes['n_in'], attributes['n_tokens'], attributes['capacity']
    gate, token = ctx.type_bits(layer, 'result'), index_bits(tokens)
    cost = Cost(register_bits=Range.exact(experts * (capacity * (gate + token) + token)))
    row = softmax_rows(cost, ctx, layer, experts, experts, 'stable')
    cost.logic_bits += experts * capacity * (2 * gate + gate + token)  # compare, shift of gate and token
    cost.logic_bits += experts * (capacity * token + gate)  # holds(): token tests; the gate select
    cost.memories.append(Memory('ram', tokens, experts * gate, label='gate rows'))
    offer = Range(experts, experts * (2 * capacity + 1))
    lookup = Range(experts, experts * (capacity + 1))
    reading = (row + offer).scale(tokens)
    busy = reading + lookup.scale(tokens) + LOOP_OVERHEAD_CYCLES.scale(2)
    notes = [f'{experts} insertion queues of {capacity}; the output waits for the whole group of {tokens}']
    return LayerModel(cost, busy, busy, reading + lookup, notes, coarse=True)
