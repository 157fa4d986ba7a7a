"""Replace every 'auto' precision by a concrete type.

Accumulators and results of Dense and BatchNormalization are made overflow-free from the actual
(quantized) weights and the input type's range: the fraction bits keep every product exact, the
integer bits hold the largest possible |sum|. That is narrower than hls4ml's width-only rule
(`Win + Ww + log2 n`) and just as safe. `maximum` (config `Precision: {maximum: ...}`, by default
`config.DEFAULT_MAXIMUM_PRECISION`) then clamps the width and the integer bits separately, and one
warning names every layer where that costs exactness. The default cap exists to stop the growth of
float models' exact types from layer to layer; it leaves quantized layers alone (`Layer.quantized`:
their types follow from the quantizers around them, exact and as narrow as exactness allows), while a
`maximum` the config names applies to every layer. Weights, biases and parameters left 'auto' keep the
default width with the integer bits their values need (no saturation, more fraction bits).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.config import DEFAULT_MAXIMUM_PRECISION
from hls4ml.model.fixed import quantize, result_type
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.passes import PassContext
from hls4ml.model.quantizer import container_type, triples_of
from hls4ml.model.reference.som import ACTIVITY_TABLE_TYPE, score_biases
from hls4ml.model.tables import SELU_SCALE
from hls4ml.model.types import FixedPrecisionType, PrecisionType, UnspecifiedPrecisionType

BOUNDED_TABLE_ACTIVATIONS = ('sigmoid', 'tanh', 'softsign')
BIPOLAR_TYPE = FixedPrecisionType(2, 2, True)  # the smallest type holding -1 and +1 exactly
POOL_PADS = ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')
SAFETY = 1 + 2.0**-40  # float sums of many products may round down; keep the bound an upper bound
HEXAGONAL_FRACTION_BITS = 12  # SOM hexagonal unit coordinates (multiples of sqrt(3)/2)


def infer_precision(graph: Graph, context: PassContext) -> None:
    """Requires: types from the config ('auto' = UnspecifiedPrecisionType). After: no layer has an
    UnspecifiedPrecisionType; layers are resolved in topological order, so inputs come first.
    """
    cuts = []
    for layer in graph.layers.values():
        rule, already_capped = RULES.get(layer.kind), len(context.capped)
        context.cap = None if layer.quantized and context.maximum_is_default else context.maximum
        if rule is not None:
            try:
                rule(graph, layer, context)
            except ValueError as error:  # e.g. an inferred type wider than the supported maximum
                raise ValueError(f'{layer.describe()}: {error}; set a narrower type or Precision maximum') from error
        cuts += [_cut(layer, needed, given) for needed, given in dict.fromkeys(context.capped[already_capped:])]
        for var, precision in layer.types.items():
            if _auto(precision):
                layer.types[var] = context.default_precision
    if cuts:
        context.warn(
            f"'auto' precision is capped at {context.maximum} (Model Precision 'maximum', by default "
            f'{DEFAULT_MAXIMUM_PRECISION}; docs/quantization.md), which costs exactness: ' + '; '.join(cuts) + '. '
            "Set a wider Precision 'maximum' (max_precision=...) to keep these types exact."
        )


def _cut(layer: Layer, needed: FixedPrecisionType, given: FixedPrecisionType) -> str:
    """What capping `needed` to `given` costs in `layer`, in words."""
    costs = []
    if given.integer < needed.integer:
        costs.append(f'{needed.integer - given.integer} integer bit(s) fewer: large values may overflow')
    if given.fractional < needed.fractional:
        costs.append(f'{needed.fractional - given.fractional} fraction bit(s) fewer: values are truncated')
    return f'{layer.describe()} needs {needed}, gets {given} ({", ".join(costs)})'


def _auto(precision: PrecisionType) -> bool:
    return isinstance(precision, UnspecifiedPrecisionType)


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


def _magnitude(precision: PrecisionType) -> float:
    if isinstance(precision, FixedPrecisionType):
        return max(abs(precision.min), abs(precision.max))
    return 0.0


def _default_width(context: PassContext) -> int:
    default = context.default_precision
    return default.width if isinstance(default, FixedPrecisionType) else 16


def _input_fixed(graph: Graph, layer: Layer, context: PassContext) -> FixedPrecisionType | None:
    precision = graph.input_type(layer)
    return precision if isinstance(precision, FixedPrecisionType) else None


def _fit_weights(layer: Layer, names: tuple[str, ...], context: PassContext) -> None:
    for name in names:
        if _auto(layer.types[name]):
            layer.types[name] = fitted_type(layer.weights[name], _default_width(context))


def _sum_type(fraction: int, bound: float, signed: bool, context: PassContext) -> FixedPrecisionType:
    integer = integer_bits(-bound * SAFETY if signed else 0.0, bound * SAFETY, signed)
    return clamped(integer + fraction, integer, signed, context)


def _quantized(layer: Layer, name: str) -> np.ndarray:
    precision = layer.types[name]
    return (
        quantize(layer.weights[name], precision).value
        if isinstance(precision, FixedPrecisionType)
        else layer.weights[name]
    )


def _infer_affine(graph: Graph, layer: Layer, context: PassContext, factor: str, summed: bool) -> None:
    """Overflow-free types for y_j = sum_i x_i * factor_ij + bias_j (Dense, `summed`) or for
    y_j = x_j * factor_j + bias_j (BatchNormalization)."""
    _fit_weights(layer, (factor, 'bias'), context)
    source = _input_fixed(graph, layer, context)
    factor_type, bias_type = layer.types[factor], layer.types['bias']
    if not all(isinstance(t, FixedPrecisionType) for t in (source, factor_type, bias_type)):
        return
    assert isinstance(source, FixedPrecisionType) and isinstance(factor_type, FixedPrecisionType)
    assert isinstance(bias_type, FixedPrecisionType)
    factors, biases = _quantized(layer, factor), _quantized(layer, 'bias')
    if summed:  # one column per output: Dense (n_in, n_out); conv (window..., n_chan, n_filt); depthwise
        factors = factors.reshape(-1, biases.shape[0])
    magnitudes = np.abs(factors).sum(axis=0) if summed else np.abs(factors)
    bound = float((magnitudes * _magnitude(source) + np.abs(biases)).max(initial=0.0))
    signed = source.signed or bool((factors < 0).any()) or bool((biases < 0).any())
    fraction = max(source.fractional + factor_type.fractional, bias_type.fractional)
    _set_sum_types(layer, _sum_type(fraction, bound, signed, context))


def _dense(graph: Graph, layer: Layer, context: PassContext) -> None:
    _infer_affine(graph, layer, context, 'weight', summed=True)


def _batchnorm(graph: Graph, layer: Layer, context: PassContext) -> None:
    _infer_affine(graph, layer, context, 'scale', summed=False)


def _set_sum_types(layer: Layer, inferred: FixedPrecisionType) -> None:
    for var in ('accum', 'result'):
        if var in layer.types and _auto(layer.types[var]):
            layer.types[var] = inferred


def _activation(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Bounded table functions output table values exactly, bipolar its -1 and +1; relu and linear
    keep their input type when a quantization-aware frontend marks them `exact_result` (their input
    is exact and a quantizer reads them); the rest take the default precision (as in hls4ml), which
    also stops widths growing from layer to layer."""
    activation = layer.attributes['activation']
    source = _input_fixed(graph, layer, context)
    exact = layer.attributes.get('exact_result') and activation in ('relu', 'linear')
    if _auto(layer.types['result']) and exact and source is not None:
        layer.types['result'] = source
    if _auto(layer.types['result']) and activation == 'bipolar':
        layer.types['result'] = BIPOLAR_TYPE
    if _auto(layer.types['result']) and activation in BOUNDED_TABLE_ACTIVATIONS and not _auto(layer.types['table']):
        layer.types['result'] = layer.types['table']
    if activation == 'selu':  # the kernel multiplies positive inputs by the SELU scale, held in param_t
        layer.types['param'] = fitted_type(np.array([SELU_SCALE]), _default_width(context))


def _parametrized(graph: Graph, layer: Layer, context: PassContext) -> None:
    if _auto(layer.types['param']):
        layer.types['param'] = fitted_type(np.array([layer.attributes['activ_param']]), _default_width(context))
    source = _input_fixed(graph, layer, context)
    if layer.attributes['activation'] == 'thresholded_relu' and _auto(layer.types['result']) and source is not None:
        layer.types['result'] = source


def _prelu(graph: Graph, layer: Layer, context: PassContext) -> None:
    if _auto(layer.types['param']):
        layer.types['param'] = fitted_type(layer.weights['alpha'], _default_width(context))


def _hard_activation(graph: Graph, layer: Layer, context: PassContext) -> None:
    if _auto(layer.types['param']):
        values = np.array([layer.attributes['slope'], layer.attributes['shift']])
        layer.types['param'] = fitted_type(values, _default_width(context))


def _copy_input(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Layers that only move values keep the input type (zero padding adds zeros, which it holds)."""
    source = _input_fixed(graph, layer, context)
    for var in ('result', 'accum'):
        if var in layer.types and _auto(layer.types[var]) and source is not None:
            layer.types[var] = source


def _pooling(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Max keeps the input type; an average sums up to `window` values exactly before dividing. When
    every window counts the same power of two 2^k of inputs (no padding), the sum also gets k more
    fraction bits and an 'auto' result keeps them, so the average is exact; else the result is the
    input type (the quotient truncated to its LSB, as in hls4ml)."""
    source = _input_fixed(graph, layer, context)
    if source is None:
        return
    if layer.attributes['pool_op'] == 'average' and _auto(layer.types['accum']):
        prefix = 'in_' if layer.kind.startswith('Global') else 'pool_'
        window = math.prod(layer.attributes.get(prefix + axis, 1) for axis in ('height', 'width'))
        extra = math.ceil(math.log2(window)) if window > 1 else 0
        padded = any(layer.attributes.get(name, 0) for name in POOL_PADS)
        shift = extra if window == 2**extra and not padded else 0
        layer.types['accum'] = clamped(source.width + extra + shift, source.integer + extra, source.signed, context)
        if shift and _auto(layer.types['result']):
            layer.types['result'] = clamped(source.width + shift, source.integer, source.signed, context)
    _copy_input(graph, layer, context)


def _two_input_types(graph: Graph, layer: Layer) -> tuple[FixedPrecisionType, FixedPrecisionType] | None:
    first, second = graph.input_type(layer, 0), graph.input_type(layer, 1)
    if isinstance(first, FixedPrecisionType) and isinstance(second, FixedPrecisionType):
        return first, second
    return None


def _merge(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Exact result types of the element-wise operations (the halving of an average is exact too)."""
    operands = _two_input_types(graph, layer)
    if operands is None or not _auto(layer.types['result']):
        return
    operation = layer.attributes.get('op', 'union')
    name = {'add': 'add', 'subtract': 'sub', 'multiply': 'mul', 'average': 'add'}.get(operation, 'or')
    exact = result_type(name, *operands)
    if operation == 'average':
        exact = FixedPrecisionType(exact.width + 1, exact.integer, exact.signed)
    layer.types['result'] = clamped(exact.width, exact.integer, exact.signed, context)


def _dot(graph: Graph, layer: Layer, context: PassContext) -> None:
    operands = _two_input_types(graph, layer)
    if operands is None:
        return
    first, second = operands
    bound = layer.attributes['n_in'] * _magnitude(first) * _magnitude(second)
    _set_sum_types(
        layer, _sum_type(first.fractional + second.fractional, bound, first.signed or second.signed, context)
    )


def _quantizer(graph: Graph, layer: Layer, context: PassContext) -> None:
    """A heterogeneous quantizer's result is the exact container of its triples."""
    if _auto(layer.types['result']):
        layer.types['result'] = container_type(triples_of(layer))


def _topk(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Selected values keep the input type; indices an unsigned integer type holding n_in - 1; mask 0/1."""
    if not _auto(layer.types['result']):
        return
    output = layer.attributes['output']
    if output == 'indices':
        layer.types['result'] = _unsigned_integer(layer.attributes['n_in'] - 1)
    elif output == 'mask':
        layer.types['result'] = _unsigned_integer(1)
    else:
        _copy_input(graph, layer, context)


def _soft_topk(graph: Graph, layer: Layer, context: PassContext) -> None:
    """The mask: ufixed<F+1,1> with F = the input's fraction bits + log2(1/l), within 8..24 (the ramp's
    natural resolution); by magnitude: the input's integer bits and 4 more fraction bits."""
    source = _input_fixed(graph, layer, context)
    if source is None or not _auto(layer.types['result']):
        return
    if layer.attributes['mode'] == 'mask':
        fraction = min(max(source.fractional - round(math.log2(layer.attributes['l'])), 8), 24)
        layer.types['result'] = FixedPrecisionType(fraction + 1, 1, False)
    else:
        layer.types['result'] = FixedPrecisionType(source.width + 4, source.integer, source.signed)


def _router(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Expert indices: an unsigned integer type holding n_in - 1; gates keep the default (as softmax)."""
    if _auto(layer.types['result']) and layer.attributes['output'] == 'indices':
        layer.types['result'] = _unsigned_integer(layer.attributes['n_in'] - 1)


def _unsigned_integer(largest: int) -> FixedPrecisionType:
    """ufixed<W,W> holding 0 .. largest: an integer type both families write integers into."""
    width = max(int(largest).bit_length(), 1)
    return FixedPrecisionType(width, width, False)


def _som_bound(x: FixedPrecisionType, codebook: np.ndarray, distance: str) -> tuple[float, bool]:
    """The largest |distance| any input of type x reaches, and whether it can be negative."""
    if distance == 'cosine':
        return float(np.abs(codebook).sum(axis=1).max(initial=0.0)) * _magnitude(x), True
    reach = np.maximum(np.abs(x.min - codebook), np.abs(x.max - codebook))  # the largest |x_j - w_nj|
    if distance == 'squared_euclidean':
        return float((reach**2).sum(axis=1).max(initial=0.0)), False
    if distance == 'manhattan':
        return float(reach.sum(axis=1).max(initial=0.0)), False
    return float(reach.max(initial=0.0)), False


def _som_accum(source: FixedPrecisionType, codebook: FixedPrecisionType, layer: Layer, context: PassContext) -> None:
    if layer.attributes.get('implementation', 'distance') == 'dense':
        layer.types['accum'] = _som_score_type(source, codebook, layer, context)
        return
    distance = layer.attributes['distance']
    bound, signed = _som_bound(source, _quantized(layer, 'codebook'), distance)
    fraction = max(source.fractional, codebook.fractional)
    if distance == 'squared_euclidean':
        fraction *= 2
    elif distance == 'cosine':
        fraction = source.fractional + codebook.fractional
    layer.types['accum'] = _sum_type(fraction, bound, signed, context)


def _som_score_type(
    source: FixedPrecisionType, codebook: FixedPrecisionType, layer: Layer, context: PassContext
) -> FixedPrecisionType:
    """Exact scores of the dense form, w_n.x - |w_n|^2/2 (cosine: w_n.x), by Dense's rule: the products'
    fraction bits (and the exact biases' 2F + 1), the integer bits of max_n |w_n|_1 max|x| + |b_n|.
    For cosine this is the distance form's accumulator."""
    weights = quantize(layer.weights['codebook'], codebook)
    biases = score_biases(weights, layer.attributes['distance'])
    fraction = source.fractional + codebook.fractional
    if layer.attributes['distance'] == 'squared_euclidean':
        fraction = max(fraction, biases.type.fractional)
    magnitudes = np.abs(weights.value).sum(axis=1) * _magnitude(source) + np.abs(biases.value)
    return _sum_type(fraction, float(magnitudes.max(initial=0.0)), True, context)


def _som(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Exact distances (A.6 of the SOM spec) from the quantized codebook and the input range; the
    result holds the BMU index, its grid coordinates, 0/1, the distances or the label exactly."""
    _fit_weights(layer, ('codebook',), context)
    attributes, types = layer.attributes, layer.types
    if _auto(types['label']):
        labels = layer.weights.get('labels', np.zeros(1))
        types['label'] = _unsigned_integer(int(labels.max(initial=0)))
    source, codebook = _input_fixed(graph, layer, context), types['codebook']
    if _auto(types['accum']) and isinstance(source, FixedPrecisionType) and isinstance(codebook, FixedPrecisionType):
        _som_accum(source, codebook, layer, context)
    if _auto(types['table']):
        types['table'] = ACTIVITY_TABLE_TYPE
    if not _auto(types['result']):
        return
    rows, cols = attributes['grid']
    results = {
        'index': _unsigned_integer(attributes['n_units'] - 1),
        'coordinates': _unsigned_integer(max(rows, cols) - 1),
        'one_hot': _unsigned_integer(1),
        'label': types['label'],
        'distances': types['accum'],
        'activities': types['table'],
        'quantized': types['codebook'],
    }
    types['result'] = results[attributes['output']]
    if attributes['output'] == 'coordinates' and attributes.get('topology') == 'hexagonal':
        types['result'] = _hexagonal_coordinates(rows, cols)


def _hexagonal_coordinates(rows: int, cols: int) -> FixedPrecisionType:
    """MiniSom's Euclidean unit coordinates: x in [-0.5, rows - 1], y in [0, (cols - 1) sqrt(3)/2], to
    the nearest 2^-12 (the per-unit table is rounded once, in Python)."""
    integer = max(rows, cols).bit_length() + 1
    return FixedPrecisionType(integer + HEXAGONAL_FRACTION_BITS, integer, True, 'RND')


def _resom_distances(graph: Graph, layer: Layer, side: str, context: PassContext) -> None:
    """Exact distances of one map, as for the SOM (squared Euclidean or Manhattan)."""
    source, codebook = graph.input_type(layer, 0 if side == 'x' else 1), layer.types[f'codebook_{side}']
    if not _auto(layer.types[f'accum_{side}']) or not isinstance(source, FixedPrecisionType):
        return
    assert isinstance(codebook, FixedPrecisionType)
    distance = layer.attributes['distance']
    bound, _ = _som_bound(source, _quantized(layer, f'codebook_{side}'), distance)
    fraction = max(source.fractional, codebook.fractional) * (2 if distance == 'squared_euclidean' else 1)
    layer.types[f'accum_{side}'] = _sum_type(fraction, bound, False, context)


def _resom(graph: Graph, layer: Layer, context: PassContext) -> None:
    """ReSOM (docs/resom.md): exact distances per map; activities ufixed<W,1> (they lie in [0, 1]); the
    lateral input exact (H row or column sums times the largest activity); the result holds the output."""
    _fit_weights(layer, ('codebook_x', 'codebook_y', 'lateral'), context)
    types, attributes = layer.types, layer.attributes
    for side in ('x', 'y'):
        _resom_distances(graph, layer, side, context)
    if _auto(types['activity']):
        types['activity'] = FixedPrecisionType(_default_width(context), 1, False)
    if _auto(types['label']):
        types['label'] = _unsigned_integer(int(layer.weights.get('labels', np.zeros(1)).max(initial=0)))
    activity, lateral = types['activity'], types['lateral']
    if _auto(types['lateral_accum']) and isinstance(activity, FixedPrecisionType):
        assert isinstance(lateral, FixedPrecisionType)
        weights = _quantized(layer, 'lateral')
        if attributes['source'] == 'bmu':
            types['lateral_accum'] = lateral
        else:
            sums = max(weights.sum(axis=0).max(initial=0.0), weights.sum(axis=1).max(initial=0.0))
            fraction = lateral.fractional + activity.fractional
            types['lateral_accum'] = _sum_type(fraction, float(sums) * activity.max, False, context)
    if _auto(types['result']):
        results = {
            'label': types['label'],
            'index': _unsigned_integer(attributes['n_units_x'] + attributes['n_units_y'] - 1),
            'winners': _unsigned_integer(max(attributes['n_units_x'], attributes['n_units_y']) - 1),
            'activities': activity,
        }
        types['result'] = results[attributes['output']]


RULES = {
    'Dense': _dense,
    'Conv1D': _dense,
    'Conv2D': _dense,
    'DepthwiseConv1D': _dense,
    'DepthwiseConv2D': _dense,
    'Pooling1D': _pooling,
    'Pooling2D': _pooling,
    'GlobalPooling1D': _pooling,
    'GlobalPooling2D': _pooling,
    'ZeroPadding1D': _copy_input,
    'ZeroPadding2D': _copy_input,
    'Cropping1D': _copy_input,
    'Cropping2D': _copy_input,
    'Resize': _copy_input,
    'Resize2D': _copy_input,
    'Reshape': _copy_input,
    'Transpose': _copy_input,
    'Merge': _merge,
    'Concatenate': _merge,
    'Dot': _dot,
    'BatchNormalization': _batchnorm,
    'Activation': _activation,
    'ParametrizedActivation': _parametrized,
    'PReLU': _prelu,
    'HardActivation': _hard_activation,
    'FixedPointQuantizer': _quantizer,
    'SOM': _som,
    'ReSOM': _resom,
    'TopK': _topk,
    'SoftTopK': _soft_topk,
    'Router': _router,
}
