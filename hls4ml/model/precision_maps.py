"""The precision rules of the self-organizing maps (SOM, ReSOM): exact distances and exact outputs."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import (
    default_width,
    fit_weights,
    input_fixed,
    is_auto,
    magnitude,
    quantized_weights,
    sum_type,
    unsigned_integer,
)
from hls4ml.model.reference.som import ACTIVITY_TABLE_TYPE, score_biases
from hls4ml.model.types import FixedPrecisionType

HEXAGONAL_FRACTION_BITS = 12  # SOM hexagonal unit coordinates (multiples of sqrt(3)/2)


def _som_bound(x: FixedPrecisionType, codebook: np.ndarray, distance: str) -> tuple[float, bool]:
    """The largest |distance| any input of type x reaches, and whether it can be negative."""
    if distance == 'cosine':
        return float(np.abs(codebook).sum(axis=1).max(initial=0.0)) * magnitude(x), True
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
    bound, signed = _som_bound(source, quantized_weights(layer, 'codebook'), distance)
    fraction = max(source.fractional, codebook.fractional)
    if distance == 'squared_euclidean':
        fraction *= 2
    elif distance == 'cosine':
        fraction = source.fractional + codebook.fractional
    layer.types['accum'] = sum_type(fraction, bound, signed, context)


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
    magnitudes = np.abs(weights.value).sum(axis=1) * magnitude(source) + np.abs(biases.value)
    return sum_type(fraction, float(magnitudes.max(initial=0.0)), True, context)


def som(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Exact distances (A.6 of the SOM spec) from the quantized codebook and the input range; the
    result holds the BMU index, its grid coordinates, 0/1, the distances or the label exactly."""
    fit_weights(layer, ('codebook',), context)
    attributes, types = layer.attributes, layer.types
    if is_auto(types['label']):
        labels = layer.weights.get('labels', np.zeros(1))
        types['label'] = unsigned_integer(int(labels.max(initial=0)))
    source, codebook = input_fixed(graph, layer, context), types['codebook']
    if is_auto(types['accum']) and isinstance(source, FixedPrecisionType) and isinstance(codebook, FixedPrecisionType):
        _som_accum(source, codebook, layer, context)
    if is_auto(types['table']):
        types['table'] = ACTIVITY_TABLE_TYPE
    if not is_auto(types['result']):
        return
    rows, cols = attributes['grid']
    results = {
        'index': unsigned_integer(attributes['n_units'] - 1),
        'coordinates': unsigned_integer(max(rows, cols) - 1),
        'one_hot': unsigned_integer(1),
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
    if not is_auto(layer.types[f'accum_{side}']) or not isinstance(source, FixedPrecisionType):
        return
    assert isinstance(codebook, FixedPrecisionType)
    distance = layer.attributes['distance']
    bound, _ = _som_bound(source, quantized_weights(layer, f'codebook_{side}'), distance)
    fraction = max(source.fractional, codebook.fractional) * (2 if distance == 'squared_euclidean' else 1)
    layer.types[f'accum_{side}'] = sum_type(fraction, bound, False, context)


def association_types(layer: Layer, context: PassContext) -> None:
    """The 'auto' types every ReSOM (two maps or M) sets alike: activities ufixed<W,1> (W the default
    width: they hold 1 and 0.5 exactly), labels an unsigned integer holding the largest label."""
    types = layer.types
    if is_auto(types['activity']):
        types['activity'] = FixedPrecisionType(default_width(context), 1, False)
    if is_auto(types['label']):
        types['label'] = unsigned_integer(int(layer.weights.get('labels', np.zeros(1)).max(initial=0)))


def resom(graph: Graph, layer: Layer, context: PassContext) -> None:
    """ReSOM (docs/resom.md): exact distances per map; activities ufixed<W,1> (they lie in [0, 1]); the
    lateral input exact (H row or column sums times the largest activity); the result holds the output."""
    fit_weights(layer, ('codebook_x', 'codebook_y', 'lateral'), context)
    types, attributes = layer.types, layer.attributes
    for side in ('x', 'y'):
        _resom_distances(graph, layer, side, context)
    association_types(layer, context)
    activity, lateral = types['activity'], types['lateral']
    if is_auto(types['lateral_accum']) and isinstance(activity, FixedPrecisionType):
        assert isinstance(lateral, FixedPrecisionType)
        weights = quantized_weights(layer, 'lateral')
        if attributes['source'] == 'bmu':
            types['lateral_accum'] = lateral
        else:
            sums = max(weights.sum(axis=0).max(initial=0.0), weights.sum(axis=1).max(initial=0.0))
            fraction = lateral.fractional + activity.fractional
            types['lateral_accum'] = sum_type(fraction, float(sums) * activity.max, False, context)
    if is_auto(types['result']):
        results = {
            'label': types['label'],
            'index': unsigned_integer(attributes['n_units_x'] + attributes['n_units_y'] - 1),
            'winners': unsigned_integer(max(attributes['n_units_x'], attributes['n_units_y']) - 1),
            'activities': activity,
        }
        types['result'] = results[attributes['output']]
