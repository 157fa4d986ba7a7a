"""Lowering of Strategy 'distributed_arithmetic': a Dense or convolution layer's adder graph
(`distributed.py`) as the data `common/firmware/adder_graph.j2` prints into the layer's config struct.

Why a generated function per layer rather than an op table the kernel walks: every value of the graph
gets its own exact C++ type, so the HLS tool sees adders of exactly the widths the graph needs (an op
table would hold all values in one widest type and leave the tool to prove the constant indexing away).
The C-simulation compiles a second form of the same graph, on raw integers (`IntegerGraphCode`): g++
takes minutes over thousands of lines in distinct fixed-point types (the jet-tagging MLP's 6,000 adders)
and seconds over `long long` additions. Both forms are printed from the one checked graph; a test
compiles the typed form too (HLS4ML_DA_TYPED) and compares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import AdderGraphCode, IntegerGraphCode, IntegerOperand, LayerImpl, Operand
from hls4ml.model.config import DISTRIBUTED
from hls4ml.model.ir import Layer
from hls4ml.model.types import FixedPrecisionType

if TYPE_CHECKING:  # the solver loads with the first distributed layer
    from hls4ml.backends.common.distributed import Adder, AdderGraph, Term

INTEGER_BITS = 62  # every raw value and shifted operand of the integer form fits a long long with room to add


def is_distributed(layer: Layer) -> bool:
    return layer.attributes.get('strategy') == DISTRIBUTED


def add_adder_graph(impl: LayerImpl, layer: Layer, context: LoweringContext) -> None:
    """Attach the layer's adder graph to `impl` when its strategy is distributed arithmetic."""
    if not is_distributed(layer):
        return
    from hls4ml.backends.common.distributed import solve_layer

    graph = solve_layer(context.graph, layer, context.family)
    data = context.graph.input_type(layer)
    assert isinstance(data, FixedPrecisionType)
    impl.adder_graph = adder_graph_code(graph, context.input_type_name(layer), context.family)
    impl.adder_graph.integer = integer_graph_code(graph, data, context.family)


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
    return AdderGraphCode(data_type, graph.n_in, graph.n_out, _constants(shifts, family), adders, outputs)


def integer_graph_code(graph: AdderGraph, data: FixedPrecisionType, family: str) -> IntegerGraphCode | None:
    """The graph on raw integers: value v = 2**exponent(v) * N_v over the inputs' raw integers; an adder
    aligns its two terms to the smaller exponent (left shifts), adds, and divides out the power of two its
    sum always has. None when a value would not fit INTEGER_BITS."""
    plan = _IntegerPlan(graph, data)
    adders = [plan.adder(adder) for adder in graph.adders]
    if any(adder is None for adder in adders):
        return None
    scales: set[int] = set()
    outputs = []
    for index, term in enumerate(graph.outputs):
        if term is not None:
            scale = plan.exponent(term.node) + term.shift - data.fractional - graph.weight_fractional
            scales.add(scale)
            outputs.append((index, term.negative, plan.source(term.node), term.node, _constant_name(scale)))
    input_scale = _constants({data.fractional}, family)[0][1:] if data.fractional else None
    wide = FixedPrecisionType(64, 64).spelling(family)
    terms = [term for adder in graph.adders for term in (adder.left, adder.right)] + list(graph.outputs)
    inputs = sorted({term.node for term in terms if term is not None and term.node < graph.n_in})
    constants = _constants(scales, family)
    return IntegerGraphCode(input_scale, inputs, wide, constants, adders, outputs)  # type: ignore[arg-type]


class _IntegerPlan:
    """Exponents and widths of the graph's values in raw-integer form (inputs: exponent 0)."""

    def __init__(self, graph: AdderGraph, data: FixedPrecisionType) -> None:
        self.n_in, self.data = graph.n_in, data
        self.precisions = {adder.node: adder.precision for adder in graph.adders}

    def exponent(self, node: int) -> int:
        return 0 if node < self.n_in else self.data.fractional - self.precisions[node].fractional

    def width(self, node: int) -> int:
        return self.data.width if node < self.n_in else self.precisions[node].width

    def source(self, node: int) -> str:
        return 'x' if node < self.n_in else 'v'

    def operand(self, term: Term, base: int) -> IntegerOperand | None:
        shift = self.exponent(term.node) + term.shift - base
        if self.width(term.node) + shift > INTEGER_BITS:
            return None
        return IntegerOperand(self.source(term.node), term.node, term.negative, 1 << shift)

    def adder(self, adder: Adder) -> tuple[int, IntegerOperand, IntegerOperand, int] | None:
        left, right = adder.left, adder.right
        base = min(self.exponent(left.node) + left.shift, self.exponent(right.node) + right.shift)
        divisor = self.exponent(adder.node) - base
        left_operand, right_operand = self.operand(left, base), self.operand(right, base)
        if left_operand is None or right_operand is None or adder.precision.width + divisor > INTEGER_BITS:
            return None
        return adder.node, left_operand, right_operand, 1 << divisor


def _constants(shifts: set[int], family: str) -> list[tuple[str, str, str]]:
    """(name, C++ type, literal) of each power of two 2**shift: a one-bit unsigned fixed type holds it."""
    return [
        (_constant_name(shift), FixedPrecisionType(1, shift + 1, signed=False).spelling(family), _literal(shift))
        for shift in sorted(shifts)
    ]


def _literal(shift: int) -> str:
    return repr(2.0**shift)


def _constant_name(shift: int) -> str:
    return f'shift_{"m" if shift < 0 else ""}{abs(shift)}'
