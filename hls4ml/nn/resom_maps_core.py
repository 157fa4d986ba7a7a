"""The float model of the ReSOM of M >= 2 maps (IR kind `ReSOMMaps`, docs/resom.md "More than two maps").

Semantics, the two-map ReSOM's (`resom_core`) with a sum over the other maps: ã^m = exp(-(d_n - d_bmu) /
beta_m) per map; every round, all maps at once, ℓ^i = Σ_{j≠i} H_ij ã^j (source 'all') or Σ_{j≠i} H_ij[:,
winner_j] (source 'bmu'; H_ji = H_ijᵀ), ℓ̂ = ℓ / max ℓ (0 when max ℓ is 0), a' = ã ⊙ ℓ̂ or (ã + ℓ̂) / 2;
winners are each map's first largest activity; the global winner is the first largest of [a'^0; a'^1;
...] (ties: the lower map). With two maps the sum has one term: this is `resom_core.resom_forward`.
Outputs: label and index (n, 1), winners (n, M), activities (n, Σ N_m).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.kinds import RESOM_COMBINES, RESOM_OUTPUTS, RESOM_SOURCES
from hls4ml.model.reference.resom_maps import block_matrix, offsets, pairs
from hls4ml.model.resom_maps_graphs import (
    divergent_map_labels,
    hebbian_laterals,
    map_betas,
    pair_matrices,
    resom_maps_graph,
)
from hls4ml.nn import som_core
from hls4ml.nn.resom_core import Labelled, _numpy, normalised_combination
from hls4ml.nn.som_core import SOMSettings, som_forward, unit_labels


@dataclass(frozen=True)
class ReSOMMapsSettings:
    """What an M-map ReSOM computes, apart from its codebooks, pair matrices and labels."""

    maps: tuple[SOMSettings, ...]  # output 'activities', each with its beta
    source: str = 'all'
    combine: str = 'product'
    iterations: int = 1
    output: str = 'label'

    @property
    def n_units(self) -> tuple[int, ...]:
        return tuple(settings.n_units for settings in self.maps)

    @property
    def n_out(self) -> int:
        return {'label': 1, 'index': 1, 'winners': len(self.maps)}.get(self.output, sum(self.n_units))


def check_matrix(matrix: Any, settings: ReSOMMapsSettings, where: str = 'ReSOM') -> dict[tuple[int, int], np.ndarray]:
    """The pair matrices of a framework layer's block matrix L (N, N), checked: finite, non-negative,
    symmetric, zero on the diagonal blocks (what `set_laterals` writes)."""
    values, units = np.asarray(matrix, dtype=np.float64), settings.n_units
    starts = offsets(units)
    if values.shape != (sum(units),) * 2 or not np.all(np.isfinite(values)) or (values < 0).any():
        raise ValueError(
            f'{where}: the lateral block matrix must be ({sum(units)}, {sum(units)}), finite, non-negative'
        )
    blocks = {
        (i, j): values[starts[i] : starts[i] + units[i], starts[j] : starts[j] + units[j]] for i, j in pairs(len(units))
    }
    if not np.array_equal(block_matrix(blocks, units), values):
        raise ValueError(
            f'{where}: the lateral block matrix is not symmetric with zero diagonal blocks (use set_laterals)'
        )
    return blocks


def make_settings(
    grids: list[Any],
    distance: str = 'squared_euclidean',
    source: str = 'all',
    combine: str = 'product',
    iterations: int = 1,
    output: str = 'label',
    betas: float | list[float] = 1.0,
    where: str = 'ReSOM',
) -> ReSOMMapsSettings:
    """Checked settings of M = len(grids) maps; errors name `where` and the bad value."""
    if len(grids) < 2:
        raise ValueError(f'{where}: {len(grids)} grids; expected at least 2 maps')
    try:
        given = map_betas(betas, len(grids))
    except ValueError as error:
        raise ValueError(f'{where}: {str(error).removeprefix("ReSOM: ")}') from error
    maps = tuple(
        som_core.make_settings(grid, distance, 'activities', 'rectangular', beta, f'{where} (map {index})')
        for index, (grid, beta) in enumerate(zip(grids, given, strict=True))
    )
    for what, value, allowed in (('source', source, RESOM_SOURCES), ('combine', combine, RESOM_COMBINES)):
        if value not in allowed:
            raise ValueError(f'{where}: unsupported {what} {value!r}; expected one of {", ".join(allowed)}')
    if output not in RESOM_OUTPUTS:
        raise ValueError(f'{where}: unsupported output {output!r}; expected one of {", ".join(RESOM_OUTPUTS)}')
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f'{where}: iterations must be an integer of at least 1, got {iterations!r}')
    return ReSOMMapsSettings(maps, source, combine, int(iterations), output)


def associate(activities: list[np.ndarray], matrix: np.ndarray, settings: ReSOMMapsSettings) -> list[np.ndarray]:
    """`iterations` Jacobi rounds between all maps through the block matrix L of the pair matrices."""
    starts, units = offsets(settings.n_units), settings.n_units
    for _ in range(settings.iterations):
        every = np.concatenate(activities, axis=1)
        if settings.source == 'all':
            lateral = every @ matrix.T
        else:
            columns = [matrix[:, start + act.argmax(axis=1)].T for start, act in zip(starts, activities, strict=True)]
            lateral = np.sum(columns, axis=0)
        activities = [
            normalised_combination(act, lateral[:, start : start + n], settings.combine)
            for act, start, n in zip(activities, starts, units, strict=True)
        ]
    return activities


def resom_maps_forward(
    inputs: list[Any],
    codebooks: list[np.ndarray],
    laterals: Any,
    labels: np.ndarray | None,
    settings: ReSOMMapsSettings,
) -> np.ndarray:
    """The float64 output for paired samples, one (n, n_in_m) array per map; `laterals` as `pair_matrices`."""
    if len({len(data) for data in inputs}) != 1 or len(inputs) != len(settings.maps):
        raise ValueError(f'ReSOM: {len(inputs)} inputs of {[len(data) for data in inputs]} samples do not pair up')
    matrices = pair_matrices(laterals, list(settings.n_units))
    parts = zip(inputs, codebooks, settings.maps, strict=True)
    activities = [som_forward(data, book, None, map_settings) for data, book, map_settings in parts]
    activities = associate(activities, block_matrix(matrices, settings.n_units), settings)
    if settings.output == 'activities':
        return np.concatenate(activities, axis=1)
    if settings.output == 'winners':
        return np.stack([act.argmax(axis=1) for act in activities], axis=1).astype(np.float64)
    winner = np.concatenate(activities, axis=1).argmax(axis=1)  # the first largest: ties to the lower map
    if settings.output == 'index':
        return winner[:, None].astype(np.float64)
    if labels is None:
        raise ValueError("ReSOM: output 'label' needs labels (one class per unit)")
    return np.asarray(labels, dtype=np.float64)[winner][:, None]


def layer_parts(
    codebooks: list[np.ndarray],
    laterals: Any,
    labels: np.ndarray | None,
    settings: ReSOMMapsSettings,
    where: str = 'ReSOM',
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The attributes and weights of the IR ReSOMMaps layer, checked by `resom_maps_graph`; errors name `where`."""
    per_map = None
    if settings.output == 'label' and labels is not None:
        per_map = np.split(np.asarray(labels, dtype=np.float64), np.cumsum(settings.n_units)[:-1])
    try:
        graph, _ = resom_maps_graph(
            codebooks, [m.grid for m in settings.maps], laterals, per_map, settings.output, settings.maps[0].distance,
            settings.source, settings.combine, settings.iterations, [m.beta for m in settings.maps], pair_kind=False,
        )  # fmt: skip
    except ValueError as error:
        raise ValueError(f'{where}: {str(error).removeprefix("ReSOM: ")}') from error
    layer = graph.layers['resom']
    return dict(layer.attributes), dict(layer.weights)


# ---- learning shared by the framework layers ----------------------------------------------------------
class ReSOMMapsLearning:
    """What the Keras and PyTorch ReSOMMaps layers share (mixed in before the framework's base class).

    How to write a framework ReSOMMaps with it: set `settings` and `soms` (hls4ml SOM layers of the
    framework, output 'activities'), and define the methods that raise NotImplementedError; `_build_for`
    only if the weights are made lazily (Keras)."""

    settings: ReSOMMapsSettings
    soms: Any

    def _build_for(self, widths: list[int]) -> None:
        """Make the weights for inputs of these widths if they do not exist yet."""

    def matrix_array(self) -> np.ndarray:
        raise NotImplementedError

    def set_matrix(self, matrix: np.ndarray) -> Any:
        raise NotImplementedError

    def set_labels(self, labels: Any) -> Any:
        raise NotImplementedError

    def codebook_arrays(self) -> list[np.ndarray]:
        return [som.codebook_array() for som in self.soms]

    def lateral_arrays(self) -> dict[tuple[int, int], np.ndarray]:
        """{(i, j): H_ij} for every pair i < j."""
        return check_matrix(self.matrix_array(), self.settings, type(self).__name__)

    def set_laterals(self, laterals: Any) -> Any:
        """Replace the pair matrices: a dict {(i, j): H_ij} or a list in pair order (`pair_matrices`)."""
        try:
            matrices = pair_matrices(laterals, list(self.settings.n_units))
        except ValueError as error:
            raise ValueError(f'{type(self).__name__}.set_laterals: {str(error).removeprefix("ReSOM: ")}') from error
        return self.set_matrix(block_matrix(matrices, self.settings.n_units))

    def fit_maps(self, data: list[Any], **kohonen: Any) -> Any:
        """Kohonen training of every map (`fit_kohonen` of the SOM layers); map m uses seed + m."""
        self._build_for([np.shape(values)[-1] for values in data])
        seed = kohonen.pop('seed', 0)
        for index, (som, values) in enumerate(zip(self.soms, data, strict=True)):
            som.fit_kohonen(values, seed=seed + index, **kohonen)
        return self

    def fit_laterals(self, data: list[Any], rule: str = 'hebb', rate: float = 1.0, keep: float = 1.0) -> Any:
        """One matrix per pair from paired unlabelled samples (`hebbian_laterals`, the maps' betas)."""
        betas = [settings.beta for settings in self.settings.maps]
        distance = self.settings.maps[0].distance
        samples = [_numpy(values) for values in data]
        return self.set_laterals(hebbian_laterals(self.codebook_arrays(), samples, rule, rate, betas, distance, keep))

    def label_units(self, labelled: list[Labelled | None], method: str = 'majority') -> Any:
        """Label each map that has (samples, targets) by `som_core.unit_labels`, the others by divergence
        from every labelled map (`divergent_map_labels`)."""
        if len(labelled) != len(self.soms):
            raise ValueError(f'{type(self).__name__}.label_units: {len(labelled)} entries for {len(self.soms)} maps')
        books, found = self.codebook_arrays(), []
        for book, settings, given in zip(books, self.settings.maps, labelled, strict=True):
            found.append(
                None if given is None else unit_labels(book, settings, _numpy(given[0]), _numpy(given[1]), method)
            )
        return self.set_labels(np.concatenate(divergent_map_labels(self.lateral_arrays(), found)))

    @classmethod
    def from_minisoms(
        cls,
        soms: list[Any],
        data: list[Any] | None = None,
        labelled: list[Labelled | None] | None = None,
        **options: Any,
    ) -> Any:
        """A layer over trained `minisom.MiniSom`s (their grids and codebooks; one distance): pair
        matrices from `data` and labels from `labelled` when given. `options`: source, combine,
        iterations, output, betas."""
        states = [som_core.minisom_state(som) for som in soms]
        settings = make_settings([state['grid'] for state in states], states[0]['distance'], **options)
        layer = cls.from_settings(settings, [state['codebook'] for state in states])
        if data is not None:
            layer.fit_laterals(data)
        return layer.label_units(labelled) if labelled is not None else layer

    @classmethod
    def from_settings(cls, settings: ReSOMMapsSettings, codebooks: list[np.ndarray]) -> Any:
        raise NotImplementedError


def arguments(settings: ReSOMMapsSettings) -> dict[str, Any]:
    """The constructor arguments of a framework ReSOMMaps with these settings (its get_config too)."""
    return {
        'grids': [list(m.grid) for m in settings.maps],
        'distance': settings.maps[0].distance,
        'source': settings.source,
        'combine': settings.combine,
        'iterations': settings.iterations,
        'output': settings.output,
        'betas': [m.beta for m in settings.maps],
    }
