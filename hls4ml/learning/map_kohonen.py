"""Kohonen learning of the maps of a ReSOM or ReSOMMaps layer on the compiled firmware (docs/resom.md,
"On-chip learning"): map m is a SOM over input m, learned by the project's Kohonen top of that map
(`<project>_learn_<layer>_map<m>`, the SOM's kernel), so a multimodal model trains end to end on chip:

    learner = hls_model.learner('resom')
    for m, x in enumerate(xs):
        learner.kohonen_fit(m, x, epochs=5, rate=0.5)     # each map's codebook (MiniSom's decay)
    learner.apply()                                       # codebooks into the model (distance types widened)
    hls_model.compile()
    hls_model.learner('resom').fit(...)                   # Hebbian on the learned maps

The Hebbian step reads the codebooks compiled into the firmware, so after a Kohonen step it is refused
until apply() and compile() have put the learned codebooks there.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hls4ml.csim.learning import run_kohonen
from hls4ml.learning import schedules
from hls4ml.learning.learners import Learner, LearningWarning, epoch_count, visit_order
from hls4ml.model.fixed import quantize
from hls4ml.model.learning_types import KohonenTypes, MapPart, map_kohonen_types, map_parts, som_distance_bound
from hls4ml.model.types import FixedPrecisionType


class MapKohonen(Learner):
    """What a ReSOM and a ReSOMMaps learner add for their maps: `codebooks`, `kohonen_step`, `kohonen_fit`,
    and the codebook half of apply()."""

    def _start_maps(self) -> None:
        self.map_parts: list[MapPart] = map_parts(self.layer)
        self._codebooks: dict[int, np.ndarray] = {}  # the maps learned so far (the others: the layer's)

    @property
    def codebooks(self) -> list[np.ndarray]:
        """Every map's (n_units, n_in) codebook (copies): the learned ones, or the layer's in its type."""
        return [np.array(self._map_codebook(m), dtype=np.float64) for m in range(len(self.map_parts))]

    def map_types(self, part: int) -> KohonenTypes:
        """The Kohonen types of map `part` (its learning top's config)."""
        return map_kohonen_types(self.model.graph, self.layer, self._part(part))

    def kohonen_step(self, part: int, x: Any, rate: Any, sigma: Any) -> np.ndarray:
        """One Kohonen step of map `part` per sample of x (that map's input), in order, with a rate in
        (0, 1] and a width sigma > 0 (each a scalar or one per sample); returns each sample's BMU."""
        part, types = self._part(part), self.map_types(part)
        view = self.map_parts[part]
        samples = self._samples(x, view.n_in, f'x (map {part})')
        rates = self._per_sample(rate, len(samples), 'rate', 1.0)
        sigmas = self._per_sample(sigma, len(samples), 'sigma', None)
        tables = tuple(np.ascontiguousarray(schedules.neighbourhood_tables(sigmas, size)) for size in view.grid)
        codebook = np.ascontiguousarray(quantize(self._map_codebook(part), types.codebook, self.family).value.ravel())
        name = f'{self.layer.name}_map{part}'
        bmus = run_kohonen(self._simulation, name, samples, rates, (tables[0], tables[1]), codebook)
        self._codebooks[part] = codebook.reshape(view.n_units, view.n_in)
        return bmus

    def kohonen_fit(
        self,
        part: int,
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
        """`epochs` passes of map `part` over x, as SOMLearner.fit (sigma defaults to max(rows, cols) / 2)."""
        view = self.map_parts[self._part(part)]
        samples = self._samples(x, view.n_in, f'x (map {part})')
        order = visit_order(len(samples), epoch_count(epochs, self.layer), shuffle, seed)
        sigma = max(view.grid) / 2.0 if sigma is None else sigma
        rates = schedules.per_step(schedule, rate, final_rate, epochs, len(samples))
        sigmas = schedules.per_step(schedule, sigma, final_sigma, epochs, len(samples))
        return self.kohonen_step(part, samples[order], rates, sigmas)

    def _refuse_stale_codebooks(self) -> None:
        """The Hebbian step reads the compiled codebooks: refuse it once a map has learned since."""
        if self._codebooks:
            raise ValueError(
                f'{self.layer.describe()}: the Hebbian step reads the codebooks compiled into the firmware and '
                f'map(s) {sorted(self._codebooks)} learned since; call apply(), compile() and take a new learner'
            )

    def _codebook_weights(self) -> dict[str, np.ndarray]:
        """The learned codebooks as weights, with the distance types widened where they no longer fit."""
        for part in sorted(self._codebooks):
            self._widen_distances(part)
        return {self.map_parts[part].weight: np.array(values) for part, values in self._codebooks.items()}

    def _widen_distances(self, part: int) -> None:
        view, types = self.map_parts[part], self.map_types(part)
        accum = self.layer.types[view.accum]
        assert isinstance(accum, FixedPrecisionType)
        bound, _ = som_distance_bound(types.data, self._codebooks[part], self.layer.attributes['distance'])
        if accum.max >= bound and accum.fractional >= types.accum.fractional:
            return
        widened = _union(accum, types.accum)
        self.layer.types[view.accum] = widened
        warnings.warn(
            f'{self.layer.describe()}: its distance type {view.accum} = {accum} does not hold every distance of '
            f'the learned codebook of map {part} exactly; apply() widened it to {widened}',
            LearningWarning,
            stacklevel=4,
        )

    def _map_codebook(self, part: int) -> np.ndarray:
        if part in self._codebooks:
            return self._codebooks[part]
        view = self.map_parts[part]
        return quantize(self.layer.weights[view.weight], self.layer.types[view.codebook], self.family).value

    def _part(self, part: Any) -> int:
        count = len(self.map_parts)
        if isinstance(part, bool) or not isinstance(part, (int, np.integer)) or not 0 <= part < count:
            raise ValueError(f'{self.layer.describe()}: map must be an integer in 0 .. {count - 1}, got {part!r}')
        return int(part)


def _union(first: FixedPrecisionType, second: FixedPrecisionType) -> FixedPrecisionType:
    """An unsigned type holding every value of both (the larger integer part and the larger fraction)."""
    integer, fraction = max(first.integer, second.integer), max(first.fractional, second.fractional)
    return FixedPrecisionType(integer + fraction, integer, False)
