"""Rule of the heterogeneous quantizer (kind FixedPointQuantizer), following `nnet_quantizer.h`.

Its factors are powers of two read from constant tables, so once unrolled they are wiring. What is left
per value: the rounding increment (an adder of the rounded width), then for SAT two comparisons and a
multiplexer, for WRAP a subtraction and an addition (the residue is a bit selection).
"""

from __future__ import annotations

from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.kinds_products import lanes, schedule
from hls4ml.estimate.primitives import Cost, Range, width_of
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.quantizer import kernel_constants, triples_of


@estimator_rule(Kind.FIXED_POINT_QUANTIZER)
def quantizer(layer: Layer, ctx: RuleContext) -> LayerModel:
    triples = triples_of(layer)
    count = lanes(layer, ctx)
    rounded = width_of(kernel_constants(triples).types['rounded'])
    wrap = triples.overflow == 'WRAP'
    cost = Cost(
        register_bits=Range.exact(count * ctx.type_bits(layer, 'result')),
        logic_bits=0 if wrap else 2 * count * rounded,
    )
    cost.adder_bits += count * rounded * (3 if wrap else 1)
    chain = ctx.add_ns(rounded, 3) if wrap else ctx.add_ns(rounded) + ctx.compare_ns(rounded, 2)
    depth = ctx.cycles(chain)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth)
