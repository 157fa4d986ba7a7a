"""Reference of `nnet::resom` (nnet_resom.h): two SOMs associated by a Hebbian lateral matrix (docs/resom.md).

Per map (x with codebook W^x, y with W^y), every `v = ...` below a write into the named type:
  dist_n    = SOM distance of the input to unit n (reference/som.py), exact in accum_t
  bmu       = first unit of smallest distance
  act_n     = the SOM's activity exp(-(d_n - d_bmu) / beta) (reference/som.py `som_activities`: the
              Euclidean distance is the floor square root of the squared one), in activity_t
Then `iterations` times, both maps at once (Jacobi), with winner_m initially bmu_m:
  lateral_x[i] = sum_j H[i, j] * act_y[j]  (source 'all')  or  H[i, winner_y]  (source 'bmu'), in lateral_accum_t
  lateral_y[j] = sum_i H[i, j] * act_x[i]  (source 'all')  or  H[winner_x, j]  (source 'bmu')
  top          = the largest lateral value of the map
  product: rem v = act * lateral, rem s = top;        sum: rem v = top * act + lateral, rem s = top + top
  top == 0:    product gives 0; sum uses v = act, s = 2 (the lateral part is 0)
  act'         = exact_divide(v, s): floor(v / s) at activity_t's LSB (restoring division, v <= s)
  winner_m     = first unit with the largest act'
The global winner is winner_x unless act_y[winner_y] > act_x[winner_x] (ties: x, the lower index).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import exact_divide, greater_than, integer, select, take
from hls4ml.model.reference.som import (
    DEFAULT_ACTIVITY_TABLE_SIZE,
    ActivityTable,
    activity_table,
    best_matching_unit,
    som_activities,
    som_distances,
)
from hls4ml.model.types import FixedPrecisionType, PrecisionType


@dataclass(frozen=True)
class ResomTypes:
    """The precision types of one ReSOM layer (its config struct's typedefs)."""

    accum_x: FixedPrecisionType
    accum_y: FixedPrecisionType
    activity: FixedPrecisionType
    lateral_accum: FixedPrecisionType
    remainder: FixedPrecisionType
    result: PrecisionType


# ---- afferent activities ------------------------------------------------------------------------------


def afferent(
    x: FixedArray, codebook: FixedArray, distance: str, accum_type: PrecisionType, table: ActivityTable
) -> tuple[FixedArray, np.ndarray]:
    """(n_samples, n_units) activities of one map for inputs x (the SOM's output 'activities', in the
    table's type), and the BMU of each sample."""
    distances = som_distances(x, codebook, distance, accum_type)
    bmu = best_matching_unit(distances, distance)
    return som_activities(distances, bmu, distance, table), bmu


# ---- association --------------------------------------------------------------------------------------


def transposed(values: FixedArray) -> FixedArray:
    return FixedArray(values.raw.T, values.type, values.family)


def first_largest(values: FixedArray) -> tuple[np.ndarray, FixedArray]:
    """Per row, the first index of the largest value, and that value (a scan moving on strictly greater)."""
    best = take(values, (slice(None), 0))
    index = np.zeros(values.shape[0], dtype=np.int64)
    for unit in range(1, values.shape[1]):
        candidate = take(values, (slice(None), unit))
        better = greater_than(candidate, best)
        best = select(better, candidate, best)
        index = np.where(better, unit, index)
    return index, best


def lateral_input(
    lateral: FixedArray, other: FixedArray, winner: np.ndarray, source: str, accum_type: PrecisionType
) -> FixedArray:
    """(n_samples, rows of `lateral`) lateral input from the other map's activities: lateral @ other
    ('all', accumulated in column order) or the winner's column ('bmu'), in accum_type."""
    if source == 'bmu':
        return transposed(take(lateral, (slice(None), winner))).cast(accum_type)
    rows, columns = lateral.shape
    acc = quantize(np.zeros((other.shape[0], rows)), accum_type, other.family)
    for column in range(columns):
        weight = take(lateral, (None, slice(None), column))
        acc = (acc + weight * take(other, (slice(None), slice(column, column + 1)))).cast(accum_type)
    return acc


def combine(activity: FixedArray, lateral: FixedArray, combination: str, types: ResomTypes) -> FixedArray:
    """The new activities of one map: activity (x) or (+) the max-normalised lateral input, exactly divided.
    A map whose lateral input is all 0 gets 0 (product) or activity / 2 (sum)."""
    _, top = first_largest(lateral)
    top = take(top, (slice(None), None))
    remainder, family = types.remainder, activity.family
    if combination == 'product':
        value, divisor = (activity * lateral).cast(remainder), top.cast(remainder)
        fallback = quantize(np.zeros(activity.shape), types.activity, family)
    else:
        value, divisor = (top * activity + lateral).cast(remainder), (top + top).cast(remainder)
        two = quantize(np.full(activity.shape, 2.0), remainder, family)
        fallback = exact_divide(activity.cast(remainder), two, types.activity)
    active = greater_than(top, integer(0, family))
    return select(active, exact_divide(value, divisor, types.activity), fallback)


def associate(
    activity_x: FixedArray,
    activity_y: FixedArray,
    bmu: tuple[np.ndarray, np.ndarray],
    lateral: FixedArray,
    attributes: dict,
    types: ResomTypes,
) -> tuple[FixedArray, FixedArray, np.ndarray, np.ndarray]:
    """`iterations` Jacobi rounds of lateral exchange; returns both activity vectors and both winners."""
    winner_x, winner_y = bmu
    source, combination = attributes['source'], attributes['combine']
    for _ in range(attributes['iterations']):
        lateral_x = lateral_input(lateral, activity_y, winner_y, source, types.lateral_accum)
        lateral_y = lateral_input(transposed(lateral), activity_x, winner_x, source, types.lateral_accum)
        activity_x = combine(activity_x, lateral_x, combination, types)
        activity_y = combine(activity_y, lateral_y, combination, types)
        winner_x, winner_y = first_largest(activity_x)[0], first_largest(activity_y)[0]
    return activity_x, activity_y, winner_x, winner_y


def resom(
    inputs: tuple[FixedArray, FixedArray],
    weights: dict[str, FixedArray],
    attributes: dict,
    types: ResomTypes,
    tables: tuple[ActivityTable, ActivityTable],
) -> FixedArray:
    """The layer output selected by attributes['output'] (one of RESOM_OUTPUTS).

    weights: codebook_x (N_x, D_x), codebook_y (N_y, D_y), lateral (N_x, N_y), labels (N_x + N_y,)."""
    distance = attributes['distance']
    activity_x, bmu_x = afferent(inputs[0], weights['codebook_x'], distance, types.accum_x, tables[0])
    activity_y, bmu_y = afferent(inputs[1], weights['codebook_y'], distance, types.accum_y, tables[1])
    activity_x, activity_y, winner_x, winner_y = associate(
        activity_x, activity_y, (bmu_x, bmu_y), weights['lateral'], attributes, types
    )
    output, family = attributes['output'], activity_x.family
    if output == 'activities':
        raw = np.concatenate([activity_x.raw, activity_y.raw], axis=1)
        return FixedArray(raw, types.activity, family).cast(types.result)
    if output == 'winners':
        return quantize(np.stack([winner_x, winner_y], axis=1), types.result, family)
    best_x = take(activity_x, (np.arange(len(winner_x)), winner_x))
    best_y = take(activity_y, (np.arange(len(winner_y)), winner_y))
    winner = np.where(greater_than(best_y, best_x), activity_x.shape[1] + winner_y, winner_x)
    if output == 'index':
        return quantize(winner[:, None], types.result, family)
    return take(weights['labels'], winner[:, None]).cast(types.result)


# ---- what the interpreter and the lowering share -----------------------------------------------------


def remainder_type(activity: FixedPrecisionType, lateral_accum: FixedPrecisionType) -> FixedPrecisionType:
    """Holds every dividend and twice every divisor exactly: both are below 4 * max(lateral, 1) and
    carry the fraction bits of an activity times a lateral value."""
    integer = max(lateral_accum.integer, 1) + 2
    return FixedPrecisionType(integer + activity.fractional + lateral_accum.fractional, integer, False)


def layer_setup(layer: Layer, family: str) -> tuple[ResomTypes, tuple[ActivityTable, ActivityTable]]:
    """The types and the two activity tables (in activity_t) of a ReSOM layer whose precisions are resolved."""
    types = {name: layer.types[name] for name in ('accum_x', 'accum_y', 'activity', 'lateral_accum')}
    for name, precision in types.items():
        if not isinstance(precision, FixedPrecisionType):
            raise ValueError(f'{layer.describe()}: {name} must be a fixed-point type, got {precision}')
    activity, lateral_accum = types['activity'], types['lateral_accum']
    assert isinstance(activity, FixedPrecisionType) and isinstance(lateral_accum, FixedPrecisionType)
    if activity.max < 1.0 or activity.fractional < 1:
        raise ValueError(f'{layer.describe()}: activity type {activity} must hold 1 and 0.5 exactly')
    remainder = remainder_type(activity, lateral_accum)
    result = layer.types['result']
    resolved = ResomTypes(types['accum_x'], types['accum_y'], activity, lateral_accum, remainder, result)  # type: ignore[arg-type]
    attributes = layer.attributes
    size = attributes.get('table_size', DEFAULT_ACTIVITY_TABLE_SIZE)
    tables = tuple(
        activity_table(
            {'beta': attributes[f'beta_{side}'], 'table_size': size, 'distance': attributes['distance']},
            accum,
            activity,
            family,
        )
        for side, accum in (('x', resolved.accum_x), ('y', resolved.accum_y))
    )
    return resolved, (tables[0], tables[1])
