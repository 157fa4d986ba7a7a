"""Reference of the learning kernels of nnet_som_learn.h: the Kohonen SOM update and the Hebbian
updates of the ReSOM lateral matrix (and of every pair matrix of a ReSOMMaps layer). One sample per call.

Kohonen (spec A.8), with the BMU before the step and tables of exp(-k^2 / (2 sigma^2)):
  factor = rate * (row_table[|row_n - row_bmu|] * col_table[|col_n - col_bmu|])   (a write into factor_t)
  W[n, j] = W[n, j] + factor * (x_j - W[n, j])                                     (a write into codebook_t)
Hebbian (spec A.9); every update is one write into the lateral type, the products exact:
  hebb  H[i, j] = H[i, j] + rate * (act_x[i] * act_y[j])
  oja   H[i, j] = H[i, j] + rate * (act_x[i] * act_y[j] - act_y[j] * act_y[j] * H[i, j])
  bmu   H[bmu_x, bmu_y] = H[bmu_x, bmu_y] + rate
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference.arrays import take
from hls4ml.model.reference.som import best_matching_unit, som_distances
from hls4ml.model.types import PrecisionType

HEBBIAN_RULES = ('hebb', 'oja')


def hebbian_update(
    lateral: FixedArray, act_x: FixedArray, act_y: FixedArray, rate: FixedArray, rule: str = 'hebb'
) -> FixedArray:
    """The (n_units_x, n_units_y) lateral matrix after one sample with 1-D activities act_x, act_y."""
    if rule not in HEBBIAN_RULES:
        raise ValueError(f'hebbian_update: unknown rule {rule!r}; expected one of {", ".join(HEBBIAN_RULES)}')
    if lateral.shape != (act_x.shape[0], act_y.shape[0]):
        raise ValueError(
            f'hebbian_update: lateral {lateral.shape} does not fit activities {act_x.shape}, {act_y.shape}'
        )
    column = take(act_x, (slice(None), None))
    row = take(act_y, (None, slice(None)))
    step = column * row
    if rule == 'oja':
        step = step - row * row * lateral
    return (lateral + rate * step).cast(lateral.type)


def hebbian_update_bmu(lateral: FixedArray, bmu_x: int, bmu_y: int, rate: FixedArray) -> FixedArray:
    """The lateral matrix after the BMU-only step: the (bmu_x, bmu_y) synapse grows by rate."""
    raw = np.array(lateral.raw, copy=True)
    grown = (take(lateral, (bmu_x, bmu_y)) + rate).cast(lateral.type)
    raw[bmu_x, bmu_y] = grown.raw
    return FixedArray(raw, lateral.type, lateral.family)


def neighbourhood_table(size: int, sigma: float, precision: str | PrecisionType, family: str = 'ap') -> FixedArray:
    """exp(-k^2 / (2 sigma^2)) for grid gaps k = 0 .. size - 1 (one table per grid axis)."""
    if not sigma > 0:
        raise ValueError(f'neighbourhood_table: sigma must be positive, got {sigma}')
    gaps = np.arange(size, dtype=np.float64)
    return quantize(np.exp(-(gaps**2) / (2.0 * sigma**2)), precision, family)


def kohonen_update(
    x: FixedArray,
    codebook: FixedArray,
    tables: tuple[FixedArray, FixedArray],
    rate: FixedArray,
    grid: tuple[int, int],
    distance: str,
    types: tuple[str | PrecisionType, str | PrecisionType],
) -> tuple[FixedArray, int]:
    """The (n_units, n_in) codebook after one step towards the 1-D sample x, and the BMU before it.
    tables: the row and column neighbourhood tables; types: (accum_t of the distances, factor_t)."""
    rows, cols = grid
    if codebook.shape != (rows * cols, x.shape[0]):
        raise ValueError(f'kohonen_update: codebook {codebook.shape} does not fit grid {grid} and input {x.shape}')
    accum_type, factor_type = types
    sample = take(x, (None, slice(None)))
    bmu = int(best_matching_unit(som_distances(sample, codebook, distance, accum_type), distance)[0])
    units = np.arange(rows * cols)
    row_gap, col_gap = np.abs(units // cols - bmu // cols), np.abs(units % cols - bmu % cols)
    factor = (rate * (take(tables[0], row_gap) * take(tables[1], col_gap))).cast(factor_type)
    step = take(factor, (slice(None), None)) * (sample - codebook)
    return (codebook + step).cast(codebook.type), bmu


def hebbian_maps_update(
    laterals: dict[tuple[int, int], FixedArray],
    activities: list[FixedArray],
    winners: list[int],
    rate: FixedArray,
    rule: str = 'hebb',
) -> dict[tuple[int, int], FixedArray]:
    """The pair matrices of a ReSOMMaps layer after one sample: every H_ij (i < j) takes the two-map step
    from the 1-D afferent activities of maps i and j (rule 'bmu': their afferent winners)."""
    if rule == 'bmu':
        return {(i, j): hebbian_update_bmu(matrix, winners[i], winners[j], rate) for (i, j), matrix in laterals.items()}
    return {
        (i, j): hebbian_update(matrix, activities[i], activities[j], rate, rule) for (i, j), matrix in laterals.items()
    }
