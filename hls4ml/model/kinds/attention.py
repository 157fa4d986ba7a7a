"""The building blocks of attention: products of two tensors computed at run time (`Q @ K^T`,
`A @ V`, any two-operand einsum). Each kind is one block of `Attention`: its rules, its reference
kernel, its record."""

from __future__ import annotations

from hls4ml.model import einsum as equations
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import PRODUCT_KEYS, PRODUCT_SETTINGS, KindRecord
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import magnitude, set_sum_types, sum_type, two_input_types
from hls4ml.model.reference.einsum import einsum as einsum_kernel


def einsum_plan(layer: Layer, shapes: list[tuple[int, ...]]) -> equations.EinsumPlan:
    """The loop plan of an Einsum layer whose inputs have `shapes` (IR axes, no batch axis)."""
    if len(shapes) != 2:
        raise ValueError(f'{layer.describe()}: an einsum takes two inputs, got {len(shapes)}')
    try:
        return equations.plan(layer.attributes['equation'], shapes[0], shapes[1])
    except equations.EinsumError as error:
        raise ValueError(f'{layer.describe()}: {error}') from None


def graph_plan(graph: Graph, layer: Layer) -> equations.EinsumPlan:
    return einsum_plan(layer, [graph.tensors[name].shape for name in layer.inputs])


class Attention:
    """The products of two run-time tensors (`Kind` inherits them)."""

    # ---- Einsum: res = einsum(equation, first, second), two run-time tensors ------------------------
    # equation over IR axes without the batch axis ('hqd,hkd->hqk'); hls4ml/model/einsum.py plans it

    @staticmethod
    def _einsum_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
        return einsum_plan(layer, inputs).output_shape

    @staticmethod
    def _einsum_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Exact: the fraction bits of the product, integer bits for inner * |first| * |second|."""
        operands = two_input_types(graph, layer)
        if operands is None:
            return
        first, second = operands
        inner = graph_plan(graph, layer).sizes[3]
        bound = inner * magnitude(first) * magnitude(second)
        signed = first.signed or second.signed
        set_sum_types(layer, sum_type(first.fractional + second.fractional, bound, signed, context))

    @staticmethod
    def _einsum_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        first, second = inputs
        return einsum_kernel(first, second, graph_plan(graph, layer), layer.types['accum'], layer.types['result'])

    EINSUM = KindRecord(
        'Einsum',
        types={'result': 'auto', 'accum': 'auto'},
        config_keys=PRODUCT_KEYS,
        output_shape=_einsum_shape,
        precision_rule=_einsum_types,
        reference=_einsum_reference,
        settings=PRODUCT_SETTINGS,
    )
