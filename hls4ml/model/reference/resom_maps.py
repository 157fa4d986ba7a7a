"""Reference of `nnet::resom_maps` (nnet_resom_maps.h): M >= 2 SOMs, one Hebbian matrix per pair (docs/resom.md).

Map m has codebook W^m (N_m units) and afferent activities a^m (the 2-map ReSOM's `afferent`, bit for bit).
The pair (i, j), i < j, has H_ij (N_i, N_j); map j reads it transposed. Every round, all maps at once:
  lateral_i = sum_{j != i} H_ij a^j  (source 'all')  or  sum_{j != i} H_ij[:, winner_j]  (source 'bmu'),
              exact in lateral_accum_t (so the order of the sum does not matter)
  a'^i      = the 2-map ReSOM's `combine` (max-normalised, exactly divided), winner_i its first largest
The global winner is the first largest of [a'^0; a'^1; ...] (ties: the lower map, then the lower unit).
For M = 2 every step is the 2-map ReSOM's (the sum has one term), so the outputs are the same.

The matrices are held as one symmetric block matrix L (N, N), N = sum N_m: block (i, j) is H_ij, block
(j, i) its transpose, the diagonal blocks 0. Then lateral = L a (all units at once; the own map's block
adds exact zeros) and the 'bmu' source adds the winners' columns of L.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import greater_than, take
from hls4ml.model.reference.resom import ResomTypes, afferent, combine, first_largest, lateral_input, remainder_type
from hls4ml.model.reference.som import DEFAULT_ACTIVITY_TABLE_SIZE, ActivityTable, activity_table
from hls4ml.model.types import FixedPrecisionType

MAX_MAPS = 8  # nnet_resom_maps.h declares the per-map views of maps 0 .. 7


def pairs(n_maps: int) -> list[tuple[int, int]]:
    """The map pairs (i, j), i < j, in the order their matrices are named and stored."""
    return list(combinations(range(n_maps), 2))


def offsets(units: tuple[int, ...]) -> list[int]:
    """The first unit of each map in the concatenation [map 0; map 1; ...]."""
    return [int(value) for value in np.concatenate([[0], np.cumsum(units)[:-1]])]


def block_matrix(laterals: dict[tuple[int, int], np.ndarray], units: tuple[int, ...]) -> np.ndarray:
    """The symmetric (N, N) block matrix L of the pair matrices (any dtype: floats or raw integers)."""
    starts, total = offsets(units), int(sum(units))
    first = next(iter(laterals.values()))
    matrix = np.zeros((total, total), dtype=np.asarray(first).dtype)
    for (i, j), values in laterals.items():
        rows, columns = slice(starts[i], starts[i] + units[i]), slice(starts[j], starts[j] + units[j])
        matrix[rows, columns] = values
        matrix[columns, rows] = np.asarray(values).T
    return matrix


def _concatenate(parts: list[FixedArray]) -> FixedArray:
    return FixedArray(np.concatenate([part.raw for part in parts], axis=1), parts[0].type, parts[0].family)


def _lateral(
    matrix: FixedArray, activity: FixedArray, winners: list[np.ndarray], attributes: dict, accum: FixedPrecisionType
) -> FixedArray:
    """(n_samples, N) lateral input of every unit: L a, or the sum of the winners' columns of L."""
    if attributes['source'] == 'all':
        return lateral_input(matrix, activity, winners[0], 'all', accum)
    starts, family = offsets(attributes['map_units']), activity.family
    total = quantize(np.zeros(activity.shape), accum, family)
    for start, winner in zip(starts, winners, strict=True):
        column = take(matrix, (slice(None), start + winner))  # (N, n_samples)
        total = (total + FixedArray(column.raw.T, column.type, family)).cast(accum)
    return total


def _split(values: FixedArray, units: tuple[int, ...]) -> list[FixedArray]:
    return [
        take(values, (slice(None), slice(start, start + n))) for start, n in zip(offsets(units), units, strict=True)
    ]


def associate(
    activities: list[FixedArray], bmus: list[np.ndarray], matrix: FixedArray, attributes: dict, types: ResomTypes
) -> tuple[list[FixedArray], list[np.ndarray]]:
    """`iterations` Jacobi rounds of lateral exchange between all maps; returns each map's activities and
    winners."""
    winners, units = bmus, tuple(attributes['map_units'])
    for _ in range(attributes['iterations']):
        lateral = _split(_lateral(matrix, _concatenate(activities), winners, attributes, types.lateral_accum), units)
        activities = [
            combine(activity, part, attributes['combine'], types)
            for activity, part in zip(activities, lateral, strict=True)
        ]
        winners = [first_largest(activity)[0] for activity in activities]
    return activities, winners


def global_winner(activities: list[FixedArray], winners: list[np.ndarray]) -> np.ndarray:
    """Index in the concatenation of the first largest winner activity (ties: the lower map)."""
    rows = np.arange(len(winners[0]))
    best, best_value = winners[0].copy(), take(activities[0], (rows, winners[0]))
    starts = offsets(tuple(activity.shape[1] for activity in activities))
    for start, activity, winner in zip(starts[1:], activities[1:], winners[1:], strict=True):
        value = take(activity, (rows, winner))
        better = greater_than(value, best_value)
        best = np.where(better, start + winner, best)
        best_value = FixedArray(np.where(better, value.raw, best_value.raw), value.type, value.family)
    return best


def resom_maps(
    inputs: list[FixedArray],
    weights: dict[str, FixedArray],
    attributes: dict,
    types: ResomTypes,
    tables: list[ActivityTable],
) -> FixedArray:
    """The layer output selected by attributes['output'].

    weights: codebook_m (N_m, D_m) per map, matrix (N, N) the block matrix L, labels (N,)."""
    afferents = [
        afferent(data, weights[f'codebook_{index}'], attributes['distance'], types.accum_x, table)
        for index, (data, table) in enumerate(zip(inputs, tables, strict=True))
    ]
    activities, winners = associate(
        [pair[0] for pair in afferents], [pair[1] for pair in afferents], weights['matrix'], attributes, types
    )
    output, family = attributes['output'], activities[0].family
    if output == 'activities':
        return _concatenate(activities).cast(types.result)
    if output == 'winners':
        return quantize(np.stack(winners, axis=1), types.result, family)
    winner = global_winner(activities, winners)
    if output == 'index':
        return quantize(winner[:, None], types.result, family)
    return take(weights['labels'], winner[:, None]).cast(types.result)


# ---- what the interpreter and the lowering share -----------------------------------------------------


def layer_setup(layer: Layer, family: str) -> tuple[ResomTypes, list[ActivityTable]]:
    """The types (one accumulator for every map: `accum_x` = `accum_y` = accum) and the activity tables
    (one per map, in activity_t) of a resolved ReSOMMaps layer."""
    names = ('accum', 'activity', 'lateral_accum')
    for name in names:
        if not isinstance(layer.types[name], FixedPrecisionType):
            raise ValueError(f'{layer.describe()}: {name} must be a fixed-point type, got {layer.types[name]}')
    accum, activity, lateral_accum = (layer.types[name] for name in names)
    assert isinstance(activity, FixedPrecisionType) and isinstance(lateral_accum, FixedPrecisionType)
    assert isinstance(accum, FixedPrecisionType)
    if activity.max < 1.0 or activity.fractional < 1:
        raise ValueError(f'{layer.describe()}: activity type {activity} must hold 1 and 0.5 exactly')
    remainder = remainder_type(activity, lateral_accum)
    types = ResomTypes(accum, accum, activity, lateral_accum, remainder, layer.types['result'])
    attributes = layer.attributes
    size = attributes.get('table_size', DEFAULT_ACTIVITY_TABLE_SIZE)
    tables = [
        activity_table({'beta': beta, 'table_size': size, 'distance': attributes['distance']}, accum, activity, family)
        for beta in attributes['betas']
    ]
    return types, tables


def layer_matrix(layer: Layer, family: str) -> FixedArray:
    """The block matrix L of the layer's pair matrices, quantized into its lateral type."""
    units = tuple(layer.attributes['map_units'])
    quantized = {
        (i, j): quantize(layer.weights[f'lateral_{i}_{j}'], layer.types['lateral'], family)
        for i, j in pairs(len(units))
    }
    raw = block_matrix({pair: values.raw for pair, values in quantized.items()}, units)
    return FixedArray(raw, layer.types['lateral'], family)  # type: ignore[arg-type]
