"""The building blocks of attention: products of two tensors computed at run time (`Q @ K^T`,
`A @ V`, any two-operand einsum) and Keras' EinsumDense, the same product with constant weights and
a bias. Each kind is one block of `Attention`: its rules, its reference kernel, its record."""

from __future__ import annotations

import numpy as np

from hls4ml.model import einsum as equations
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import PRODUCT_KEYS, PRODUCT_SETTINGS, KindRecord, weights_of
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import (
    fit_weights,
    input_fixed,
    magnitude,
    quantized_weights,
    set_sum_types,
    sum_type,
    two_input_types,
)
from hls4ml.model.reference.einsum import einsum as einsum_kernel
from hls4ml.model.types import FixedPrecisionType

PRODUCT_TYPES = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}


def einsum_plan(layer: Layer, shapes: list[tuple[int, ...]]) -> equations.EinsumPlan:
    """The loop plan of an Einsum layer whose inputs have `shapes` (IR axes, no batch axis)."""
    if len(shapes) != 2:
        raise ValueError(f'{layer.describe()}: an einsum takes two inputs, got {len(shapes)}')
    try:
        return equations.plan(layer.attributes['equation'], shapes[0], shapes[1])
    except equations.EinsumError as error:
        raise ValueError(f'{layer.describe()}: {error}') from None


def graph_plan(graph: Graph, layer: Layer) -> equations.EinsumPlan:
    """The plan of an Einsum (two inputs) or an EinsumDense (its input and its kernel's shape)."""
    shapes = [graph.tensors[name].shape for name in layer.inputs]
    if layer.kind == Attention.EINSUM_DENSE:
        shapes.append(tuple(layer.attributes['kernel_shape']))
    return einsum_plan(layer, shapes)


def weight_magnitudes(layer: Layer, plan: equations.EinsumPlan) -> np.ndarray:
    """(batch, columns): the sum over the inner loop of |weight| an output position multiplies."""
    weights = np.abs(quantized_weights(layer, 'weight')).reshape(-1)
    batch, inner, columns = (np.arange(size) for size in (plan.sizes[0], plan.sizes[3], plan.sizes[2]))
    index = batch[:, None, None] * plan.second[0] + inner[None, :, None] * plan.second[1]
    return weights[index + columns[None, None, :] * plan.second[2]].sum(axis=1)


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

    # ---- EinsumDense: res = einsum(equation, x, kernel) + bias (Keras EinsumDense) -----------------
    # equation over IR axes without the batch axis ('bc,cde->bde'); weights: the kernel in its own shape
    # (attribute kernel_shape) and one bias per output value, laid out as the output (bias_axes expanded)

    @staticmethod
    def _einsum_dense_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
        return einsum_plan(layer, [*inputs, tuple(layer.attributes['kernel_shape'])]).output_shape

    @staticmethod
    def _einsum_dense_weights(layer: Layer) -> dict[str, tuple[int, ...]]:
        return {'weight': tuple(layer.attributes['kernel_shape']), 'bias': (layer.attributes['n_out'],)}

    @staticmethod
    def _einsum_dense_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Exact: per output position, sum over the inner loop of |w| * |x| + |bias| bounds the sum."""
        fit_weights(layer, ('weight', 'bias'), context)
        source, weight, bias = input_fixed(graph, layer, context), layer.types['weight'], layer.types['bias']
        if not (isinstance(source, FixedPrecisionType) and isinstance(weight, FixedPrecisionType)):
            return
        if not isinstance(bias, FixedPrecisionType):
            return
        plan = graph_plan(graph, layer)
        biases = quantized_weights(layer, 'bias').reshape(-1)
        batch, rows, columns = (np.arange(size) for size in plan.sizes[:3])
        positions = batch[:, None, None] * plan.output[0] + rows[None, :, None] * plan.output[1]
        positions = positions + columns[None, None, :] * plan.output[2]
        products = weight_magnitudes(layer, plan)[:, None, :] * magnitude(source)
        bound = float((products + np.abs(biases[positions])).max(initial=0.0))
        weights = quantized_weights(layer, 'weight')
        signed = source.signed or bool((weights < 0).any()) or bool((biases < 0).any())
        fraction = max(source.fractional + weight.fractional, bias.fractional)
        set_sum_types(layer, sum_type(fraction, bound, signed, context))

    @staticmethod
    def _einsum_dense_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        weights = quantize(layer.weights['weight'].reshape(1, -1), layer.types['weight'], family)
        biases = weights_of(layer, 'bias', 'bias', family)
        types = layer.types
        return einsum_kernel(inputs[0], weights, graph_plan(graph, layer), types['accum'], types['result'], biases)

    EINSUM_DENSE = KindRecord(
        'EinsumDense',
        types=PRODUCT_TYPES,
        config_keys=PRODUCT_KEYS,
        output_shape=_einsum_dense_shape,
        precision_rule=_einsum_dense_types,
        reference=_einsum_dense_reference,
        weights=('weight', 'bias'),
        settings=PRODUCT_SETTINGS,
        weight_shapes=_einsum_dense_weights,
    )
