"""Self-organizing maps: the SOM's best-matching unit of a codebook (docs/som.md) and ReSOM, two SOMs
associated by a Hebbian lateral matrix (docs/resom.md). Their precision rules are long enough to have
their own module (`precision_maps.py`); each kind is one block of `Maps`."""

from __future__ import annotations

import numpy as np

from hls4ml.model import precision_maps, precision_resom_maps, reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import PRODUCT_KEYS, KindRecord, weights_of
from hls4ml.model.reference import resom_maps as maps_reference
from hls4ml.model.reference.resom import layer_setup as resom_setup
from hls4ml.model.reference.som import SOM_TOPOLOGIES

SOM_DISTANCES = ('squared_euclidean', 'manhattan', 'chebyshev', 'cosine')
SOM_OUTPUTS = ('index', 'coordinates', 'one_hot', 'distances', 'label', 'activities', 'quantized')
# how the SOM finds its BMU: distances and an argmin, or (squared Euclidean, cosine) a Dense layer of
# scores w_n.x - |w_n|^2/2 and an argmax, with Dense's strategy and reuse factor (docs/som.md)
SOM_IMPLEMENTATIONS = ('distance', 'dense')
# ReSOM (docs/resom.md): lateral input from all activities or the winner's column; combined by product
# or mean; outputs the class, the global winner (x units first), the two per-map winners, or activities
RESOM_DISTANCES = ('squared_euclidean', 'manhattan', 'chebyshev')  # activities: exp(-(d_n - d_bmu) / beta)
RESOM_SOURCES = ('all', 'bmu')
RESOM_COMBINES = ('product', 'sum')
RESOM_OUTPUTS = ('label', 'index', 'winners', 'activities')
# the types the precision rules make exact (or, for activities, as wide as the default width allows): a
# Model precision never reaches them; a layer setting naming one is honoured with a warning of its cost
_DISTANCE_COST = 'distances may round or wrap: the best-matching unit can differ from the exact one'
_LABEL_COST = 'labels that do not fit wrap: the predicted class can be wrong'
SOM_EXACT_TYPES = {
    'accum': _DISTANCE_COST,
    'table': 'activities round to this type (and wrap if it cannot hold 1)',
    'label': _LABEL_COST,
    'result': 'indices, coordinates, labels or distances that do not fit this type wrap or round',
}
RESOM_EXACT_TYPES = {
    'accum_x': _DISTANCE_COST,
    'accum_y': _DISTANCE_COST,
    'lateral_accum': 'the lateral input may round or wrap: the association and the winner can differ',
    'activity': 'activities and the exact division round at its LSB (it must hold 1 and 0.5): winners can tie',
    'label': _LABEL_COST,
    'result': 'labels, indices or activities that do not fit this type wrap or round',
}
RESOM_TYPES = ('accum_x', 'accum_y', 'codebook_x', 'codebook_y', 'lateral', 'lateral_accum', 'activity', 'label')
# ReSOMMaps: M >= 2 maps; one accumulator, codebook and lateral type shared by every map and pair
RESOM_MAPS_TYPES = ('accum', 'codebook', 'lateral', 'lateral_accum', 'activity', 'label')


class Maps:
    """The self-organizing map kinds (`Kind` inherits them)."""

    # ---- SOM: the best-matching unit of a codebook -------------------------------------------------
    # table_size: the activity table (output 'activities'); strategy: Resource folds the distance stage
    # by the reuse factor (Implementation 'dense': the strategy of its scores, a Dense layer)

    @staticmethod
    def _som_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        codebook = quantize(layer.weights['codebook'], layer.types['codebook'], family)
        labels = weights_of(layer, 'labels', 'label', family) if 'labels' in layer.weights else None
        types = layer.types
        return reference.som(
            inputs[0], codebook, labels, layer.attributes, types['accum'], types['result'], types.get('table')
        )

    SOM = KindRecord(
        'SOM',
        types={'result': 'auto', 'accum': 'auto', 'codebook': 'auto', 'label': 'auto', 'table': 'auto'},
        config_keys=(*PRODUCT_KEYS, 'TableSize', 'Implementation'),
        output_shape=shapes.som_shape,
        precision_rule=precision_maps.som,
        reference=_som_reference,
        weights=('codebook', 'labels'),
        settings=('reuse_factor', 'strategy', 'table_size', 'implementation'),
        weight_shapes=shapes.som_weights,
        exact_types=SOM_EXACT_TYPES,
        choices={
            'implementation': SOM_IMPLEMENTATIONS,
            'distance': SOM_DISTANCES,
            'output': SOM_OUTPUTS,
            'topology': SOM_TOPOLOGIES,
        },
    )

    # ---- ReSOM: two SOMs (inputs x, y) and their lateral matrix; table_size: both activity tables;
    # strategy: Resource folds the distance stages, lateral products and divisions by the reuse factor --

    @staticmethod
    def _resom_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        types, tables = resom_setup(layer, family)
        names = ('codebook_x', 'codebook_y', 'lateral')
        weights = {name: quantize(layer.weights[name], layer.types[name], family) for name in names}
        weights['labels'] = quantize(layer.weights.get('labels', np.zeros(1)), layer.types['label'], family)
        return reference.resom((inputs[0], inputs[1]), weights, layer.attributes, types, tables)

    RESOM = KindRecord(
        'ReSOM',
        types={'result': 'auto', **dict.fromkeys(RESOM_TYPES, 'auto')},
        config_keys=(*PRODUCT_KEYS, 'TableSize'),
        output_shape=shapes.resom_shape,
        precision_rule=precision_maps.resom,
        reference=_resom_reference,
        weights=('codebook_x', 'codebook_y', 'lateral', 'labels'),
        settings=('reuse_factor', 'strategy', 'table_size'),
        weight_shapes=shapes.resom_weights,
        exact_types=RESOM_EXACT_TYPES,
        choices={
            'distance': RESOM_DISTANCES,
            'source': RESOM_SOURCES,
            'combine': RESOM_COMBINES,
            'output': RESOM_OUTPUTS,
        },
    )

    # ---- ReSOMMaps: M >= 2 SOMs (inputs 0 .. M-1), one lateral matrix per pair; table_size: every table;
    # strategy: Resource folds every map's distances, the block matrix's lateral products and the divisions --

    @staticmethod
    def _resom_maps_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        types, tables = maps_reference.layer_setup(layer, family)
        n_maps = len(layer.attributes['map_units'])
        weights = {
            f'codebook_{m}': quantize(layer.weights[f'codebook_{m}'], layer.types['codebook'], family)
            for m in range(n_maps)
        }
        weights['matrix'] = maps_reference.layer_matrix(layer, family)
        weights['labels'] = quantize(layer.weights.get('labels', np.zeros(1)), layer.types['label'], family)
        return maps_reference.resom_maps(list(inputs), weights, layer.attributes, types, tables)

    RESOM_MAPS = KindRecord(
        'ReSOMMaps',
        types={'result': 'auto', **dict.fromkeys(RESOM_MAPS_TYPES, 'auto')},
        config_keys=(*PRODUCT_KEYS, 'TableSize'),
        output_shape=shapes.resom_maps_shape,
        precision_rule=precision_resom_maps.resom_maps,
        reference=_resom_maps_reference,
        weights=('codebook_0', 'codebook_1', 'lateral_0_1', 'labels'),  # and codebook_m, lateral_i_j for m, j > 1
        # the distances, activities, lateral sums, labels and indices stay exact under a Model or layer
        # default precision (the weights take it); a setting naming the variable still overrides
        exact_types=('accum', 'lateral_accum', 'activity', 'label', 'result'),
        settings=('reuse_factor', 'strategy', 'table_size'),
        weight_shapes=shapes.resom_maps_weights,
        choices={
            'distance': RESOM_DISTANCES,
            'source': RESOM_SOURCES,
            'combine': RESOM_COMBINES,
            'output': RESOM_OUTPUTS,
        },
    )
