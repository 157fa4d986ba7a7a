"""Lowering of Strategy 'distributed_arithmetic': a Dense or convolution layer's adder graph
(`distributed.py`) as the data `common/firmware/adder_graph.j2` prints into the layer's config struct.

Why a generated function per layer rather than an op table the kernel walks: every value of the graph
gets its own exact C++ type, so the HLS tool sees adders of exactly the widths the graph needs (an op
table would hold all values in one widest type and leave the tool to prove the constant indexing away),
and the C-simulation runs straight-line additions.
"""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.distributed import AdderGraph, Term, solve_layer
from hls4ml.backends.common.records import AdderGraphCode, LayerImpl, Operand
from hls4ml.model.config import DISTRIBUTED
from hls4ml.model.ir import Layer
from hls4ml.model.types import FixedPrecisionType


def is_distributed(layer: Layer) -> bool:
    return layer.attributes.get('strategy') == DISTRIBUTED


def add_adder_graph(impl: LayerImpl, layer: Layer, context: LoweringContext) -> None:
    """Attach the layer's adder graph to `impl` when its strategy is distributed arithmetic."""
    if not is_distributed(layer):
        return
    graph = solve_layer(context.graph, layer, context.family)
    impl.adder_graph = adder_graph_code(graph, context.input_type_name(layer), context.family)


def adder_graph_code(graph: AdderGraph, data_type: str, family: str) -> AdderGraphCode:
    shifts: set[int] = set()

    def operand(term: Term, extra_shift: int = 0) -> Operand:
        shift = term.shift + extra_shift
        if shift:
            shifts.add(shift)
        source, index = ('data', term.node) if term.node < graph.n_in else ('v', term.node)
        return Operand(source, index, term.negative, _constant_name(shift) if shift else None)

    adders = [
        (adder.precision.spelling(family), adder.node, operand(adder.left), operand(adder.right))
        for adder in graph.adders
    ]
    outputs = [
        (index, operand(term, -graph.weight_fractional)) for index, term in enumerate(graph.outputs) if term is not None
    ]
    constants = [
        (_constant_name(shift), FixedPrecisionType(1, shift + 1, signed=False).spelling(family), repr(2.0**shift))
        for shift in sorted(shifts)
    ]
    return AdderGraphCode(data_type, graph.n_in, graph.n_out, constants, adders, outputs)


def _constant_name(shift: int) -> str:
    return f'shift_{"m" if shift < 0 else ""}{abs(shift)}'
