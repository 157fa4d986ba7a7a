"""A self-organizing map as a Keras 3 layer that hls4ml's Keras frontend converts to the SOM layer.

    from hls4ml.nn.keras_som import SOM
    som = SOM(grid=(5, 6), output='index')
    model = keras.Sequential([keras.Input((8, 8)), keras.layers.Flatten(), som])
    som.fit_kohonen(x_train.reshape(-1, 64), epochs=5, seed=0)   # or som.load_minisom(trained_minisom)
    hls_model = hls4ml.converters.convert_from_keras_model(model, ...)

The codebook (N, n_in) and the labels (N,) are non-trainable weights: a SOM learns by the Kohonen
rule (`fit_kohonen`), not by gradients. The forward pass uses keras.ops only (any backend) and has the
semantics of the IR SOM (hls4ml.nn.som_core, docs/som.md); outputs are floats, indices included.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
from keras import ops

from hls4ml.nn.som_core import check_codebook, check_data, make_settings, minisom_state, train_kohonen, unit_labels


@keras.saving.register_keras_serializable(package='hls4ml')
class SOM(keras.layers.Layer):
    """A self-organizing map over vectors (batch, n_in), on a rows x cols grid.

    distance: 'squared_euclidean' (or 'euclidean'), 'manhattan', 'chebyshev', 'cosine';
    output: 'index', 'coordinates', 'one_hot', 'distances', 'label', 'activities', 'quantized';
    topology: 'rectangular' or 'hexagonal' (changes 'coordinates' and the training neighbourhood);
    beta: the width of the activities; labels: one class per unit (output 'label')."""

    def __init__(
        self,
        grid: tuple[int, int],
        distance: str = 'squared_euclidean',
        output: str = 'index',
        topology: str = 'rectangular',
        beta: float = 1.0,
        labels: Any = None,
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.settings = make_settings(grid, distance, output, topology, beta, f"SOM '{self.name}'")
        self.seed = int(seed)
        self._initial_labels = labels

    def build(self, input_shape: Any) -> None:
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ValueError(f"SOM '{self.name}': expected inputs of shape (batch, n_in), got {tuple(input_shape)}")
        n_units, n_in = self.settings.n_units, int(input_shape[-1])
        initial = np.random.default_rng(self.seed).uniform(-1.0, 1.0, (n_units, n_in))
        self.codebook = self.add_weight(
            shape=(n_units, n_in), initializer=keras.initializers.Constant(initial), trainable=False, name='codebook'
        )
        self.labels = self.add_weight(shape=(n_units,), initializer='zeros', trainable=False, name='labels')
        if self._initial_labels is not None:
            self.set_labels(self._initial_labels)

    @property
    def n_in(self) -> int:
        return int(self.codebook.shape[1])

    def call(self, inputs: Any) -> Any:
        settings = self.settings
        x = ops.cast(inputs, self.codebook.dtype)
        codebook = ops.convert_to_tensor(self.codebook)
        if settings.distance == 'cosine':
            norms = ops.sqrt(ops.sum(codebook * codebook, axis=1, keepdims=True))
            codebook = codebook / ops.where(norms > 0, norms, ops.ones_like(norms))
            scores = ops.matmul(x, ops.transpose(codebook))
        else:
            diff = ops.expand_dims(x, 1) - ops.expand_dims(codebook, 0)
            if settings.distance == 'squared_euclidean':
                scores = ops.sum(diff * diff, axis=2)
            elif settings.distance == 'manhattan':
                scores = ops.sum(ops.abs(diff), axis=2)
            else:
                scores = ops.max(ops.abs(diff), axis=2)
        return self._output(scores, self._first_best(scores), codebook)

    def _first_best(self, scores: Any) -> Any:
        """The lowest index among the best scores."""
        largest = self.settings.distance == 'cosine'
        extreme = ops.max(scores, axis=1, keepdims=True) if largest else ops.min(scores, axis=1, keepdims=True)
        units = ops.arange(self.settings.n_units, dtype='int32')
        return ops.min(ops.where(ops.equal(scores, extreme), units, self.settings.n_units), axis=1)

    def _output(self, scores: Any, best: Any, codebook: Any) -> Any:
        settings, output, dtype = self.settings, self.settings.output, scores.dtype
        if output == 'distances':
            return scores
        if output == 'activities':
            linear = ops.sqrt(scores) if settings.distance == 'squared_euclidean' else scores
            at_best = ops.take_along_axis(linear, ops.expand_dims(best, 1), axis=1)
            gap = at_best - linear if settings.distance == 'cosine' else linear - at_best
            return ops.exp(-gap / settings.beta)
        if output == 'index':
            return ops.cast(ops.expand_dims(best, 1), dtype)
        if output == 'one_hot':
            return ops.one_hot(best, settings.n_units, dtype=dtype)
        if output == 'label':
            return ops.expand_dims(ops.take(self.labels, best, axis=0), 1)
        if output == 'quantized':
            return ops.take(codebook, best, axis=0)
        return ops.take(ops.convert_to_tensor(settings.coordinates(), dtype=dtype), best, axis=0)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (input_shape[0], self.settings.n_out(int(input_shape[-1])))

    def get_config(self) -> dict[str, Any]:
        settings = self.settings
        config = super().get_config()
        config.update(
            grid=settings.grid,
            distance=settings.distance,
            output=settings.output,
            topology=settings.topology,
            beta=settings.beta,
            seed=self.seed,
        )
        return config

    # ---- weights -----------------------------------------------------------------------------------
    def _require_built(self, what: str) -> None:
        if not self.built:
            raise ValueError(f"SOM '{self.name}'.{what}: the layer is not built yet (call it or its model first)")

    def set_codebook(self, codebook: Any) -> SOM:
        """Replace the codebook: (N, n_in) row-major over the grid, or MiniSom's (rows, cols, n_in)."""
        self._require_built('set_codebook')
        self.codebook.assign(check_codebook(codebook, self.settings, self.n_in, f"SOM '{self.name}'"))
        return self

    def set_labels(self, labels: Any) -> SOM:
        """One non-negative class per unit (output 'label')."""
        self._require_built('set_labels')
        values = np.asarray(labels, dtype=np.float64).reshape(-1)
        if values.shape != (self.settings.n_units,) or not np.all(np.isfinite(values)) or values.min() < 0:
            raise ValueError(f"SOM '{self.name}': expected {self.settings.n_units} non-negative labels, got {values}")
        self.labels.assign(values)
        return self

    def codebook_array(self) -> np.ndarray:
        self._require_built('codebook_array')
        return np.asarray(keras.ops.convert_to_numpy(self.codebook), dtype=np.float64)

    # ---- training ----------------------------------------------------------------------------------
    def fit_kohonen(
        self,
        data: Any,
        epochs: int = 10,
        sigma: float | None = None,
        learning_rate: float = 0.5,
        mode: str = 'online',
        seed: int = 0,
        initialize: bool = True,
        shuffle: bool = True,
    ) -> SOM:
        """Kohonen training (`hls4ml.nn.som_core.train_kohonen`) on samples (n, n_in); `initialize`: start
        from samples drawn with `seed`, else from the current codebook. Builds the layer if needed."""
        samples = np.asarray(data, dtype=np.float64)
        if not self.built:
            self.build((None, samples.shape[-1]))
        samples = check_data(samples, self.n_in, f"SOM '{self.name}'.fit_kohonen")
        start = None if initialize else self.codebook_array()
        trained = train_kohonen(samples, start, self.settings, epochs, sigma, learning_rate, mode, seed, shuffle)
        return self.set_codebook(trained)

    def label_units(self, data: Any, targets: Any, method: str = 'majority') -> SOM:
        """Label every unit from labelled samples: `method` 'majority' (MiniSom style) or 'activities'
        (Khacef et al., with this layer's beta); `som_core.unit_labels`."""
        return self.set_labels(unit_labels(self.codebook_array(), self.settings, data, targets, method))

    def load_minisom(self, som: Any) -> SOM:
        """Copy a trained MiniSom's codebook into this layer (grid, distance and topology must match)."""
        state = minisom_state(som)
        if not self.built:
            self.build((None, state['codebook'].shape[1]))
        mine = self.settings
        theirs = (state['grid'], state['distance'], state['topology'])
        if (mine.grid, mine.distance, mine.topology) != theirs:
            raise ValueError(
                f"SOM '{self.name}': the MiniSom has grid, distance, topology {theirs}, the layer "
                f'{(mine.grid, mine.distance, mine.topology)}; use SOM.from_minisom'
            )
        return self.set_codebook(state['codebook'])

    @classmethod
    def from_minisom(cls, som: Any, output: str = 'index', beta: float = 1.0, labels: Any = None, **kwargs: Any) -> SOM:
        """A built layer with a trained MiniSom's codebook, grid, distance and topology."""
        state = minisom_state(som)
        layer = cls(state['grid'], state['distance'], output, state['topology'], beta, **kwargs)
        layer.build((None, state['codebook'].shape[1]))
        layer.set_codebook(state['codebook'])
        return layer.set_labels(labels) if labels is not None else layer
