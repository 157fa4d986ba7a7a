"""On-chip learning of a ReSOM layer (docs/resom.md, "On-chip learning"): the Hebbian step of its lateral
matrix (spec A.9) and, through hls4ml/learning/map_kohonen.py, the Kohonen steps of its two maps; each
bit for bit its numpy twin (hls4ml/model/reference/resom_learn.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hls4ml.csim.learning import HEBBIAN_RULE_CODES, run_hebbian
from hls4ml.learning.learners import LearningWarning, ModelGraph, epoch_count
from hls4ml.learning.map_kohonen import MapKohonen
from hls4ml.model.fixed import quantize
from hls4ml.model.kinds import Kind
from hls4ml.model.learning_types import hebbian_types
from hls4ml.model.types import FixedPrecisionType


class ReSOMLearner(MapKohonen):
    """Hebbian learning (spec A.9) of one ReSOM layer's lateral matrix on the compiled firmware, from
    the afferent activities of the layer's two maps: rules 'hebb' (H += rate a_x a_y^T), 'oja'
    (H_ij += rate (a_x_i a_y_j - a_y_j^2 H_ij)) and 'bmu' (H[bmu_x, bmu_y] += rate); and the Kohonen
    learning of its maps x (0) and y (1) (`kohonen_step`, `kohonen_fit`, `codebooks`)."""

    kind = Kind.RESOM

    def __init__(self, model: ModelGraph, layer_name: str) -> None:
        super().__init__(model, layer_name)
        self.types = hebbian_types(self.layer)
        attributes = self.layer.attributes
        self.shape = (attributes['n_units_x'], attributes['n_units_y'])
        self.sizes = tuple(model.graph.tensors[name].size for name in self.layer.inputs)
        self._lateral = quantize(self.layer.weights['lateral'], self.types.lateral, self.family).value
        self._start_maps()

    @property
    def lateral(self) -> np.ndarray:
        """The learned (n_units_x, n_units_y) lateral matrix (a copy; exact values of `types.lateral`)."""
        return np.array(self._lateral, dtype=np.float64)

    def hebbian_step(self, x: Any, y: Any, rate: Any, rule: str = 'hebb') -> np.ndarray:
        """One Hebbian step per paired sample (x, y), in order, with a rate in (0, 1] (a scalar or one
        per sample); returns the (n, 2) BMUs of the two maps."""
        if rule not in HEBBIAN_RULE_CODES:
            raise ValueError(f'{self.layer.describe()}: unknown Hebbian rule {rule!r}; expected hebb, oja or bmu')
        self._refuse_stale_codebooks()
        samples = self._samples(x, self.sizes[0], 'x'), self._samples(y, self.sizes[1], 'y')
        if len(samples[0]) != len(samples[1]):
            raise ValueError(f'{self.layer.describe()}: x has {len(samples[0])} samples, y {len(samples[1])}')
        rates = self._per_sample(rate, len(samples[0]), 'rate', 1.0)
        lateral = np.ascontiguousarray(self._lateral.reshape(-1))
        bmus = run_hebbian(self._simulation, self.layer.name, samples, rates, rule, lateral)
        self._lateral = lateral.reshape(self.shape)
        self._warn_saturated()
        return bmus

    def _warn_saturated(self) -> None:
        """H grows with the samples seen: say so when synapses stop at the lateral type's largest value."""
        top = self.types.lateral.max
        count = int(np.count_nonzero(self._lateral >= top))
        if count:
            warnings.warn(
                f'{self.layer.describe()}: {count} lateral synapse(s) saturated at {top:g}, the largest value of '
                f'its lateral type {self.layer.types["lateral"]}; give the layer a wider lateral type '
                "(hls_config['LayerName'][...]['Precision']['lateral']) or a smaller rate",
                LearningWarning,
                stacklevel=2,
            )

    def fit(self, x: Any, y: Any, epochs: int = 1, rate: float = 0.01, rule: str = 'hebb') -> np.ndarray:
        """`epochs` passes over the paired samples at a constant rate; returns the BMUs of all steps."""
        count = epoch_count(epochs, self.layer)
        x_all, y_all = (np.concatenate([np.asarray(values)] * count) for values in (x, y))
        return self.hebbian_step(x_all, y_all, rate, rule)

    def apply(self, labels: Any = None) -> None:
        """Put the learned lateral matrix and codebooks (and new labels) into the model; the next
        compile()/predict() use them. A distance type is widened (LearningWarning) where a learned
        codebook's distances no longer fit it, the lateral input type where the learned sums overflow it."""
        weights = {'lateral': self.lateral, **self._new_labels(labels), **self._codebook_weights()}
        self._widen_lateral_input()
        self.model.update_weights(self.layer.name, weights)

    def _widen_lateral_input(self) -> None:
        if self.layer.attributes['source'] == 'bmu':
            return  # one synapse at a time: the lateral type itself
        accum, lateral, activity = (self.layer.types[name] for name in ('lateral_accum', 'lateral', 'activity'))
        assert isinstance(accum, FixedPrecisionType) and isinstance(lateral, FixedPrecisionType)
        assert isinstance(activity, FixedPrecisionType)
        sums = max(self._lateral.sum(axis=0).max(), self._lateral.sum(axis=1).max()) * activity.max
        fraction = lateral.fractional + activity.fractional
        if accum.max >= sums and accum.fractional >= fraction:
            return
        worst = max(self.shape) * lateral.max * activity.max
        integer = max(int(np.floor(np.log2(worst))) + 1, 1)
        widened = FixedPrecisionType(integer + fraction, integer, False)
        self.layer.types['lateral_accum'] = widened
        warnings.warn(
            f'{self.layer.describe()}: its lateral input type {accum} does not hold the sums of the learned '
            f'lateral matrix; apply() widened it to {widened} (exact for any matrix of its type)',
            LearningWarning,
            stacklevel=3,
        )
