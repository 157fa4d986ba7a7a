"""Self-organizing maps: the Keras layers `hls4ml.nn.keras_som.SOM` -> one IR SOM layer and
`hls4ml.nn.keras_resom.ReSOM` (called on [x, y]) -> one IR ReSOM layer, `hls4ml.nn.keras_resom_maps.ReSOMMaps`
(called on M inputs) -> one IR ReSOMMaps layer."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.som_graphs import som_layer_parts
from hls4ml.nn.resom_core import layer_parts
from hls4ml.nn.resom_maps_core import check_matrix
from hls4ml.nn.resom_maps_core import layer_parts as maps_layer_parts

KERAS_SOM_MODULE = 'hls4ml.nn.keras_som'
KERAS_RESOM_MODULE = 'hls4ml.nn.keras_resom'
KERAS_RESOM_MAPS_MODULE = 'hls4ml.nn.keras_resom_maps'


@handles('SOM', produces=(Kind.SOM,))
def som(source: Source) -> list[Layer]:
    """The layer's settings and weights, checked by `som_layer_parts` (shapes, NaN codebooks)."""
    layer = source.layer
    if type(layer).__module__ != KERAS_SOM_MODULE:
        raise UnsupportedLayer(f'{source.origin}: only the SOM layer of {KERAS_SOM_MODULE} is supported')
    shape = source.input_shapes[0]
    if len(shape) != 1:
        raise UnsupportedLayer(f'{source.origin}: a SOM takes vectors, got inputs of shape {shape}; flatten them first')
    settings = layer.settings
    codebook = np.asarray(layer.codebook_array(), dtype=np.float64)
    labels = np.asarray(layer.labels, dtype=np.float64) if settings.output == 'label' else None
    try:
        attributes, weights = som_layer_parts(
            codebook,
            settings.grid,
            settings.distance,
            settings.output,
            labels,
            settings.topology,
            settings.beta,
            source.origin,
        )
    except ValueError as error:
        raise UnsupportedLayer(str(error)) from error
    if attributes['n_in'] != shape[0]:
        raise UnsupportedLayer(
            f'{source.origin}: the codebook has {attributes["n_in"]} inputs, the layer gets {shape[0]}'
        )
    return [source.make(Kind.SOM, weights=weights, **attributes)]


@handles('ReSOM', produces=(Kind.RESOM,))
def resom(source: Source) -> list[Layer]:
    """The layer's settings, codebooks, lateral matrix and labels, checked by `resom_core.layer_parts`
    (shapes, NaN, negative lateral weights)."""
    layer = source.layer
    if type(layer).__module__ != KERAS_RESOM_MODULE:
        raise UnsupportedLayer(f'{source.origin}: only the ReSOM layer of {KERAS_RESOM_MODULE} is supported')
    shapes = source.input_shapes
    if len(shapes) != 2 or any(len(shape) != 1 for shape in shapes):
        raise UnsupportedLayer(
            f'{source.origin}: a ReSOM takes two vectors [x, y], got inputs of shapes {shapes}; flatten them first'
        )
    try:
        attributes, weights = layer_parts(
            layer.codebook_arrays(), layer.lateral_array(), layer.labels_array(), layer.settings, source.origin
        )
    except ValueError as error:
        raise UnsupportedLayer(str(error)) from error
    widths = (attributes['n_in'], attributes['n_in_y'])
    if widths != (shapes[0][0], shapes[1][0]):
        raise UnsupportedLayer(f'{source.origin}: the codebooks take {widths} inputs, the layer gets {shapes}')
    return [source.make(Kind.RESOM, weights=weights, **attributes)]


@handles('ReSOMMaps', produces=(Kind.RESOM_MAPS,))
def resom_maps(source: Source) -> list[Layer]:
    """The layer's settings, codebooks, pair matrices and labels, checked by `resom_maps_core` (the block
    matrix's symmetry, shapes, NaN, negative lateral weights)."""
    layer = source.layer
    if type(layer).__module__ != KERAS_RESOM_MAPS_MODULE:
        raise UnsupportedLayer(f'{source.origin}: only the ReSOMMaps layer of {KERAS_RESOM_MAPS_MODULE} is supported')
    shapes, count = source.input_shapes, len(layer.soms)
    if len(shapes) != count or any(len(shape) != 1 for shape in shapes):
        raise UnsupportedLayer(
            f'{source.origin}: a ReSOMMaps takes {count} vectors, got inputs of shapes {shapes}; flatten them first'
        )
    try:
        laterals = check_matrix(layer.matrix_array(), layer.settings, source.origin)
        attributes, weights = maps_layer_parts(
            layer.codebook_arrays(), laterals, layer.labels_array(), layer.settings, source.origin
        )
    except ValueError as error:
        raise UnsupportedLayer(str(error)) from error
    if tuple(attributes['map_inputs']) != tuple(shape[0] for shape in shapes):
        raise UnsupportedLayer(
            f'{source.origin}: the codebooks take {attributes["map_inputs"]} inputs, the layer gets {shapes}'
        )
    return [source.make(Kind.RESOM_MAPS, weights=weights, **attributes)]
