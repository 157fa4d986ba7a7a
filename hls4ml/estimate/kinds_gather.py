"""Rules of the gathers (kinds Gather and Reduce), following `nnet_gather.h`.

A gather reads fixed positions: in io_parallel it is wiring. A reduction folds n_reduce values per
output: a sum is n_reduce - 1 adders of the accumulator's width per output, a max or min as many
comparisons (an adder's carry chain) and multiplexers. The kernel writes the fold as a chain; the
tool may balance it into a tree, so the depth ranges from ceil(log2 n) to n - 1 levels. In io_stream
both buffer the whole input (one RAM) and emit the outputs after it, as the transpose does.
"""

from __future__ import annotations

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext
from hls4ml.estimate.kinds_products import schedule
from hls4ml.estimate.primitives import Cost, Memory, Range, constant_multipliers, raw_values, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind


@estimator_rule(Kind.GATHER)
def gather(layer: Layer, ctx: RuleContext) -> LayerModel:
    if not ctx.io_stream:
        return LayerModel(Cost(), Range(0, 1, 0), Range.exact(1), Range(0, 1, 0), ['wiring'], stage_bits=0)
    cost = Cost()
    return _buffered(layer, ctx, cost, Range(1, 2))


@estimator_rule(Kind.REDUCE, Kind.INTERPOLATE)
def reduce(layer: Layer, ctx: RuleContext) -> LayerModel:
    """A sum (an interpolation: of products by constant weights), a max or a min of n values per output."""
    count, outputs = int(layer.attributes['n_reduce']), ctx.output_size(layer)
    bits = ctx.type_bits(layer, 'accum')
    steps = outputs * (count - 1)
    cost = Cost(register_bits=Range.exact(outputs * ctx.type_bits(layer, 'result')))
    cost.adder_bits += steps * bits
    if layer.kind == Kind.INTERPOLATE:  # the constant products, then the sums
        weights = raw_values(layer.weights['weight'], layer.types.get('weight'))
        cost.add_multipliers(constant_multipliers(weights, ctx.input_bits(layer)))
    if layer.attributes.get('op', 'sum') == 'sum':
        low, high = ctx.add_ns(bits, tree_levels(count)), ctx.add_ns(bits, count - 1)
        if cost.multipliers:
            low, high = low + ctx.multiply_ns(cost.multipliers), high + ctx.multiply_ns(cost.multipliers)
    else:
        cost.logic_bits += steps * bits
        low, high = ctx.compare_ns(bits, tree_levels(count)), ctx.compare_ns(bits, count - 1)
    depth = ctx.cycles(Range(low.low, high.high))
    if ctx.io_stream:
        return _buffered(layer, ctx, cost, depth)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth)


def _buffered(layer: Layer, ctx: RuleContext, cost: Cost, depth: Range) -> LayerModel:
    """io_stream: the input buffered whole (a RAM), then the outputs written element by element."""
    cost.memories.append(Memory('ram', ctx.input_size(layer), ctx.input_bits(layer), label='tensor buffer'))
    elements = ctx.elements(layer.inputs[0]) + ctx.elements(layer.outputs[0])
    busy = Range.exact(elements) + depth + LOOP_OVERHEAD_CYCLES.scale(2)
    return LayerModel(cost, busy, busy, depth, ['buffers the whole tensor'])
