"""What the precision rules of the layer kinds share: how `infer_precision` replaces 'auto' types.

A rule `rule(graph, layer, context)` sets the concrete types of one layer from its input types, its
(quantized) weights and its attributes; each kind's record (its block in `hls4ml/model/kinds/`) names
its rule, written in the block unless several kinds share it (then it is here, or, for the maps, in
`precision_maps.py`). Types
a rule leaves 'auto' get the default precision afterwards, so `keep_config` (no rule of its own) is a
valid rule. Accumulators and results of products are made overflow-free from the actual weights and
the input range (`infer_precision.py` says why); `clamped` applies the `maximum` cap.
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.fixed import quantize, result_type
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.pass_context import PassContext
from hls4ml.model.types import FixedPrecisionType, PrecisionType, UnspecifiedPrecisionType

SAFETY = 1 + 2.0**-40  # float sums of many products may round down; keep the bound an upper bound


def is_auto(precision: PrecisionType) -> bool:
    return isinstance(precision, UnspecifiedPrecisionType)


def keep_config(graph: Graph, layer: Layer, context: PassContext) -> None:
    """The rule of kinds whose types are the config's (or the frontend's): 'auto' becomes the default."""


def integer_bits(low: float, high: float, signed: bool) -> int:
    """Fewest integer bits (sign included, possibly <= 0) whose range holds [low, high]; values are
    written with truncation, which never leaves that range."""
    needed = []
    if high > 0:
        needed.append(math.floor(math.log2(high)) + 1 + signed)
    if low < 0:
        needed.append(math.ceil(math.log2(-low)) + 1)
    return max(needed) if needed else 0


def fitted_type(values: np.ndarray, width: int) -> FixedPrecisionType:
    """`width` bits placed so that every value fits: signed when any value is negative."""
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    signed = low < 0
    return FixedPrecisionType(width, integer_bits(low, high, signed), signed)


def clamped(width: int, integer: int, signed: bool, context: PassContext) -> FixedPrecisionType:
    """fixed<width, integer> with the width and the integer bits each capped by `context.maximum`;
    a cap that bites is recorded in `context.capped` (infer_precision warns about it)."""
    needed, maximum = FixedPrecisionType(max(width, 1), integer, signed), context.cap
    if maximum is None or (width <= maximum.width and integer <= maximum.integer):
        return needed
    given = FixedPrecisionType(max(min(width, maximum.width), 1), min(integer, maximum.integer), signed)
    context.capped.append((needed, given))
    return given


def magnitude(precision: PrecisionType) -> float:
    if isinstance(precision, FixedPrecisionType):
        return max(abs(precision.min), abs(precision.max))
    return 0.0


def default_width(context: PassContext) -> int:
    default = context.default_precision
    return default.width if isinstance(default, FixedPrecisionType) else 16


def input_fixed(graph: Graph, layer: Layer, context: PassContext) -> FixedPrecisionType | None:
    precision = graph.input_type(layer)
    return precision if isinstance(precision, FixedPrecisionType) else None


def fit_weights(layer: Layer, names: tuple[str, ...], context: PassContext) -> None:
    for name in names:
        if is_auto(layer.types[name]):
            layer.types[name] = fitted_type(layer.weights[name], default_width(context))


def sum_type(fraction: int, bound: float, signed: bool, context: PassContext) -> FixedPrecisionType:
    integer = integer_bits(-bound * SAFETY if signed else 0.0, bound * SAFETY, signed)
    return clamped(integer + fraction, integer, signed, context)


def quantized_weights(layer: Layer, name: str) -> np.ndarray:
    precision = layer.types[name]
    return (
        quantize(layer.weights[name], precision).value
        if isinstance(precision, FixedPrecisionType)
        else layer.weights[name]
    )


def affine_types(graph: Graph, layer: Layer, context: PassContext, factor: str, summed: bool) -> None:
    """Overflow-free types for y_j = sum_i x_i * factor_ij + bias_j (Dense, `summed`) or for
    y_j = x_j * factor_j + bias_j (BatchNormalization)."""
    fit_weights(layer, (factor, 'bias'), context)
    source = input_fixed(graph, layer, context)
    factor_type, bias_type = layer.types[factor], layer.types['bias']
    if not all(isinstance(t, FixedPrecisionType) for t in (source, factor_type, bias_type)):
        return
    assert isinstance(source, FixedPrecisionType) and isinstance(factor_type, FixedPrecisionType)
    assert isinstance(bias_type, FixedPrecisionType)
    factors, biases = quantized_weights(layer, factor), quantized_weights(layer, 'bias')
    if summed:  # one column per output: Dense (n_in, n_out); conv (window..., n_chan, n_filt); depthwise
        factors = factors.reshape(-1, biases.shape[0])
    magnitudes = np.abs(factors).sum(axis=0) if summed else np.abs(factors)
    bound = float((magnitudes * magnitude(source) + np.abs(biases)).max(initial=0.0))
    signed = source.signed or bool((factors < 0).any()) or bool((biases < 0).any())
    fraction = max(source.fractional + factor_type.fractional, bias_type.fractional)
    set_sum_types(layer, sum_type(fraction, bound, signed, context))


def set_sum_types(layer: Layer, inferred: FixedPrecisionType) -> None:
    for var in ('accum', 'result'):
        if var in layer.types and is_auto(layer.types[var]):
            layer.types[var] = inferred


def copy_input(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Layers that only move values keep the input type (zero padding adds zeros, which it holds)."""
    source = input_fixed(graph, layer, context)
    for var in ('result', 'accum'):
        if var in layer.types and is_auto(layer.types[var]) and source is not None:
            layer.types[var] = source


def two_input_types(graph: Graph, layer: Layer) -> tuple[FixedPrecisionType, FixedPrecisionType] | None:
    first, second = graph.input_type(layer, 0), graph.input_type(layer, 1)
    if isinstance(first, FixedPrecisionType) and isinstance(second, FixedPrecisionType):
        return first, second
    return None


def merge_types(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Exact result types of the element-wise operations (the halving of an average is exact too)."""
    operands = two_input_types(graph, layer)
    if operands is None or not is_auto(layer.types['result']):
        return
    operation = layer.attributes.get('op', 'union')
    name = {'add': 'add', 'subtract': 'sub', 'multiply': 'mul', 'average': 'add'}.get(operation, 'or')
    exact = result_type(name, *operands)
    if operation == 'average':
        exact = FixedPrecisionType(exact.width + 1, exact.integer, exact.signed)
    layer.types['result'] = clamped(exact.width, exact.integer, exact.signed, context)


def unsigned_integer(largest: int) -> FixedPrecisionType:
    """ufixed<W,W> holding 0 .. largest: an integer type both families write integers into."""
    width = max(int(largest).bit_length(), 1)
    return FixedPrecisionType(width, width, False)
