"""Reference of `nnet::som` (nnet_som.h): distances to every codebook vector, best-matching unit, output.

Distances, with diff_j = x_j - w_nj exact and every `acc = ...` a write into accum_t:
  squared_euclidean  acc += diff_j * diff_j
  manhattan          acc -= diff_j when diff_j < 0, else acc += diff_j
  chebyshev          acc = diff_j when diff_j > acc; then acc = -diff_j when -diff_j > acc
  cosine             acc += x_j * w_nj  (a similarity of a pre-normalised codebook: the BMU is its argmax)
The BMU scan keeps the first unit and replaces it only on a strictly better one, so ties go to the
lowest index (numpy argmin, MiniSom `winner()`).
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference.arrays import as_samples, greater_than, integer, select, take
from hls4ml.model.types import PrecisionType

SIMILARITIES = ('cosine',)  # larger is closer


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
    best = take(distances, (slice(None), 0))
    index = np.zeros(distances.shape[0], dtype=np.int64)
    for unit in range(1, distances.shape[1]):
        candidate = take(distances, (slice(None), unit))
        better = greater_than(candidate, best) if distance in SIMILARITIES else candidate < best
        best = select(better, candidate, best)
        index = np.where(better, unit, index)
    return index


def som(
    x: FixedArray,
    codebook: FixedArray,
    labels: FixedArray | None,
    attributes: dict,
    accum_type: str | PrecisionType,
    result_type: str | PrecisionType,
) -> FixedArray:
    """The layer output selected by attributes['output'] (see `hls4ml.model.layers.SOM_OUTPUTS`)."""
    distances = som_distances(x, codebook, attributes['distance'], accum_type)
    output = attributes['output']
    if output == 'distances':
        return distances.cast(result_type)
    bmu = best_matching_unit(distances, attributes['distance'])
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
    return quantize(values.astype(np.int64), result_type, x.family)
