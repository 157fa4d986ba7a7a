"""On-chip learning through the flow (docs/som.md and docs/resom.md, "On-chip learning"): learners that
run the learning top functions of a compiled model's C-simulation, sample by sample, and put what they
learned back into the model.

    hls_model.compile()
    learner = hls_model.learner('som')              # SOMLearner (Kohonen) or ReSOMLearner (Hebbian)
    learner.fit(x, epochs=5, rate=0.5, sigma=2.0)   # schedules on the host, steps on the firmware
    learner.codebook                                # (n_units, n_in) float64, exact values of its type
    learner.apply()                                 # the model's weights: the next compile()/predict() use them

The learned state is a float64 array held here and handed to the library by each call (nothing of it
lives in C), so learners of one model are independent and each is bit for bit the numpy twin
(hls4ml/model/reference/resom_learn.py) in the types of hls4ml/model/learning_types.py. This module
holds what every learner shares and the SOM's; the ReSOM's is in resom.py, the ReSOMMaps' in
resom_maps.py, the Kohonen learning of their maps in map_kohonen.py.
"""

from __future__ import annotations

import warnings
from typing import Any, Protocol

import numpy as np

from hls4ml.csim.learning import run_kohonen
from hls4ml.csim.simulation import Simulation
from hls4ml.learning import schedules
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.learning_types import distance_fraction, kohonen_types, som_distance_bound
from hls4ml.model.precision_rules import unsigned_integer
from hls4ml.model.types import FixedPrecisionType


class ModelGraph(Protocol):
    """What a learner reads of hls4ml.api.ModelGraph (the learners sit below the API, which imports them)."""

    graph: Graph
    backend: Any

    def compiled_simulation(self, purpose: str) -> Simulation: ...

    def update_weights(self, layer_name: str, weights: dict[str, np.ndarray]) -> None: ...


class LearningWarning(UserWarning):
    """apply() had to widen an inference type, or kept labels that no longer describe the units."""


class Learner:
    """What both learners share: the model, the layer, the compiled library and the input checks."""

    kind: str = ''

    def __init__(self, model: ModelGraph, layer_name: str) -> None:
        self.model = model
        self.layer = find_layer(model, layer_name)
        if self.layer.kind != self.kind:
            raise ValueError(f'{self.layer.describe()}: {type(self).__name__} learns {self.kind} layers only')
        self.family = model.backend.family
        self._simulation = model.compiled_simulation('on-chip learning')

    def _samples(self, x: Any, size: int, what: str) -> np.ndarray:
        """(n, size) float64 samples from (n, size) or one (size,) sample; refuses NaN and wrong shapes."""
        values = np.asarray(x, dtype=np.float64) if _numeric(x) else None
        if values is None or values.ndim not in (1, 2) or values.shape[-1] != size or values.size == 0:
            shape = getattr(values, 'shape', type(x).__name__)
            raise ValueError(f'{self.layer.describe()}: {what} must have shape (n_samples, {size}), got {shape}')
        if not np.all(np.isfinite(values)):
            raise ValueError(f'{self.layer.describe()}: {what} holds NaN or infinite values')
        return np.ascontiguousarray(values.reshape(-1, size))

    def _per_sample(self, value: Any, count: int, what: str, upper: float | None) -> np.ndarray:
        """A scalar or one value per sample, each finite, > 0 and (with `upper`) <= upper."""
        values = np.asarray(value, dtype=np.float64) if _numeric(value) else None
        if values is not None and values.shape not in ((), (count,)):
            raise ValueError(
                f'{self.layer.describe()}: {what} must be one value or {count} (one per sample), got {values.shape}'
            )
        if values is None or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(f'{self.layer.describe()}: {what} must be positive and finite, got {value!r}')
        if upper is not None and np.any(values > upper):
            raise ValueError(f'{self.layer.describe()}: {what} must lie in (0, {upper:g}], got {value!r}')
        return np.ascontiguousarray(np.broadcast_to(values, (count,)))

    def _new_labels(self, labels: Any) -> dict[str, np.ndarray]:
        """The weights update of apply(labels=...): checked, with the label type (and a label result)
        widened to hold the largest class; without labels, a LearningWarning for a labelling layer."""
        if labels is None:
            if self.layer.attributes['output'] == 'label':
                warnings.warn(
                    f'{self.layer.describe()}: apply() keeps the labels of the conversion, which were computed '
                    'for the old weights; label the learned units and pass apply(labels=...)',
                    LearningWarning,
                    stacklevel=3,
                )
            return {}
        values = np.asarray(labels, dtype=np.float64).reshape(-1) if _numeric(labels) else np.array([-1.0])
        if values.size == 0 or np.any(values < 0) or np.any(values != np.floor(values)):
            raise ValueError(f'{self.layer.describe()}: labels must be non-negative integers, got {labels!r}')
        old = self.layer.weights.get('labels')
        if old is None or old.size != values.size:
            expected = 'no labels (its output is not label)' if old is None else f'{old.size} labels'
            raise ValueError(f'{self.layer.describe()}: apply() got {values.size} labels; the layer has {expected}')
        label = self.layer.types['label']
        if values.max() > label.max:  # type: ignore[attr-defined]
            widened = unsigned_integer(int(values.max()))
            self.layer.types['label'] = widened
            if self.layer.attributes['output'] == 'label':
                self.layer.types['result'] = widened
        return {'labels': values}


class SOMLearner(Learner):
    """Kohonen learning (spec A.8) of one SOM layer on the compiled firmware: W_n += rate h_n (x - W_n),
    h_n = row_table[|drow|] col_table[|dcol|], the tables exp(-k^2 / (2 sigma^2)) from the host."""

    kind = Kind.SOM

    def __init__(self, model: ModelGraph, layer_name: str) -> None:
        super().__init__(model, layer_name)
        self.types = kohonen_types(model.graph, self.layer)
        self.grid: tuple[int, int] = tuple(self.layer.attributes['grid'])  # type: ignore[assignment]
        self.n_in = self.layer.attributes['n_in']
        self._codebook = quantize(self.layer.weights['codebook'], self.types.codebook, self.family).value

    @property
    def codebook(self) -> np.ndarray:
        """The learned (n_units, n_in) codebook (a copy; exact values of `types.codebook`)."""
        return np.array(self._codebook, dtype=np.float64)

    def kohonen_step(self, x: Any, rate: Any, sigma: Any) -> np.ndarray:
        """One Kohonen step per sample of x, in order, with a rate in (0, 1] and a neighbourhood width
        sigma > 0 (each a scalar or one per sample); returns each sample's BMU before its step."""
        samples = self._samples(x, self.n_in, 'x')
        rates = self._per_sample(rate, len(samples), 'rate', 1.0)
        sigmas = self._per_sample(sigma, len(samples), 'sigma', None)
        tables = tuple(np.ascontiguousarray(schedules.neighbourhood_tables(sigmas, size)) for size in self.grid)
        codebook = np.ascontiguousarray(self._codebook.reshape(-1))
        bmus = run_kohonen(self._simulation, self.layer.name, samples, rates, (tables[0], tables[1]), codebook)
        self._codebook = codebook.reshape(self._codebook.shape)
        return bmus

    def fit(
        self,
        x: Any,
        epochs: int = 1,
        rate: float = 0.5,
        sigma: float | None = None,
        schedule: str = 'asymptotic',
        final_rate: float | None = None,
        final_sigma: float | None = None,
        shuffle: bool = False,
        seed: int = 0,
    ) -> np.ndarray:
        """`epochs` passes over x with the rate and sigma decaying by `schedule` ('asymptotic': MiniSom's
        per-sample decay; 'exponential': Khacef's per-epoch decay to final_rate / final_sigma). sigma
        defaults to max(rows, cols) / 2; shuffle visits each epoch in a seeded permutation. Returns the
        BMUs of all steps."""
        samples = self._samples(x, self.n_in, 'x')
        order = visit_order(len(samples), epoch_count(epochs, self.layer), shuffle, seed)
        sigma = max(self.grid) / 2.0 if sigma is None else sigma
        rates = schedules.per_step(schedule, rate, final_rate, epochs, len(samples))
        sigmas = schedules.per_step(schedule, sigma, final_sigma, epochs, len(samples))
        return self.kohonen_step(samples[order], rates, sigmas)

    def apply(self, labels: Any = None) -> None:
        """Put the learned codebook (and new labels) into the model; the next compile()/predict() use
        them. The distance type is widened (with a LearningWarning) if it no longer holds every
        distance of the learned codebook exactly."""
        weights = {'codebook': self.codebook, **self._new_labels(labels)}
        self._widen_distances()
        self.model.update_weights(self.layer.name, weights)

    def _widen_distances(self) -> None:
        accum, codebook = self.layer.types['accum'], self.layer.types['codebook']
        assert isinstance(accum, FixedPrecisionType) and isinstance(codebook, FixedPrecisionType)
        distance = self.layer.attributes['distance']
        bound, _ = som_distance_bound(self.types.data, self._codebook, distance)
        fraction = distance_fraction(self.types.data, codebook, distance)
        if accum.max >= bound and accum.fractional >= fraction:
            return
        self.layer.types['accum'] = self.types.accum
        warnings.warn(
            f'{self.layer.describe()}: its distance type {accum} does not hold every distance of the learned '
            f'codebook exactly; apply() widened it to {self.types.accum} (exact for any codebook of its type)',
            LearningWarning,
            stacklevel=3,
        )


def find_layer(model: ModelGraph, layer_name: str) -> Layer:
    """The layer of that name; a ValueError listing the model's learnable layers when there is none."""
    if layer_name not in model.graph.layers:
        kinds = (Kind.SOM, Kind.RESOM, Kind.RESOM_MAPS)
        learnable = [name for name, layer in model.graph.layers.items() if layer.kind in kinds]
        raise ValueError(
            f'no layer {layer_name!r} in the model; its SOM, ReSOM and ReSOMMaps layers: {learnable or "none"}'
        )
    return model.graph.layers[layer_name]


def _numeric(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in 'fiub'
    except (ValueError, TypeError):
        return False


def epoch_count(epochs: Any, layer: Layer) -> int:
    """`epochs` as an int, refused (naming the layer) unless a positive integer."""
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f'{layer.describe()}: epochs must be a positive integer, got {epochs!r}')
    return int(epochs)


def visit_order(count: int, epochs: int, shuffle: bool, seed: int) -> np.ndarray:
    """The sample indices of all epochs: in order, or a seeded permutation per epoch."""
    if not shuffle:
        return np.tile(np.arange(count), epochs)
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(count) for _ in range(epochs)])
