"""On-chip Hebbian learning of a ReSOMMaps layer (docs/resom.md, "On-chip learning"): every pair matrix
H_ij (i < j) learns from the afferent activities of maps i and j of the same sample, in one call of the
layer's learning top function per sample.

    learner = hls_model.learner('resom')          # a ReSOMMapsLearner for a ReSOMMaps layer
    learner.fit([x0, x1, x2], epochs=3, rate=0.05, rule='hebb')
    learner.laterals[(0, 2)]                      # (n_units_0, n_units_2) float64
    learner.apply()

Bit for bit the numpy twin `hebbian_maps_update` (hls4ml/model/reference/resom_learn.py).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hls4ml.csim.learning import HEBBIAN_RULE_CODES, run_hebbian_maps
from hls4ml.learning.learners import LearningWarning, ModelGraph, epoch_count
from hls4ml.learning.map_kohonen import MapKohonen
from hls4ml.model.fixed import quantize
from hls4ml.model.kinds import Kind
from hls4ml.model.learning_types import hebbian_types
from hls4ml.model.precision_resom_maps import _lateral_bound as lateral_bound
from hls4ml.model.reference.resom_maps import block_matrix, pairs
from hls4ml.model.types import FixedPrecisionType


class ReSOMMapsLearner(MapKohonen):
    """Hebbian learning (spec A.9) of every pair matrix of one ReSOMMaps layer on the compiled firmware:
    rules 'hebb' (H_ij += rate a^i a^j^T), 'oja' (H_ij[u, v] += rate (a^i_u a^j_v - (a^j_v)^2 H_ij[u, v]))
    and 'bmu' (H_ij[winner_i, winner_j] += rate), the winners those of the afferent activities; and the
    Kohonen learning of each map (`kohonen_step`, `kohonen_fit`, `codebooks`)."""

    kind = Kind.RESOM_MAPS

    def __init__(self, model: ModelGraph, layer_name: str) -> None:
        super().__init__(model, layer_name)
        self.types = hebbian_types(self.layer)
        self.units: tuple[int, ...] = tuple(self.layer.attributes['map_units'])
        self.pairs = pairs(len(self.units))
        self.sizes = tuple(model.graph.tensors[name].size for name in self.layer.inputs)
        self._laterals = {
            pair: quantize(self.layer.weights[f'lateral_{pair[0]}_{pair[1]}'], self.types.lateral, self.family).value
            for pair in self.pairs
        }
        self._start_maps()

    @property
    def laterals(self) -> dict[tuple[int, int], np.ndarray]:
        """The learned pair matrices by pair (i, j), i < j, each (n_units_i, n_units_j) (copies; exact
        values of `types.lateral`)."""
        return {pair: np.array(values, dtype=np.float64) for pair, values in self._laterals.items()}

    def hebbian_step(self, xs: Any, rate: Any, rule: str = 'hebb') -> np.ndarray:
        """One Hebbian step of every pair matrix per sample, in order: xs holds one (n, size_m) array per
        map, rate is in (0, 1] (a scalar or one per sample); returns the (n, n_maps) afferent winners."""
        if rule not in HEBBIAN_RULE_CODES:
            raise ValueError(f'{self.layer.describe()}: unknown Hebbian rule {rule!r}; expected hebb, oja or bmu')
        self._refuse_stale_codebooks()
        samples = self._map_samples(xs)
        rates = self._per_sample(rate, len(samples), 'rate', 1.0)
        state = np.ascontiguousarray(np.concatenate([values.reshape(-1) for values in self._laterals.values()]))
        winners = run_hebbian_maps(self._simulation, self.layer.name, samples, len(self.units), rates, rule, state)
        start = 0
        for i, j in self.pairs:
            size = self.units[i] * self.units[j]
            self._laterals[(i, j)] = state[start : start + size].reshape(self.units[i], self.units[j])
            start += size
        self._warn_saturated()
        return winners

    def fit(self, xs: Any, epochs: int = 1, rate: float = 0.01, rule: str = 'hebb') -> np.ndarray:
        """`epochs` passes over the samples (one array per map) at a constant rate; returns the winners of
        all steps."""
        count = epoch_count(epochs, self.layer)
        samples = self._map_samples(xs)
        return self.hebbian_step(self._split(np.concatenate([samples] * count)), rate, rule)

    def apply(self, labels: Any = None) -> None:
        """Put the learned pair matrices and codebooks (and new labels) into the model; the next
        compile()/predict() use them. The shared distance type is widened (LearningWarning) where a
        learned codebook's distances no longer fit it, the lateral input type where the learned sums overflow it."""
        weights = {f'lateral_{i}_{j}': values for (i, j), values in self.laterals.items()}
        weights.update({**self._new_labels(labels), **self._codebook_weights()})
        self._widen_lateral_input()
        self.model.update_weights(self.layer.name, weights)

    def _map_samples(self, xs: Any) -> np.ndarray:
        """The (n, sum of the maps' sizes) rows the bridge reads: each map's checked samples side by side."""
        if not isinstance(xs, (list, tuple)) or len(xs) != len(self.units):
            raise ValueError(
                f'{self.layer.describe()}: xs must be a list of {len(self.units)} arrays (one per map), '
                f'got {type(xs).__name__}{f" of {len(xs)}" if isinstance(xs, (list, tuple)) else ""}'
            )
        samples = [self._samples(x, size, f'xs[{m}]') for m, (x, size) in enumerate(zip(xs, self.sizes, strict=True))]
        counts = [len(values) for values in samples]
        if len(set(counts)) != 1:
            raise ValueError(f'{self.layer.describe()}: the maps got different sample counts {counts}')
        return np.ascontiguousarray(np.concatenate(samples, axis=1))

    def _split(self, samples: np.ndarray) -> list[np.ndarray]:
        return np.split(samples, np.cumsum(self.sizes)[:-1], axis=1)

    def _warn_saturated(self) -> None:
        """H grows with the samples seen: say so when synapses stop at the lateral type's largest value."""
        top = self.types.lateral.max
        count = sum(int(np.count_nonzero(values >= top)) for values in self._laterals.values())
        if count:
            warnings.warn(
                f'{self.layer.describe()}: {count} lateral synapse(s) saturated at {top:g}, the largest value of '
                f'its lateral type {self.layer.types["lateral"]}; give the layer a wider lateral type '
                "(hls_config['LayerName'][...]['Precision']['lateral']) or a smaller rate",
                LearningWarning,
                stacklevel=3,
            )

    def _widen_lateral_input(self) -> None:
        """Widen lateral_accum when the learned matrices' largest lateral input (or its fraction) no
        longer fits: to the worst case of any matrix of the lateral type, so later learning fits too."""
        accum, lateral, activity = (self.layer.types[name] for name in ('lateral_accum', 'lateral', 'activity'))
        assert isinstance(accum, FixedPrecisionType) and isinstance(lateral, FixedPrecisionType)
        assert isinstance(activity, FixedPrecisionType)
        matrix = block_matrix(self._laterals, self.units)
        sums = lateral_bound(self.layer, np.abs(matrix)) * activity.max
        fraction = lateral.fractional + (activity.fractional if self.layer.attributes['source'] == 'all' else 0)
        if accum.max >= sums and accum.fractional >= fraction and (accum.signed or matrix.min() >= 0):
            return
        worst = sum(self.units) * max(abs(lateral.max), abs(lateral.min)) * activity.max
        integer = max(int(np.floor(np.log2(worst))) + 1, 1) + (1 if lateral.signed else 0)
        widened = FixedPrecisionType(integer + fraction, integer, lateral.signed)
        self.layer.types['lateral_accum'] = widened
        warnings.warn(
            f'{self.layer.describe()}: its lateral input type {accum} does not hold the sums of the learned '
            f'pair matrices; apply() widened it to {widened} (exact for any matrices of its type)',
            LearningWarning,
            stacklevel=3,
        )
