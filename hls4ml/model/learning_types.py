"""The precision types of on-chip learning (docs/som.md, "On-chip learning"): what the learning top
functions of a project compute in, derived here once and read by the lowering (the C++ config structs)
and by the learners (the numpy twin, the host-side quantization of the state).

* The codebook and the lateral matrix keep the layer's width and binary point, written with RND
  (truncation would drift every small update downwards) and SAT (a learned value never wraps).
  Every learned value is therefore a value of the layer's own type: `apply()` changes no type of them.
* Rates, neighbourhood tables and their product are unsigned fractions of 17 bits with one integer
  bit, so a rate or a neighbourhood value of exactly 1 is held.
* The Kohonen distances are exact for every codebook of the learning type (not only the one the
  model was converted with): the bound spans the whole range of the input and codebook types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.precision_maps import _som_bound as som_distance_bound
from hls4ml.model.types import FixedPrecisionType, PrecisionType

FRACTION = FixedPrecisionType(17, 1, False, 'RND', 'SAT')  # rates, neighbourhood values and their products
LEARNED_DISTANCES = ('squared_euclidean', 'manhattan', 'chebyshev')


@dataclass(frozen=True)
class KohonenTypes:
    """The types of one SOM layer's Kohonen step (spec A.8), named as in nnet_som_learn.h."""

    data: FixedPrecisionType  # the layer's input
    codebook: FixedPrecisionType
    accum: FixedPrecisionType
    neighbourhood: FixedPrecisionType = FRACTION
    rate: FixedPrecisionType = FRACTION
    factor: FixedPrecisionType = FRACTION


@dataclass(frozen=True)
class HebbianTypes:
    """The types of one ReSOM layer's Hebbian step (spec A.9): the layer's activity type, its lateral
    type written with RND and SAT, and the rate."""

    activity: FixedPrecisionType
    lateral: FixedPrecisionType
    rate: FixedPrecisionType = FRACTION


def learned(precision: PrecisionType, where: str) -> FixedPrecisionType:
    """The layer's type with RND and SAT: what a learned codebook or lateral matrix is written in."""
    if not isinstance(precision, FixedPrecisionType):
        raise ValueError(f'{where}: on-chip learning needs a fixed-point type, got {precision}')
    return FixedPrecisionType(precision.width, precision.integer, precision.signed, 'RND', 'SAT')


def exact_distance_type(
    data: FixedPrecisionType, codebook: FixedPrecisionType, n_in: int, distance: str
) -> FixedPrecisionType:
    """An unsigned type holding every distance between an input of type `data` and a codebook row of
    type `codebook` exactly (spec A.6): the SOM's bound over the two extreme rows of the type."""
    extremes = np.array([[codebook.min] * n_in, [codebook.max] * n_in])
    bound, _ = som_distance_bound(data, extremes, distance)
    return FixedPrecisionType(*_unsigned_shape(bound, distance_fraction(data, codebook, distance)), False)


def distance_fraction(data: FixedPrecisionType, codebook: FixedPrecisionType, distance: str) -> int:
    """Fraction bits of an exact distance (squares double them)."""
    fraction = max(data.fractional, codebook.fractional)
    return 2 * fraction if distance == 'squared_euclidean' else fraction


def _unsigned_shape(bound: float, fraction: int) -> tuple[int, int]:
    integer = max(math.floor(math.log2(bound)) + 1, 1) if bound > 0 else 1
    return integer + fraction, integer


def kohonen_types(graph: Graph, layer: Layer) -> KohonenTypes:
    """The Kohonen types of a SOM layer whose precisions are resolved; refuses what cannot learn."""
    check_learnable(layer)
    data = graph.input_type(layer)
    if not isinstance(data, FixedPrecisionType):
        raise ValueError(f'{layer.describe()}: on-chip learning needs a fixed-point input, got {data}')
    codebook = learned(layer.types['codebook'], layer.describe())
    accum = exact_distance_type(data, codebook, layer.attributes['n_in'], layer.attributes['distance'])
    return KohonenTypes(data, codebook, accum)


@dataclass(frozen=True)
class MapPart:
    """One map of a ReSOM or ReSOMMaps layer as a SOM to learn: where its codebook, codebook type and
    distance type live in the layer, and its sizes."""

    weight: str  # the codebook's weights key
    codebook: str  # the layer's type names of its codebook and its distances
    accum: str
    n_in: int
    n_units: int
    grid: tuple[int, int]


def map_parts(layer: Layer) -> list[MapPart]:
    """The maps of a ReSOM (x, y) or ReSOMMaps (0 .. M-1) layer, in input order."""
    attributes = layer.attributes
    if layer.kind == Kind.RESOM:
        return [
            MapPart(
                'codebook_x', 'codebook_x', 'accum_x', attributes['n_in'], attributes['n_units_x'], attributes['grid_x']
            ),
            MapPart(
                'codebook_y',
                'codebook_y',
                'accum_y',
                attributes['n_in_y'],
                attributes['n_units_y'],
                attributes['grid_y'],
            ),
        ]
    sizes = zip(attributes['map_inputs'], attributes['map_units'], attributes['grids'], strict=True)
    return [
        MapPart(f'codebook_{m}', 'codebook', 'accum', n_in, n_units, tuple(grid))
        for m, (n_in, n_units, grid) in enumerate(sizes)
    ]


def map_kohonen_types(graph: Graph, layer: Layer, part: int) -> KohonenTypes:
    """The Kohonen types of map `part` of a ReSOM or ReSOMMaps layer; refuses what cannot learn."""
    distance = layer.attributes['distance']
    if distance not in LEARNED_DISTANCES:
        raise ValueError(f'{layer.describe()}: no on-chip Kohonen learning of its maps with distance {distance!r}')
    data = graph.input_type(layer, part)
    if not isinstance(data, FixedPrecisionType):
        raise ValueError(f'{layer.describe()}: on-chip learning needs fixed-point inputs, got {data} for map {part}')
    view = map_parts(layer)[part]
    codebook = learned(layer.types[view.codebook], layer.describe())
    return KohonenTypes(data, codebook, exact_distance_type(data, codebook, view.n_in, distance))


def hebbian_types(layer: Layer) -> HebbianTypes:
    activity = layer.types['activity']
    assert isinstance(activity, FixedPrecisionType)
    return HebbianTypes(activity, learned(layer.types['lateral'], layer.describe()))


def check_learnable(layer: Layer) -> None:
    """Refuse (ValueError naming the layer) a layer that has no learning top function."""
    if layer.kind not in (Kind.SOM, Kind.RESOM):
        raise ValueError(f'{layer.describe()}: on-chip learning is for SOM and ReSOM layers, not {layer.kind}')
    if layer.kind == Kind.RESOM:
        return
    distance = layer.attributes['distance']
    if distance not in LEARNED_DISTANCES:
        raise ValueError(
            f'{layer.describe()}: no on-chip Kohonen learning with distance {distance!r} (a step would '
            f'undo the row normalisation); learnable distances: {", ".join(LEARNED_DISTANCES)}'
        )
    if layer.attributes.get('implementation', 'distance') == 'dense':
        raise ValueError(
            f"{layer.describe()}: Implementation 'dense' keeps score biases derived from the codebook; "
            "convert with Implementation 'distance' to learn on chip"
        )


def learnable(graph: Graph, layer: Layer) -> bool:
    """Whether the project gets a learning top function for this SOM layer."""
    try:
        kohonen_types(graph, layer)
    except ValueError:
        return False
    return True
