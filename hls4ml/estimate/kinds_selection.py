"""Rules of the selection layers added after top-k: sparse soft top-k and the MoE router.

Both are coarse: their internal types (thresholds, sums, reciprocals) are chosen by the lowering, so
the widths here are the input width plus the few guard bits the kernels' comments describe.
SoftTopK (`nnet_softtopk.h`): the all-pairs ranking of top-k, then `iterations` unrolled bisection
steps of n clipped differences and a sum each, a polish step (a reciprocal-table product) and n
clipped outputs. Router (`nnet_router.h`): k passes of an argmax tree (k (n - 1) compare-selects),
exp-table reads and a sum over the k chosen (renormalize) or all experts, one reciprocal read and
one product per gate.
"""

from __future__ import annotations

import math

from hls4ml.estimate.context import LayerModel, RuleContext, pipelined
from hls4ml.estimate.primitives import Cost, Memory, Multiplier, Range, tree_levels
from hls4ml.model.ir import Layer

GUARD_BITS = 2  # thresholds hold x - l and midpoints: a little wider than the data
RECIPROCAL_BITS = 18


def _ranking(cost: Cost, n: int, bits: int) -> None:
    """The all-pairs ranking of nnet_topk.h: n (n - 1) / 2 comparators and n vote counters."""
    cost.adder_bits += n * (n - 1) // 2 * bits + n * (n - 1)


def soft_topk(layer: Layer, ctx: RuleContext) -> LayerModel:
    attributes = layer.attributes
    n, k, iterations = attributes['n_in'], attributes['k'], int(attributes.get('iterations', 12))
    data_bits = ctx.input_bits(layer)
    threshold = data_bits + GUARD_BITS
    total = threshold + math.ceil(math.log2(max(n, 2)))
    cost = Cost(register_bits=Range.exact(n * ctx.type_bits(layer, 'result')))
    _ranking(cost, n, data_bits)
    rank_bits = max(math.ceil(math.log2(n)), 1)
    cost.logic_bits += 2 * n * rank_bits + 2 * data_bits * math.ceil(n / 3)  # the k-th and (k+1)-th keys
    steps = iterations + 2  # the bisection, the polish, the outputs: n differences, clips and a sum each
    cost.adder_bits += steps * n * (threshold + total) + n * data_bits * (attributes.get('mode') == 'magnitude')
    cost.logic_bits += steps * (2 * n * threshold + total)
    cost.add_multipliers([Multiplier(1, total, RECIPROCAL_BITS)])
    cost.memories.append(Memory('rom', (n + 1) * (k + 1), RECIPROCAL_BITS, label='reciprocal table'))
    per_step = ctx.add_ns(threshold) + ctx.add_ns(total, tree_levels(n)) + ctx.compare_ns(total)
    ranking = ctx.compare_ns(data_bits) + ctx.add_ns(rank_bits, tree_levels(n))
    chain = ranking + per_step.scale(steps) + ctx.multiply_ns(cost.multipliers)
    depth = ctx.cycles(chain, Range(0, 2))
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    notes = [f'{iterations} unrolled bisection steps of {n} clipped differences']
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)


def router(layer: Layer, ctx: RuleContext) -> LayerModel:
    attributes = layer.attributes
    n, k = attributes['n_in'], attributes['k']
    data_bits, accum = ctx.input_bits(layer), ctx.type_bits(layer, 'accum')
    exp_bits, inv_bits = ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'inv_table')
    summed = k if attributes.get('renormalize', True) else n
    size = int(attributes.get('table_size', 1024))
    index_bits = max(math.ceil(math.log2(n)), 1)
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    cost.logic_bits += k * (n - 1) * (2 * data_bits + index_bits)  # compare-selects of value and index
    cost.adder_bits += summed * data_bits + summed * accum
    cost.memories += [Memory('rom', size, exp_bits, summed, 'exp table'), Memory('rom', size, inv_bits, 1, 'inv table')]
    cost.add_multipliers([Multiplier(k, exp_bits, inv_bits)])
    selection = ctx.compare_ns(data_bits, tree_levels(n)).scale(k)
    sums = ctx.add_ns(data_bits) + ctx.add_ns(accum, tree_levels(summed))
    read = ctx.read_cycles(None).scale(2)  # the exp and the reciprocal reads, in sequence
    depth = ctx.cycles(selection + sums + ctx.multiply_ns(cost.multipliers), read)
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    notes = [f'{k * (n - 1)} comparators ({k} argmax passes)']
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)
