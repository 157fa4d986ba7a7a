"""The framework-free part of the SOM layers (`hls4ml.nn.keras_som.SOM`, `hls4ml.nn.torch_som.SOM`).

* `SOMSettings`: grid, distance, output, topology and beta, checked once (the IR SOM's values, see
  docs/som.md; 'euclidean' is accepted for 'squared_euclidean').
* `som_forward`: the float64 forward pass both framework layers compute, in numpy (the tests' oracle).
* `train_kohonen`: the classic Kohonen rule, online or batch, deterministic for a given seed.
* `minisom_state`: codebook, grid, distance and topology of a trained MiniSom.

Forward semantics, shared with the IR SOM: the BMU is the first unit with the smallest distance (the
largest similarity for cosine, over a row-normalised codebook); squared Euclidean distances; outputs
index (n, 1), coordinates (n, 2), one_hot (n, N), distances (n, N), label (n, 1), activities (n, N)
= exp(-(d_n - d_bmu) / beta) with the Euclidean (not squared) d, or sim_bmu - sim_n for cosine, and
quantized (n, n_in): the BMU's codebook vector (row-normalised for cosine).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.kinds import SOM_DISTANCES, SOM_OUTPUTS, SOM_TOPOLOGIES
from hls4ml.model.reference.som import unit_coordinates
from hls4ml.model.som_graphs import minisom_distance

ALIASES = {'euclidean': 'squared_euclidean'}
TRAINING_MODES = ('online', 'batch')
LABELLING_METHODS = ('majority', 'activities')


@dataclass(frozen=True)
class SOMSettings:
    """What a SOM layer computes, apart from its codebook and labels."""

    grid: tuple[int, int]
    distance: str = 'squared_euclidean'
    output: str = 'index'
    topology: str = 'rectangular'
    beta: float = 1.0

    @property
    def n_units(self) -> int:
        return self.grid[0] * self.grid[1]

    def n_out(self, n_in: int) -> int:
        """Values per sample of the output."""
        return {'index': 1, 'label': 1, 'coordinates': 2, 'quantized': n_in}.get(self.output, self.n_units)

    def coordinates(self) -> np.ndarray:
        """(N, 2) unit positions: (row, column), or MiniSom's Euclidean ones on a hexagonal map."""
        return unit_coordinates(self.grid, self.topology)


def make_settings(grid: Any, distance: str, output: str, topology: str, beta: float, where: str = 'SOM') -> SOMSettings:
    """Checked settings; every error names `where` and the bad value."""
    try:
        rows, cols = (int(size) for size in grid)
    except (TypeError, ValueError) as error:
        raise ValueError(f'{where}: grid must be (rows, cols), got {grid!r}') from error
    if rows < 1 or cols < 1:
        raise ValueError(f'{where}: grid {rows}x{cols} must have at least one row and one column')
    distance = ALIASES.get(distance, distance)
    for what, value, allowed in (
        ('distance', distance, SOM_DISTANCES),
        ('output', output, SOM_OUTPUTS),
        ('topology', topology, SOM_TOPOLOGIES),
    ):
        if value not in allowed:
            raise ValueError(f'{where}: unsupported {what} {value!r}; expected one of {", ".join(allowed)}')
    if not (isinstance(beta, (int, float)) and np.isfinite(beta) and beta > 0):
        raise ValueError(f'{where}: beta must be a finite positive number, got {beta!r}')
    return SOMSettings((rows, cols), distance, output, topology, float(beta))


def check_codebook(codebook: Any, settings: SOMSettings, n_in: int | None, where: str = 'SOM') -> np.ndarray:
    """The codebook as a float64 (N, n_in) array: the right shape, finite values."""
    values = np.asarray(codebook, dtype=np.float64)
    if values.ndim == 3:  # MiniSom's (rows, cols, n_in)
        values = values.reshape(-1, values.shape[-1])
    width = values.shape[-1] if values.ndim == 2 else None
    if values.ndim != 2 or values.shape[0] != settings.n_units or (n_in is not None and width != n_in):
        expected = f'({settings.n_units}, {n_in if n_in is not None else "n_in"})'
        raise ValueError(f'{where}: the codebook has shape {values.shape}, expected {expected}')
    if not np.all(np.isfinite(values)):
        raise ValueError(f'{where}: the codebook holds NaN or infinite values')
    return values


def check_data(data: Any, n_in: int, where: str = 'SOM') -> np.ndarray:
    """Samples as a float64 (n, n_in) array of finite values."""
    values = np.asarray(data, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != n_in:
        raise ValueError(f'{where}: expected samples of shape (n, {n_in}), got {values.shape}')
    if not np.all(np.isfinite(values)):
        raise ValueError(f'{where}: the samples hold NaN or infinite values')
    return values


def layer_codebook(codebook: np.ndarray, distance: str) -> np.ndarray:
    """The codebook the layer computes with: rows divided by their norms for cosine (zero rows stay)."""
    if distance != 'cosine':
        return codebook
    norms = np.linalg.norm(codebook, axis=1, keepdims=True)
    return codebook / np.where(norms > 0, norms, 1.0)


def unit_scores(x: np.ndarray, codebook: np.ndarray, distance: str) -> np.ndarray:
    """(n, N) distances, or similarities for cosine (over the row-normalised codebook)."""
    if distance == 'cosine':
        return x @ layer_codebook(codebook, distance).T
    diff = x[:, None, :] - codebook[None, :, :]
    if distance == 'squared_euclidean':
        return (diff**2).sum(axis=2)
    if distance == 'manhattan':
        return np.abs(diff).sum(axis=2)
    return np.abs(diff).max(axis=2)


def best_units(scores: np.ndarray, distance: str) -> np.ndarray:
    """The first unit with the smallest distance (largest similarity): numpy's argmin / argmax."""
    return scores.argmax(axis=1) if distance == 'cosine' else scores.argmin(axis=1)


def activities(scores: np.ndarray, best: np.ndarray, distance: str, beta: float) -> np.ndarray:
    """exp(-(d_n - d_bmu) / beta), d the Euclidean (not squared) distance; sim_bmu - sim_n for cosine."""
    linear = np.sqrt(scores) if distance == 'squared_euclidean' else scores
    at_best = np.take_along_axis(linear, best[:, None], axis=1)
    gap = at_best - linear if distance == 'cosine' else linear - at_best
    return np.exp(-gap / beta)


def auto_beta(codebook: np.ndarray, settings: SOMSettings, data: Any, where: str = 'SOM') -> float:
    """beta chosen from the data's distance scale: the median, over the samples, of the gap between the
    second-nearest and the nearest unit (the distance the activities use), so a typical runner-up unit
    has activity exp(-1). On the digits (docs/resom.md, a ReSOM) it scores as well as the best fixed beta and
    scales with the data (a beta of 1 on [0, 1] inputs collapsed the labelling). Ties give gaps of 0:
    then the mean of the positive gaps."""
    samples = check_data(data, codebook.shape[1], where)
    scores = unit_scores(samples, codebook, settings.distance)
    linear = np.sort(np.sqrt(scores) if settings.distance == 'squared_euclidean' else scores, axis=1)
    if linear.shape[1] < 2:
        raise ValueError(f"{where}: beta 'auto' needs a map of at least two units; give a number")
    gaps = linear[:, 1] - linear[:, 0]
    median = float(np.median(gaps))
    if median > 0:
        return median
    if not (gaps > 0).any():
        raise ValueError(f"{where}: beta 'auto': every sample is as near to two units (identical units?); give one")
    return float(gaps[gaps > 0].mean())


def som_forward(x: Any, codebook: np.ndarray, labels: np.ndarray | None, settings: SOMSettings) -> np.ndarray:
    """The float64 output of a SOM layer for samples x (n, n_in)."""
    x = check_data(x, codebook.shape[1])
    scores = unit_scores(x, codebook, settings.distance)
    best = best_units(scores, settings.distance)
    output = settings.output
    if output == 'distances':
        return scores
    if output == 'activities':
        return activities(scores, best, settings.distance, settings.beta)
    if output == 'index':
        return best[:, None].astype(np.float64)
    if output == 'coordinates':
        return settings.coordinates()[best]
    if output == 'one_hot':
        return (np.arange(settings.n_units)[None, :] == best[:, None]).astype(np.float64)
    if output == 'quantized':
        return layer_codebook(codebook, settings.distance)[best]
    if labels is None:
        raise ValueError("SOM: output 'label' needs labels (one class per unit)")
    return np.asarray(labels, dtype=np.float64)[best][:, None]


# ---- training ---------------------------------------------------------------------------------------
def _decayed(start: float, step: int, total: int) -> float:
    """MiniSom's asymptotic decay: start / (1 + t / (T / 2)), down to a third of start at t = T."""
    return start / (1.0 + step / (total / 2.0))


def _neighbourhood(positions: np.ndarray, best: np.ndarray, sigma: float) -> np.ndarray:
    """(len(best), N) Gaussian of the squared grid distance of every unit to each BMU."""
    squared = ((positions[None, :, :] - positions[best][:, None, :]) ** 2).sum(axis=2)
    return np.exp(-squared / (2.0 * sigma * sigma))


def initial_codebook(data: np.ndarray, n_units: int, seed: int) -> np.ndarray:
    """N samples drawn (with replacement) by a seeded generator, as MiniSom's random_weights_init."""
    rng = np.random.default_rng(seed)
    return data[rng.integers(0, len(data), size=n_units)].copy()


def train_kohonen(
    data: Any,
    codebook: np.ndarray | None,
    settings: SOMSettings,
    epochs: int = 10,
    sigma: float | None = None,
    learning_rate: float = 0.5,
    mode: str = 'online',
    seed: int = 0,
    shuffle: bool = True,
) -> np.ndarray:
    """A trained codebook (N, n_in), float64; the same arguments give the same bits.

    online: per epoch a seeded permutation of the samples (their order without `shuffle`: then one
      epoch is MiniSom's `train(data, len(data))` from the same codebook); per sample, with t counting
      samples over all epochs, W_n += lr(t) h_n(t) (x - W_n), h_n = exp(-|p_n - p_bmu|^2 / (2 sigma(t)^2)).
    batch: per epoch t, W_n = sum_s h_n(s) x_s / sum_s h_n(s) over all samples (units that no sample
      reaches keep their vector); the learning rate is unused.
    lr and sigma decay as in MiniSom (`_decayed`); sigma starts at max(rows, cols) / 2 unless given;
    p_n are the unit coordinates of the topology; the BMU uses the layer's distance. Without a
    codebook, training starts from N samples drawn with `seed`."""
    if mode not in TRAINING_MODES:
        raise ValueError(f'SOM training: unknown mode {mode!r}; expected one of {", ".join(TRAINING_MODES)}')
    if int(epochs) < 1 or not learning_rate > 0:
        raise ValueError(f'SOM training: epochs ({epochs}) and learning_rate ({learning_rate}) must be positive')
    n_in = codebook.shape[1] if codebook is not None else np.asarray(data).shape[-1]
    samples = check_data(data, n_in, 'SOM training')
    weights = initial_codebook(samples, settings.n_units, seed) if codebook is None else codebook.copy()
    sigma = float(sigma) if sigma is not None else max(settings.grid) / 2.0
    positions = settings.coordinates()
    if mode == 'batch':
        return _train_batch(samples, weights, settings, positions, int(epochs), sigma)
    rng = np.random.default_rng(seed + 1)
    total, step = int(epochs) * len(samples), 0
    for _ in range(int(epochs)):
        for index in rng.permutation(len(samples)) if shuffle else range(len(samples)):
            x = samples[index : index + 1]
            best = best_units(unit_scores(x, weights, settings.distance), settings.distance)
            spread = _neighbourhood(positions, best, _decayed(sigma, step, total))[0]
            weights += _decayed(learning_rate, step, total) * spread[:, None] * (x - weights)
            step += 1
    return weights


def _train_batch(
    samples: np.ndarray, weights: np.ndarray, settings: SOMSettings, positions: np.ndarray, epochs: int, sigma: float
) -> np.ndarray:
    for epoch in range(epochs):
        best = best_units(unit_scores(samples, weights, settings.distance), settings.distance)
        spread = _neighbourhood(positions, best, _decayed(sigma, epoch, epochs)).T  # (N, n)
        mass = spread.sum(axis=1, keepdims=True)
        weights = np.where(mass > 0, spread @ samples / np.where(mass > 0, mass, 1.0), weights)
    return weights


def unit_labels(
    codebook: np.ndarray, settings: SOMSettings, data: Any, targets: Any, method: str = 'majority'
) -> np.ndarray:
    """One label per unit from labelled samples (spec A.5).

    majority (MiniSom style, as `converters.som.minisom_unit_labels`): the majority target of the samples
      the unit wins (ties: the smallest label); a unit that wins none takes the label of the nearest
      labelled unit on the grid (ties: the lowest index).
    activities (Khacef et al.): A[n, c] = the mean over the samples of class c of the activities
      exp(-(d_n - d_bmu) / beta) (settings.beta); label n = argmax_c A[n, c] (ties: the smallest class)."""
    if method not in LABELLING_METHODS:
        raise ValueError(f'SOM labelling: unknown method {method!r}; expected one of {", ".join(LABELLING_METHODS)}')
    samples = check_data(data, codebook.shape[1], 'SOM labelling')
    classes = np.asarray(targets).reshape(-1).astype(np.int64)
    if len(classes) != len(samples) or classes.min(initial=0) < 0:
        raise ValueError(f'SOM labelling: {len(samples)} samples need as many non-negative integer targets')
    scores = unit_scores(samples, codebook, settings.distance)
    best = best_units(scores, settings.distance)
    if method == 'activities':
        found = activities(scores, best, settings.distance, settings.beta)
        sums = np.zeros((int(classes.max(initial=0)) + 1, settings.n_units))
        np.add.at(sums, classes, found)
        counts = np.bincount(classes, minlength=sums.shape[0])[:, None]
        return (sums / np.maximum(counts, 1)).argmax(axis=0).astype(np.float64)
    votes = np.zeros((settings.n_units, int(classes.max(initial=0)) + 1), dtype=np.int64)
    np.add.at(votes, (best, classes), 1)
    won = np.flatnonzero(votes.sum(axis=1))
    positions = settings.coordinates()
    squared = ((positions[:, None, :] - positions[won][None, :, :]) ** 2).sum(axis=2)
    nearest = won[squared.argmin(axis=1)]
    return votes.argmax(axis=1)[nearest].astype(np.float64)


# ---- MiniSom -----------------------------------------------------------------------------------------
def minisom_state(som: Any, distance: str | None = None) -> dict[str, Any]:
    """codebook (N, n_in), grid, distance and topology of a trained `minisom.MiniSom`."""
    weights = getattr(som, '_weights', None)
    if weights is None or np.ndim(weights) != 3:
        raise ValueError(f'expected a trained minisom.MiniSom, got {type(som).__name__}')
    rows, cols, n_in = np.shape(weights)
    return {
        'codebook': np.array(weights, dtype=np.float64).reshape(rows * cols, n_in),  # a copy
        'grid': (rows, cols),
        'distance': distance or minisom_distance(som),
        'topology': getattr(som, 'topology', 'rectangular'),
    }
