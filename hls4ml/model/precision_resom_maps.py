"""The precision rule of the M-map ReSOM (`ReSOMMaps`, docs/resom.md): one exact accumulator, one codebook
type and one lateral type shared by every map and pair, exact lateral sums, exact outputs."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_maps import _som_bound, association_types
from hls4ml.model.precision_rules import default_width, fitted_type, is_auto, sum_type, unsigned_integer
from hls4ml.model.reference.resom_maps import block_matrix, offsets, pairs
from hls4ml.model.types import FixedPrecisionType


def _fit_shared(layer: Layer, var: str, names: list[str], context: PassContext) -> None:
    """One type `var` that every weight of `names` fits in (the default width)."""
    if is_auto(layer.types[var]):
        values = np.concatenate([np.ravel(layer.weights[name]) for name in names])
        layer.types[var] = fitted_type(values, default_width(context))


def _accum(graph: Graph, layer: Layer, context: PassContext) -> None:
    """The widest exact distance accumulator of the maps (each as the SOM's: no overflow, no rounding)."""
    codebook, distance = layer.types['codebook'], layer.attributes['distance']
    sources = [graph.input_type(layer, index) for index in range(len(layer.inputs))]
    if not is_auto(layer.types['accum']) or not all(isinstance(s, FixedPrecisionType) for s in sources):
        return
    assert isinstance(codebook, FixedPrecisionType)
    bound, fraction = 0.0, 0
    for index, source in enumerate(sources):
        assert isinstance(source, FixedPrecisionType)
        values = quantize(layer.weights[f'codebook_{index}'], codebook).value
        bound = max(bound, _som_bound(source, values, distance)[0])
        fraction = max(fraction, max(source.fractional, codebook.fractional))
    squared = distance == 'squared_euclidean'
    layer.types['accum'] = sum_type(fraction * (2 if squared else 1), bound, False, context)


def _lateral_bound(layer: Layer, matrix: np.ndarray) -> float:
    """The largest lateral input of any unit: a row sum of L times 1 ('all'), or the sum over the other
    maps of the row's largest entry in that map's block ('bmu')."""
    if layer.attributes['source'] == 'all':
        return float(matrix.sum(axis=1).max(initial=0.0))
    units = layer.attributes['map_units']
    blocks = [matrix[:, start : start + n].max(axis=1) for start, n in zip(offsets(units), units, strict=True)]
    return float(np.sum(blocks, axis=0).max(initial=0.0))


def resom_maps(graph: Graph, layer: Layer, context: PassContext) -> None:
    """ReSOMMaps: the shared types above; activities ufixed<W,1>; the result holds the output exactly."""
    types, attributes = layer.types, layer.attributes
    units = tuple(attributes['map_units'])
    _fit_shared(layer, 'codebook', [f'codebook_{m}' for m in range(len(units))], context)
    _fit_shared(layer, 'lateral', [f'lateral_{i}_{j}' for i, j in pairs(len(units))], context)
    _accum(graph, layer, context)
    association_types(layer, context)
    activity, lateral = types['activity'], types['lateral']
    if is_auto(types['lateral_accum']) and isinstance(activity, FixedPrecisionType):
        assert isinstance(lateral, FixedPrecisionType)
        quantized = {(i, j): quantize(layer.weights[f'lateral_{i}_{j}'], lateral).value for i, j in pairs(len(units))}
        bound = _lateral_bound(layer, block_matrix(quantized, units))
        fraction = lateral.fractional + (activity.fractional if attributes['source'] == 'all' else 0)
        types['lateral_accum'] = sum_type(fraction, bound * float(activity.max), False, context)
    if is_auto(types['result']):
        results = {
            'label': types['label'],
            'index': unsigned_integer(sum(units) - 1),
            'winners': unsigned_integer(max(units) - 1),
            'activities': activity,
        }
        types['result'] = results[attributes['output']]
