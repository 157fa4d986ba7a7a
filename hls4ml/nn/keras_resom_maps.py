"""ReSOM of M >= 2 maps as a Keras 3 layer that hls4ml's Keras frontend converts to the ReSOMMaps layer
(docs/resom.md, "More than two maps").

    from hls4ml.nn.keras_resom_maps import ReSOMMaps
    resom = ReSOMMaps(grids=[(6, 6)] * 3, betas=0.25, output='label')
    outputs = resom([band_0, band_1, band_2])                   # one vector per map and sample
    resom.fit_maps([x0, x1, x2], epochs=2, seed=3).fit_laterals([x0, x1, x2])   # unlabelled, paired
    resom.label_units([(x0[:300], targets[:300]), None, None])   # maps 1 and 2 by divergence
    # or: ReSOMMaps.from_minisoms([som_0, som_1, som_2], data=[x0, x1, x2], labelled=[...], betas=0.25)

The maps are `hls4ml.nn.keras_som.SOM` layers (`resom.soms`, output 'activities'; their labels are the
layer's); the pair matrices are held as one non-trainable symmetric block matrix (`set_laterals` writes
it, `lateral_arrays` reads the pairs back). keras.ops only; the semantics of `resom_maps_core`.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
from keras import ops

from hls4ml.model.reference.resom_maps import offsets
from hls4ml.nn import resom_maps_core
from hls4ml.nn.keras_resom import combined, first_largest
from hls4ml.nn.keras_som import SOM
from hls4ml.nn.resom_maps_core import ReSOMMapsLearning, ReSOMMapsSettings


@keras.saving.register_keras_serializable(package='hls4ml')
class ReSOMMaps(ReSOMMapsLearning, keras.layers.Layer):
    """M SOMs (one input each) associated by one Hebbian matrix per pair (see the module doc).

    grids: one (rows, cols) per map; distance: 'squared_euclidean' (or 'euclidean'), 'manhattan',
    'chebyshev'; source: 'all' or 'bmu'; combine: 'product' or 'sum'; iterations >= 1; output: 'label',
    'index', 'winners', 'activities'; betas: one, or one per map."""

    def __init__(
        self,
        grids: list[tuple[int, int]],
        distance: str = 'squared_euclidean',
        source: str = 'all',
        combine: str = 'product',
        iterations: int = 1,
        output: str = 'label',
        betas: float | list[float] = 1.0,
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        where = f"ReSOMMaps '{self.name}'"
        self.settings = resom_maps_core.make_settings(
            grids, distance, source, combine, iterations, output, betas, where
        )
        self.seed = int(seed)
        self.soms = [
            SOM(m.grid, m.distance, 'activities', m.topology, m.beta, seed=self.seed + index)
            for index, m in enumerate(self.settings.maps)
        ]

    def build(self, input_shape: Any) -> None:
        shapes = list(input_shape) if isinstance(input_shape, (list, tuple)) else []
        vectors = [isinstance(shape, (list, tuple)) and len(shape) == 2 and shape[-1] is not None for shape in shapes]
        if len(shapes) != len(self.soms) or not all(vectors):
            raise ValueError(
                f"ReSOMMaps '{self.name}': expected {len(self.soms)} inputs of shape (batch, n_in), got {input_shape}"
            )
        for som, shape in zip(self.soms, shapes, strict=True):
            som.build(tuple(shape))
        total = sum(self.settings.n_units)
        self.matrix = self.add_weight(shape=(total, total), initializer='zeros', trainable=False, name='lateral')

    def call(self, inputs: Any) -> Any:
        settings, starts = self.settings, offsets(self.settings.n_units)
        activities = [som(values) for som, values in zip(self.soms, inputs, strict=True)]
        matrix = ops.convert_to_tensor(self.matrix)  # symmetric: row u is unit u's lateral weights
        for _ in range(settings.iterations):
            if settings.source == 'all':
                lateral = ops.matmul(ops.concatenate(activities, axis=1), matrix)
            else:
                rows = [
                    ops.take(matrix, start + first_largest(a), axis=0)
                    for start, a in zip(starts, activities, strict=True)
                ]
                lateral = sum(rows[1:], rows[0])
            activities = [
                combined(a, lateral[:, start : start + a.shape[1]], settings.combine)
                for a, start in zip(activities, starts, strict=True)
            ]
        return self._output(activities)

    def _output(self, activities: list[Any]) -> Any:
        output, dtype = self.settings.output, activities[0].dtype
        every = ops.concatenate(activities, axis=1)
        if output == 'activities':
            return every
        if output == 'winners':
            return ops.cast(ops.stack([first_largest(a) for a in activities], axis=1), dtype)
        winner = ops.expand_dims(first_largest(every), 1)  # the first largest: ties to the lower map
        if output == 'index':
            return ops.cast(winner, dtype)
        labels = ops.concatenate([ops.convert_to_tensor(som.labels) for som in self.soms])
        return ops.cast(ops.take(labels, winner, axis=0), dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (input_shape[0][0], self.settings.n_out)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(resom_maps_core.arguments(self.settings), seed=self.seed)
        return config

    # ---- weights -----------------------------------------------------------------------------------
    def _require_built(self, what: str) -> None:
        if not self.built:
            raise ValueError(f"ReSOMMaps '{self.name}'.{what}: the layer is not built yet (call it or its model first)")

    def _build_for(self, widths: list[int]) -> None:
        if not self.built:
            self.build([(None, width) for width in widths])

    def matrix_array(self) -> np.ndarray:
        self._require_built('matrix_array')
        return np.asarray(ops.convert_to_numpy(self.matrix), dtype=np.float64)

    def set_matrix(self, matrix: np.ndarray) -> ReSOMMaps:
        self._require_built('set_laterals')
        self.matrix.assign(matrix)
        return self

    def labels_array(self) -> np.ndarray:
        """One label per unit, map 0's first."""
        self._require_built('labels_array')
        return np.concatenate([ops.convert_to_numpy(som.labels) for som in self.soms]).astype(np.float64)

    def set_labels(self, labels: Any) -> ReSOMMaps:
        """One non-negative class per unit, map 0's first (output 'label')."""
        self._require_built('set_labels')
        values = np.asarray(labels, dtype=np.float64).reshape(-1)
        if values.shape != (sum(self.settings.n_units),):
            raise ValueError(
                f"ReSOMMaps '{self.name}': expected {sum(self.settings.n_units)} labels, got {values.shape}"
            )
        for som, part in zip(self.soms, np.split(values, np.cumsum(self.settings.n_units)[:-1]), strict=True):
            som.set_labels(part)
        return self

    @classmethod
    def from_settings(cls, settings: ReSOMMapsSettings, codebooks: list[np.ndarray], **kwargs: Any) -> ReSOMMaps:
        """A built layer with these settings and codebooks ((n_units, n_in) each); kwargs: name, seed."""
        layer = cls(**resom_maps_core.arguments(settings), **kwargs)
        layer.build([(None, np.shape(codebook)[-1]) for codebook in codebooks])
        for som, codebook in zip(layer.soms, codebooks, strict=True):
            som.set_codebook(codebook)
        return layer
