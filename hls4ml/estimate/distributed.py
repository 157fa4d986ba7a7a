"""Estimates of Strategy 'distributed_arithmetic' (Dense and the convolutions): the layer's adder graph.

The graph (backends/common/distributed.py, the one the firmware prints) has no multiplier: zero DSPs.
Each adder is a carry-chain adder of its exact width, about one LUT per bit; each output adds its sum
into the accumulator once (the bias), one more adder of accum_t's width. The pipeline depth is the
graph's adder depth plus that last addition, chained within the clock period like any adder chain.
The hook: `kinds_products.py` builds its `Matrix` with `adder_graph` set for such a layer, and
`latency_matrix` hands a matrix that has one to `distributed_matrix`.
"""

from __future__ import annotations

from typing import Protocol

from hls4ml.backends.common.distributed import AdderGraph, solve_layer
from hls4ml.estimate.context import RuleContext
from hls4ml.estimate.primitives import Cost, Range
from hls4ml.model.config import DISTRIBUTED
from hls4ml.model.ir import Layer

ESTIMATE_FAMILY = 'ap'  # the weights as the estimator reads them elsewhere (raw_values)


class DistributedMatrix(Protocol):
    """What `distributed_matrix` reads of kinds_products' `Matrix`."""

    adder_graph: AdderGraph | None
    cols: int
    accum_bits: int
    result_bits: int
    copies: int


def distributed_graph(layer: Layer, ctx: RuleContext) -> AdderGraph | None:
    """The adder graph of a distributed-arithmetic layer (cached with the lowering's), else None."""
    if layer.attributes.get('strategy') != DISTRIBUTED:
        return None
    return solve_layer(ctx.graph, layer, ESTIMATE_FAMILY)


def distributed_matrix(matrix: DistributedMatrix, ctx: RuleContext, notes: list[str]) -> tuple[Cost, Range]:
    """Cost and pipeline depth of the adder graph, `matrix.copies` times (a convolution's parallel pixels)."""
    graph = matrix.adder_graph
    assert graph is not None
    copies = matrix.copies
    outputs = sum(1 for term in graph.outputs if term is not None)
    cost = Cost()
    cost.adder_bits = copies * (graph.adder_bits + outputs * matrix.accum_bits)
    cost.register_bits = Range(0, cost.adder_bits) + Range.exact(copies * matrix.cols * matrix.result_bits)
    widest = max((adder.precision.width for adder in graph.adders), default=matrix.accum_bits)
    chain = ctx.add_ns(max(widest, matrix.accum_bits), graph.depth + 1)
    notes.append(
        f'distributed arithmetic: {len(graph.adders)} adders ({graph.adder_bits} bits) of depth {graph.depth}, '
        'no multiplier'
    )
    return cost, ctx.cycles(chain)
