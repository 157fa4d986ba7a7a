"""ReSOM as a Keras 3 layer that hls4ml's Keras frontend converts to the ReSOM layer (docs/resom.md).

    from hls4ml.nn.keras_resom import ReSOM
    resom = ReSOM(grid_x=(6, 6), grid_y=(6, 6), beta_x=0.25, beta_y=0.25, output='label')
    outputs = resom([x_branch, y_branch])                        # two vectors per sample: x, then y
    resom.fit_maps(x, y, epochs=5, seed=0).fit_lateral(x, y)      # unlabelled paired samples
    resom.label_units(labelled_x=(x_few, targets_few))            # y by divergence
    # or: ReSOM.from_soms(som_x, som_y, pairs=(x, y), labelled_x=...), ReSOM.from_minisoms(...)

The two maps are `hls4ml.nn.keras_som.SOM` layers (`resom.som_x`, `resom.som_y`, output 'activities',
their labels are the ReSOM's); the lateral matrix is a non-trainable weight. The forward pass uses
keras.ops only and has the semantics of the IR ReSOM (`hls4ml.nn.resom_core`); outputs are floats.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
from keras import ops

from hls4ml.nn import resom_core
from hls4ml.nn.keras_som import SOM
from hls4ml.nn.resom_core import ReSOMLearning, ReSOMSettings


def first_largest(values: Any) -> Any:
    """Per row, the lowest index of the largest value (argmax does not promise the tie rule)."""
    count = values.shape[1]
    top = ops.max(values, axis=1, keepdims=True)
    return ops.min(ops.where(ops.equal(values, top), ops.arange(count, dtype='int32'), count), axis=1)


def combined(activity: Any, lateral: Any, combine: str) -> Any:
    """ã ⊙ ℓ/max ℓ or (ã + ℓ/max ℓ) / 2; ℓ/max ℓ = 0 where max ℓ = 0."""
    top = ops.max(lateral, axis=1, keepdims=True)
    scaled = ops.where(top > 0, lateral / ops.where(top > 0, top, ops.ones_like(top)), ops.zeros_like(lateral))
    return activity * scaled if combine == 'product' else (activity + scaled) / 2.0


@keras.saving.register_keras_serializable(package='hls4ml')
class ReSOM(ReSOMLearning, keras.layers.Layer):
    """Two SOMs (inputs x and y) associated by a Hebbian lateral matrix (see the module doc).

    distance: 'squared_euclidean' (or 'euclidean'), 'manhattan', 'chebyshev'; source: 'all' or 'bmu';
    combine: 'product' or 'sum'; iterations >= 1; output: 'label', 'index', 'winners', 'activities';
    beta_x, beta_y: the widths of the maps' activities ('auto': chosen from the data by fit_lateral);
    topology (one or a pair): for training the maps.
    Learning and constructors (fit_maps, fit_lateral, label_units, from_soms, from_minisoms): ReSOMLearning."""

    def __init__(
        self,
        grid_x: tuple[int, int],
        grid_y: tuple[int, int],
        distance: str = 'squared_euclidean',
        source: str = 'all',
        combine: str = 'product',
        iterations: int = 1,
        output: str = 'label',
        beta_x: float | str = 'auto',
        beta_y: float | str = 'auto',
        topology: str | tuple[str, str] = 'rectangular',
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        where = f"ReSOM '{self.name}'"
        self.settings = resom_core.make_settings(
            grid_x, grid_y, distance, source, combine, iterations, output, beta_x, beta_y, topology, where
        )
        self.seed = int(seed)
        self.som_x, self.som_y = (
            SOM(mapping.grid, mapping.distance, 'activities', mapping.topology, mapping.beta, seed=self.seed + index)
            for index, mapping in enumerate((self.settings.map_x, self.settings.map_y))
        )

    def build(self, input_shape: Any) -> None:
        shapes = list(input_shape) if isinstance(input_shape, (list, tuple)) else []
        vectors = [isinstance(shape, (list, tuple)) and len(shape) == 2 and shape[-1] is not None for shape in shapes]
        if len(shapes) != 2 or not all(vectors):
            raise ValueError(
                f"ReSOM '{self.name}': expected two inputs [x, y] of shape (batch, n_in), got {input_shape}"
            )
        self.som_x.build(tuple(shapes[0]))
        self.som_y.build(tuple(shapes[1]))
        self.lateral = self.add_weight(
            shape=self.settings.n_units, initializer='zeros', trainable=False, name='lateral'
        )

    def call(self, inputs: Any) -> Any:
        x, y = inputs
        settings = self.settings
        resom_core.check_chosen(settings, f"ReSOM '{self.name}'")
        activity_x, activity_y = self.som_x(x), self.som_y(y)
        lateral = ops.convert_to_tensor(self.lateral)
        for _ in range(settings.iterations):
            if settings.source == 'all':
                lateral_x, lateral_y = ops.matmul(activity_y, ops.transpose(lateral)), ops.matmul(activity_x, lateral)
            else:
                lateral_x = ops.take(ops.transpose(lateral), first_largest(activity_y), axis=0)
                lateral_y = ops.take(lateral, first_largest(activity_x), axis=0)
            activity_x = combined(activity_x, lateral_x, settings.combine)
            activity_y = combined(activity_y, lateral_y, settings.combine)
        return self._output(activity_x, activity_y)

    def _output(self, activity_x: Any, activity_y: Any) -> Any:
        output, dtype = self.settings.output, activity_x.dtype
        if output == 'activities':
            return ops.concatenate([activity_x, activity_y], axis=1)
        winner_x, winner_y = first_largest(activity_x), first_largest(activity_y)
        if output == 'winners':
            return ops.cast(ops.stack([winner_x, winner_y], axis=1), dtype)
        best_x = ops.take_along_axis(activity_x, ops.expand_dims(winner_x, 1), axis=1)
        best_y = ops.take_along_axis(activity_y, ops.expand_dims(winner_y, 1), axis=1)
        winner = ops.where(
            best_y > best_x, ops.expand_dims(winner_y + self.settings.n_units[0], 1), ops.expand_dims(winner_x, 1)
        )
        if output == 'index':
            return ops.cast(winner, dtype)
        labels = ops.concatenate([ops.convert_to_tensor(self.som_x.labels), ops.convert_to_tensor(self.som_y.labels)])
        return ops.cast(ops.take(labels, winner, axis=0), dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (input_shape[0][0], self.settings.n_out)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(resom_core.arguments(self.settings), seed=self.seed)
        return config

    # ---- weights -----------------------------------------------------------------------------------
    def _require_built(self, what: str) -> None:
        if not self.built:
            raise ValueError(f"ReSOM '{self.name}'.{what}: the layer is not built yet (call it or its model first)")

    def codebook_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        self._require_built('codebook_arrays')
        return self.som_x.codebook_array(), self.som_y.codebook_array()

    def lateral_array(self) -> np.ndarray:
        self._require_built('lateral_array')
        return np.asarray(ops.convert_to_numpy(self.lateral), dtype=np.float64)

    def labels_array(self) -> np.ndarray:
        """The n_units_x + n_units_y labels, x units first."""
        self._require_built('labels_array')
        return np.concatenate([ops.convert_to_numpy(som.labels) for som in (self.som_x, self.som_y)]).astype(np.float64)

    def set_lateral(self, lateral: Any) -> ReSOM:
        """Replace H: (n_units_x, n_units_y), finite and non-negative."""
        self._require_built('set_lateral')
        self.lateral.assign(resom_core.check_lateral(lateral, self.settings, f"ReSOM '{self.name}'"))
        return self

    def set_labels(self, labels: Any) -> ReSOM:
        """One non-negative class per unit, the x units first (output 'label')."""
        self._require_built('set_labels')
        values = resom_core.check_labels(labels, self.settings, f"ReSOM '{self.name}'")
        self.som_x.set_labels(values[: self.settings.n_units[0]])
        self.som_y.set_labels(values[self.settings.n_units[0] :])
        return self

    def _build_for(self, n_in_x: int, n_in_y: int) -> None:
        if not self.built:
            self.build([(None, n_in_x), (None, n_in_y)])

    @classmethod
    def from_settings(cls, settings: ReSOMSettings, codebooks: Any, labels: Any = None, **kwargs: Any) -> ReSOM:
        """A built layer with these settings and codebooks ((n_units, n_in) each); kwargs: name, seed."""
        layer = cls(**resom_core.arguments(settings), **kwargs)
        layer.build([(None, np.shape(codebook)[-1]) for codebook in codebooks])
        layer.som_x.set_codebook(codebooks[0])
        layer.som_y.set_codebook(codebooks[1])
        return layer.set_labels(labels) if labels is not None else layer
