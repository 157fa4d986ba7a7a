"""Reference of `nnet::som` (nnet_som.h): distances to every codebook vector, best-matching unit, output.

Distances, with diff_j = x_j - w_nj exact and every `acc = ...` a write into accum_t:
  squared_euclidean  acc += diff_j * diff_j
  manhattan          acc -= diff_j when diff_j < 0, else acc += diff_j
  chebyshev          acc = diff_j when diff_j > acc; then acc = -diff_j when -diff_j > acc
  cosine             acc += x_j * w_nj  (a similarity of a pre-normalised codebook: the BMU is its argmax)
The BMU scan keeps the first unit and replaces it only on a strictly better one, so ties go to the
lowest index (numpy argmin, MiniSom `winner()`).

Output 'activities' (spec A.4): exp(-gap_n / beta) with gap_n = d_n - d_bmu >= 0, looked up in a table
(`ActivityTable`). For squared_euclidean, d_n is the floor of the square root of the accumulated
squared distance on a grid of 2^-ceil(F/2) (F: accum_t's fractional bits), found bit by bit from the
top (`unit_roots`); for manhattan and chebyshev d_n is the distance itself; for cosine the gap is
similarity_bmu - similarity_n. The gap is exact; its slot is gap / step rounded half up (the floor
of gap / (step / 2), plus 1, halved) with a power-of-two step; slot k reads exp(-k * step / beta)
(slot 0: exactly 1), slots past the table give 0.
Output 'coordinates' of a hexagonal map reads MiniSom's Euclidean unit coordinates from a table.

Implementation 'dense' (squared_euclidean and cosine, outputs that depend on the BMU only): the scores
w_n . x - |w_n|^2 / 2 (cosine: w_n . x) of `nnet::dense` over the transposed codebook and the exact
biases of `score_biases` (the Dense reference, accumulating in accum_t), and the first unit with the
largest score: argmin_n |x - w_n|^2 = argmax_n (w_n . x - |w_n|^2 / 2), |x|^2 being
common to all units, so with exact scores the BMU is the distance form's, ties included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference.arrays import as_samples, greater_than, integer, select, take
from hls4ml.model.reference.dense import dense
from hls4ml.model.shape_rules import som_dense_problem
from hls4ml.model.types import FixedPrecisionType, PrecisionType, parse_precision

SOM_TOPOLOGIES = ('rectangular', 'hexagonal')  # hexagonal: 'coordinates' are MiniSom's Euclidean ones

SIMILARITIES = ('cosine',)  # larger is closer
HEXAGONAL_ROW_HEIGHT = math.sqrt(3) / 2  # MiniSom's Y_HEX_CONV_FACTOR
DEFAULT_ACTIVITY_TABLE_SIZE = 1024
ACTIVITY_TABLE_TYPE = FixedPrecisionType(16, 1, False)  # holds 1.0 (the BMU) and 15 fractional bits
ACTIVITY_RANGE = 8.0  # gaps beyond 8 beta read 0 (exp(-8) < 3.4e-4), as in the spec (A.4)
MAX_ACTIVITY_SHIFT = 28  # 2**(shift + 1) must fit a C int (nnet_table.h)


def som_distances(x: FixedArray, codebook: FixedArray, distance: str, accum_type: str | PrecisionType) -> FixedArray:
    """(n_samples, n_units) accumulated distances (or similarities for cosine) in accum_type."""
    x = as_samples(x)
    n_units, n_in = codebook.shape
    if x.shape[1] != n_in:
        raise ValueError(f'som: input {x.shape} does not match the codebook {codebook.shape}')
    zeros = np.zeros((x.shape[0], n_units))
    acc = quantize(zeros, accum_type, x.family)
    for j in range(n_in):
        value = take(x, (slice(None), slice(j, j + 1)))
        weight = take(codebook, (slice(None), j))
        acc = _accumulate(acc, value, weight, distance, accum_type)
    return acc


def _accumulate(
    acc: FixedArray, value: FixedArray, weight: FixedArray, distance: str, accum_type: str | PrecisionType
) -> FixedArray:
    if distance == 'cosine':
        return (acc + value * weight).cast(accum_type)
    diff = value - weight
    if distance == 'squared_euclidean':
        return (acc + diff * diff).cast(accum_type)
    if distance == 'manhattan':
        return select(diff < integer(0, diff.family), (acc - diff).cast(accum_type), (acc + diff).cast(accum_type))
    if distance == 'chebyshev':
        acc = select(greater_than(diff, acc), diff.cast(accum_type), acc)
        return select(greater_than(-diff, acc), (-diff).cast(accum_type), acc)
    raise ValueError(f'som: unknown distance {distance!r}')


def best_matching_unit(distances: FixedArray, distance: str) -> np.ndarray:
    """Per sample, the first unit with the smallest distance (largest similarity for cosine)."""
    return first_best(distances, largest=distance in SIMILARITIES)


def first_best(values: FixedArray, largest: bool) -> np.ndarray:
    """Per sample (row), the first index of the smallest (or largest) value: a scan that moves only
    on a strictly better value (`nnet::som_first_best`)."""
    best = take(values, (slice(None), 0))
    index = np.zeros(values.shape[0], dtype=np.int64)
    for unit in range(1, values.shape[1]):
        candidate = take(values, (slice(None), unit))
        better = greater_than(candidate, best) if largest else candidate < best
        best = select(better, candidate, best)
        index = np.where(better, unit, index)
    return index


def score_weights(codebook: FixedArray) -> FixedArray:
    """The dense form's weights: the codebook transposed to Dense's (n_in, n_units) layout."""
    return FixedArray(np.asarray(codebook.raw).T, codebook.type, codebook.family)


def score_biases(codebook: FixedArray, distance: str) -> FixedArray:
    """The dense form's biases, exact: -|w_n|^2 / 2 for squared_euclidean (raw -sum_j r_nj^2 with
    2F + 1 fractional bits, F the codebook's), zeros for cosine; signed, with at least one integer bit."""
    rows = np.asarray(codebook.raw, dtype=object).reshape(codebook.shape)
    squared = distance == 'squared_euclidean'
    raw = [-sum(int(value) * int(value) for value in row) if squared else 0 for row in rows]
    fraction = 2 * codebook.type.fractional + 1
    width = max(max((abs(value) for value in raw), default=0).bit_length() + 1, fraction + 1)
    precision = FixedPrecisionType(width, width - fraction, True)
    return FixedArray.from_raw(np.array(raw, dtype=object), precision, codebook.family)


def som_scores(x: FixedArray, codebook: FixedArray, distance: str, accum_type: str | PrecisionType) -> FixedArray:
    """(n_samples, n_units) scores of the dense form, in accum_type: nnet::dense over the transposed
    codebook and `score_biases`, its result written into accum_type."""
    biases = score_biases(codebook, distance)
    return dense(as_samples(x), score_weights(codebook), biases, accum_type, accum_type)


def som(
    x: FixedArray,
    codebook: FixedArray,
    labels: FixedArray | None,
    attributes: dict,
    accum_type: str | PrecisionType,
    result_type: str | PrecisionType,
    table_type: str | PrecisionType | None = None,
) -> FixedArray:
    """The layer output selected by attributes['output'] (see `hls4ml.model.kinds.SOM_OUTPUTS`);
    `table_type`: the activity table's type (output 'activities'). With attributes['implementation']
    'dense', accum_type is the scores' type."""
    if attributes.get('implementation', 'distance') == 'dense':
        problem = som_dense_problem(attributes)
        if problem:
            raise ValueError(f'som: {problem}')
        bmu = first_best(som_scores(x, codebook, attributes['distance'], accum_type), largest=True)
        return bmu_output(bmu, codebook, labels, attributes, result_type)
    distances = som_distances(x, codebook, attributes['distance'], accum_type)
    output = attributes['output']
    if output == 'distances':
        return distances.cast(result_type)
    bmu = best_matching_unit(distances, attributes['distance'])
    if output == 'activities':
        table = activity_table(attributes, accum_type, table_type, x.family)
        return som_activities(distances, bmu, attributes['distance'], table).cast(result_type)
    return bmu_output(bmu, codebook, labels, attributes, result_type)


def bmu_output(
    bmu: np.ndarray,
    codebook: FixedArray,
    labels: FixedArray | None,
    attributes: dict,
    result_type: str | PrecisionType,
) -> FixedArray:
    """The outputs that depend on the BMU only: index, coordinates, one_hot, label, quantized."""
    output, family = attributes['output'], codebook.family
    if output == 'coordinates' and attributes.get('topology', 'rectangular') == 'hexagonal':
        coordinates = quantize(unit_coordinates(attributes['grid'], 'hexagonal'), result_type, family)
        return take(coordinates, bmu)
    if output == 'quantized':  # the BMU's codebook vector (MiniSom quantization(); cosine: normalised)
        return take(codebook, bmu).cast(result_type)
    if output == 'label':
        if labels is None:
            raise ValueError("som: output 'label' needs the labels")
        return take(labels, bmu[:, None]).cast(result_type)
    columns = attributes['grid'][1]
    if output == 'index':
        values = bmu[:, None]
    elif output == 'coordinates':
        values = np.stack([bmu // columns, bmu % columns], axis=1)
    elif output == 'one_hot':
        values = (np.arange(codebook.shape[0])[None, :] == bmu[:, None]).astype(np.int64)
    else:
        raise ValueError(f'som: unknown output {output!r}')
    return quantize(values.astype(np.int64), result_type, family)


def unit_coordinates(grid: tuple[int, int], topology: str = 'rectangular') -> np.ndarray:
    """(n_units, 2) coordinates of the units, row-major: (row, column) on a rectangular map; MiniSom's
    Euclidean coordinates (`get_euclidean_coordinates()`) on a hexagonal one: unit (i, j) sits at
    (i - 0.5 when (cols - 1 - j) is even, else i;  j * sqrt(3) / 2)."""
    if topology not in SOM_TOPOLOGIES:
        raise ValueError(f'som: unknown topology {topology!r}; expected one of {", ".join(SOM_TOPOLOGIES)}')
    rows, cols = grid
    row, column = np.divmod(np.arange(rows * cols), cols)
    if topology == 'rectangular':
        return np.stack([row, column], axis=1).astype(np.float64)
    shifted = (cols - 1 - column) % 2 == 0
    return np.stack([row - 0.5 * shifted, column * HEXAGONAL_ROW_HEIGHT], axis=1)


@dataclass(frozen=True)
class ActivityTable:
    """The exp(-gap / beta) table of output 'activities' and the types around it.

    Entry k holds exp(-k * 2**-shift / beta) rounded to the nearest value of `values.type`; the gap is
    floored onto the half-step grid by a write into `index_type` (TRN, SAT, shift + 1 fractional bits:
    `nnet::table_slot`), and (that + 1) >> 1 is the slot. `root_type` holds
    the square roots of squared Euclidean distances (None for the other distances)."""

    shift: int
    values: FixedArray
    index_type: FixedPrecisionType
    root_type: FixedPrecisionType | None

    @property
    def size(self) -> int:
        return int(self.values.shape[0])


def root_type(accum_type: str | PrecisionType) -> FixedPrecisionType:
    """Unsigned type of floor(sqrt(d)) for every d of accum_type, on a grid of 2^-ceil(F/2)."""
    accum = _fixed(accum_type, 'som accum')
    fraction = max(-(-accum.fractional // 2), 0)
    integer = max(-(-(accum.integer - accum.signed) // 2), 0)
    return FixedPrecisionType(max(integer + fraction, 1), integer, False)


def _fixed(precision: str | PrecisionType, what: str) -> FixedPrecisionType:
    parsed = parse_precision(precision, what)
    if not isinstance(parsed, FixedPrecisionType):
        raise ValueError(f'{what}: the SOM activities need a fixed-point type, got {parsed}')
    return parsed


def activity_table(
    attributes: dict,
    accum_type: str | PrecisionType,
    table_type: str | PrecisionType | None = None,
    family: str = 'ap',
) -> ActivityTable:
    """The table of attributes['beta'] (> 0) with attributes['table_size'] entries (a power of two) in
    `table_type` (`ACTIVITY_TABLE_TYPE` when None).

    Range: gaps up to beta * ACTIVITY_RANGE, or less where exp(-g / beta) drops below half an LSB of
    the table type (g = beta * (F + 1) * ln 2); the step is the smallest power of two that fits that
    window into the table, but no finer than the gap's LSB (finer entries could never be read)."""
    beta = float(attributes.get('beta', 1.0))
    size = int(attributes.get('table_size', DEFAULT_ACTIVITY_TABLE_SIZE))
    if not (math.isfinite(beta) and beta > 0):
        raise ValueError(f'som: beta must be a finite positive number, got {beta}')
    if size < 2 or size & (size - 1):
        raise ValueError(f'som: the activity table size must be a power of two of at least 2, got {size}')
    kind = _fixed(ACTIVITY_TABLE_TYPE if table_type is None else table_type, 'som activity table')
    squared = attributes['distance'] == 'squared_euclidean'
    roots = root_type(accum_type) if squared else None
    gap_fraction = (roots or _fixed(accum_type, 'som accum')).fractional
    window = beta * min(ACTIVITY_RANGE, (kind.fractional + 1) * math.log(2.0))
    exponent = max(math.ceil(math.log2(window / size)), -gap_fraction)
    exponent = min(max(exponent, -MAX_ACTIVITY_SHIFT), MAX_ACTIVITY_SHIFT)
    points = np.arange(size) * 2.0**exponent
    rounded = FixedPrecisionType(kind.width, kind.integer, kind.signed, 'RND', 'SAT')
    values = quantize(np.clip(np.exp(-points / beta), kind.min, kind.max), rounded, family)
    values = FixedArray(values.raw, kind, family)
    width = (2 * size).bit_length() + 1  # signed, strictly holds the half-step slots -1 .. 2 * size
    index = FixedPrecisionType(width, width + exponent - 1, True, 'TRN', 'SAT')
    return ActivityTable(-exponent, values, index, roots)


def unit_roots(distances: FixedArray, roots: FixedPrecisionType) -> FixedArray:
    """floor(sqrt(d)) on the grid of `roots`: the largest r of that type with r * r <= d (what the
    kernel's bit-by-bit search from the top bit finds), exact for any width."""
    shift = 2 * roots.fractional - distances.type.fractional
    raw = np.asarray(distances.raw, dtype=object).reshape(-1)
    root = [math.isqrt(max(int(value), 0) << shift) for value in raw]
    largest = (1 << roots.width) - 1
    clipped = np.array([min(value, largest) for value in root], dtype=object).reshape(distances.shape)
    return FixedArray.from_raw(clipped, roots, distances.family)


def som_activities(distances: FixedArray, bmu: np.ndarray, distance: str, table: ActivityTable) -> FixedArray:
    """(n_samples, n_units) exp(-(d_n - d_bmu) / beta) from the table, in the table type."""
    samples = np.arange(distances.shape[0])
    if distance == 'squared_euclidean':
        assert table.root_type is not None
        distances = unit_roots(distances, table.root_type)
    best = take(distances, (samples[:, None], bmu[:, None]))
    gap = best - distances if distance in SIMILARITIES else distances - best
    slots = (np.asarray(gap.cast(table.index_type).raw, dtype=np.int64) + 1) >> 1
    inside = slots < table.size
    looked_up = take(table.values, np.where(inside, slots, 0))
    zero = FixedArray.from_raw(np.zeros(slots.shape, dtype=np.int64), table.values.type, distances.family)
    return select(inside, looked_up, zero)
