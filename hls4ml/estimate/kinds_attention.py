"""Rules of the attention building blocks: the Einsum of two run-time tensors (`nnet_einsum.h`).

Both operands change every call, so every product is a general multiplier (no constants to fold):
ceil(products / RF) of them, each shared RF times, as the kernel's ALLOCATION limit says; one
accumulator add of accum_t per product; each output a chain of n_inner adds, an adder tree of
ceil(log2 n_inner) levels once unrolled. io_parallel: one region pipelined at II = RF. io_stream:
the inputs are read whole, the array kernel runs, the result is written out (docs/estimator.md).
"""

from __future__ import annotations

import math

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined
from hls4ml.estimate.primitives import Cost, Multiplier, Range, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.attention import graph_plan


@estimator_rule(Kind.EINSUM)
def einsum(layer: Layer, ctx: RuleContext) -> LayerModel:
    plan = graph_plan(ctx.graph, layer)
    reuse_factor = int(layer.attributes.get('reuse_factor', 1))
    accum, result = ctx.type_bits(layer, 'accum'), ctx.type_bits(layer, 'result')
    cost = Cost()
    multipliers = math.ceil(plan.products / reuse_factor)
    cost.add_multipliers([Multiplier(multipliers, ctx.input_bits(layer, 0), ctx.input_bits(layer, 1))])
    cost.adder_bits += plan.products * accum
    cost.register_bits = Range.exact(ctx.output_size(layer) * result)
    inner = plan.sizes[3]
    depth = ctx.cycles(ctx.multiply_ns(cost.multipliers) + ctx.add_ns(accum, tree_levels(inner)))
    latency, interval = pipelined(depth, reuse_factor)
    notes = [f'{plan.products} products of two run-time operands, {multipliers} general multipliers']
    if ctx.io_stream:  # read both inputs whole, then write the result: one loop each
        loops = ctx.elements(layer.inputs[0]) + ctx.elements(layer.inputs[1]) + ctx.elements(layer.outputs[0])
        streaming = Range.exact(loops) + LOOP_OVERHEAD_CYCLES.scale(3)
        latency, interval = latency + streaming, interval + streaming
    return LayerModel(cost, latency, interval, depth, notes)
