"""The framework-free part of the ReSOM layers (`hls4ml.nn.keras_resom.ReSOM`, `hls4ml.nn.torch_resom.ReSOM`).

A ReSOM (spec A.9, docs/resom.md) holds two SOMs, one per modality, each a `som_core` SOM with output
'activities' and its own beta; the non-negative lateral (Hebbian) matrix H of shape (n_units_x,
n_units_y); and one label per unit, the x units first.

* `ReSOMSettings`: the two maps' `SOMSettings`, source, combine, iterations and output, checked once
  (the IR ReSOM's values; 'euclidean' is accepted for 'squared_euclidean').
* `resom_forward`: the float64 forward pass both framework layers compute, in numpy (the tests' oracle).
* `learn_lateral`, `map_labels`: H from paired unlabelled samples (`model.resom_graphs.hebbian_lateral`)
  and the labels of both maps from labelled samples of one or both (the other by divergence).
* `layer_parts`: the IR ReSOM layer's attributes and weights, checked by `model.resom_graphs.resom_graph`.

Forward semantics, shared with the IR ReSOM: ã = exp(-(d_n - d_bmu) / beta) per map (the Euclidean, not
squared, distance); `iterations` Jacobi rounds of ℓ^x = H ã^y, ℓ^y = Hᵀ ã^x (source 'all') or the winner's
column / row of H (source 'bmu', the first round from the distance BMUs), ℓ̂ = ℓ / max ℓ (0 when max ℓ
is 0), a' = ã ⊙ ℓ̂ ('product') or (ã + ℓ̂) / 2 ('sum'); winners are the first largest activity of each
map (the first round's is the BMU: its activity is 1); the global winner is x's unless y's activity is
strictly larger. Outputs: label and index (n, 1), winners (n, 2), activities (n, n_units_x + n_units_y).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from hls4ml.model.kinds import RESOM_COMBINES, RESOM_DISTANCES, RESOM_OUTPUTS, RESOM_SOURCES
from hls4ml.model.resom_graphs import divergent_labels, hebbian_lateral, resom_graph
from hls4ml.nn import som_core
from hls4ml.nn.som_core import SOMSettings, auto_beta, som_forward, unit_labels

Labelled = tuple[Any, Any]  # (samples (n, n_in), targets (n,)) of one modality
AUTO = 'auto'  # a beta chosen from the data by `auto_beta` (the default)


@dataclass(frozen=True)
class ReSOMSettings:
    """What a ReSOM layer computes, apart from its codebooks, lateral matrix and labels."""

    map_x: SOMSettings  # output 'activities', beta = beta_x
    map_y: SOMSettings
    source: str = 'all'
    combine: str = 'product'
    iterations: int = 1
    output: str = 'label'
    auto: tuple[str, ...] = ()  # the maps ('x', 'y') whose beta is 'auto' and not chosen from data yet

    @property
    def distance(self) -> str:
        return self.map_x.distance

    @property
    def n_units(self) -> tuple[int, int]:
        return self.map_x.n_units, self.map_y.n_units

    @property
    def n_out(self) -> int:
        """Values per sample of the output."""
        return {'label': 1, 'index': 1, 'winners': 2}.get(self.output, sum(self.n_units))


def make_settings(
    grid_x: Any,
    grid_y: Any,
    distance: str = 'squared_euclidean',
    source: str = 'all',
    combine: str = 'product',
    iterations: int = 1,
    output: str = 'label',
    beta_x: float | str = AUTO,
    beta_y: float | str = AUTO,
    topology: str | tuple[str, str] = 'rectangular',
    where: str = 'ReSOM',
) -> ReSOMSettings:
    """Checked settings; every error names `where` and the bad value. `topology` (one for both maps, or
    a pair) only shapes the Kohonen training of the maps. A beta 'auto' is chosen from the data by
    `choose_betas` (`fit_lateral` calls it); until then the maps hold a placeholder nothing may use."""
    topologies = (topology, topology) if isinstance(topology, str) else tuple(topology)
    betas = (beta_x, beta_y)
    auto = tuple(side for side, beta in zip('xy', betas, strict=True) if isinstance(beta, str) and beta == AUTO)
    placeholders: list[Any] = [1.0 if side in auto else beta for side, beta in zip('xy', betas, strict=True)]
    maps = [
        som_core.make_settings(grid, distance, 'activities', shape, beta, f'{where} (map {side})')
        for side, grid, shape, beta in zip('xy', (grid_x, grid_y), topologies, placeholders, strict=True)
    ]
    for what, value, allowed in (
        ('distance', maps[0].distance, RESOM_DISTANCES),
        ('source', source, RESOM_SOURCES),
        ('combine', combine, RESOM_COMBINES),
        ('output', output, RESOM_OUTPUTS),
    ):
        if value not in allowed:
            raise ValueError(f'{where}: unsupported {what} {value!r}; expected one of {", ".join(allowed)}')
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f'{where}: iterations must be an integer of at least 1, got {iterations!r}')
    return ReSOMSettings(maps[0], maps[1], source, combine, int(iterations), output, auto)


# ---- beta ---------------------------------------------------------------------------------------------
def with_betas(settings: ReSOMSettings, beta_x: float, beta_y: float) -> ReSOMSettings:
    """The settings with both betas chosen (nothing 'auto' left)."""
    map_x, map_y = replace(settings.map_x, beta=float(beta_x)), replace(settings.map_y, beta=float(beta_y))
    return replace(settings, map_x=map_x, map_y=map_y, auto=())


def check_chosen(settings: ReSOMSettings, where: str = 'ReSOM') -> None:
    """Refuse to compute with a beta still 'auto' (its placeholder would give wrong activities)."""
    if settings.auto:
        names = ' and '.join(f'beta_{side}' for side in settings.auto)
        raise ValueError(
            f"{where}: {names} = 'auto' is not chosen yet: fit_lateral(x, y) or choose_betas(x, y) picks it from "
            'paired samples (docs/resom.md, choosing beta); or give a number'
        )


def check_lateral(lateral: Any, settings: ReSOMSettings, where: str = 'ReSOM') -> np.ndarray:
    """H as a float64 (n_units_x, n_units_y) array of finite non-negative values."""
    values = np.asarray(lateral, dtype=np.float64)
    if values.shape != settings.n_units:
        raise ValueError(f'{where}: the lateral matrix has shape {values.shape}, expected {settings.n_units}')
    if not np.all(np.isfinite(values)):
        raise ValueError(f'{where}: the lateral matrix holds NaN or infinite values')
    if (values < 0).any():
        raise ValueError(f'{where}: the lateral (Hebbian) matrix must be non-negative')
    return values


def check_labels(labels: Any, settings: ReSOMSettings, where: str = 'ReSOM') -> np.ndarray:
    """The n_units_x + n_units_y labels (x units first) as finite non-negative float64 values."""
    values = np.asarray(labels, dtype=np.float64).reshape(-1)
    count = sum(settings.n_units)
    if values.shape != (count,) or not np.all(np.isfinite(values)) or (values < 0).any():
        raise ValueError(f'{where}: expected {count} non-negative labels (x units, then y units), got {values}')
    return values


# ---- forward ------------------------------------------------------------------------------------------
def normalised_combination(activity: np.ndarray, lateral: np.ndarray, combine: str) -> np.ndarray:
    """ã ⊙ ℓ/max ℓ ('product') or (ã + ℓ/max ℓ) / 2 ('sum'), per sample; ℓ/max ℓ = 0 where max ℓ = 0."""
    top = lateral.max(axis=1, keepdims=True)
    scaled = np.divide(lateral, top, out=np.zeros_like(lateral), where=top > 0)
    return activity * scaled if combine == 'product' else (activity + scaled) / 2.0


def associate(
    activity_x: np.ndarray, activity_y: np.ndarray, lateral: np.ndarray, settings: ReSOMSettings
) -> tuple[np.ndarray, np.ndarray]:
    """`iterations` Jacobi rounds of lateral exchange between the two maps' activities."""
    for _ in range(settings.iterations):
        if settings.source == 'all':
            lateral_x, lateral_y = activity_y @ lateral.T, activity_x @ lateral
        else:
            lateral_x, lateral_y = lateral[:, activity_y.argmax(axis=1)].T, lateral[activity_x.argmax(axis=1), :]
        activity_x = normalised_combination(activity_x, lateral_x, settings.combine)
        activity_y = normalised_combination(activity_y, lateral_y, settings.combine)
    return activity_x, activity_y


def select_output(
    activity_x: np.ndarray, activity_y: np.ndarray, labels: np.ndarray | None, settings: ReSOMSettings
) -> np.ndarray:
    if settings.output == 'activities':
        return np.concatenate([activity_x, activity_y], axis=1)
    winner_x, winner_y = activity_x.argmax(axis=1), activity_y.argmax(axis=1)
    if settings.output == 'winners':
        return np.stack([winner_x, winner_y], axis=1).astype(np.float64)
    rows = np.arange(len(winner_x))
    later = activity_y[rows, winner_y] > activity_x[rows, winner_x]
    winner = np.where(later, settings.n_units[0] + winner_y, winner_x)
    if settings.output == 'index':
        return winner[:, None].astype(np.float64)
    if labels is None:
        raise ValueError("ReSOM: output 'label' needs labels (one class per unit)")
    return np.asarray(labels, dtype=np.float64)[winner][:, None]


def resom_forward(
    x: Any,
    y: Any,
    codebook_x: np.ndarray,
    codebook_y: np.ndarray,
    lateral: np.ndarray,
    labels: np.ndarray | None,
    settings: ReSOMSettings,
) -> np.ndarray:
    """The float64 output of a ReSOM layer for paired samples x (n, n_in_x) and y (n, n_in_y)."""
    if len(x) != len(y):
        raise ValueError(f'ReSOM: {len(x)} samples of x and {len(y)} of y do not pair up')
    activity_x = som_forward(x, codebook_x, None, settings.map_x)
    activity_y = som_forward(y, codebook_y, None, settings.map_y)
    activity_x, activity_y = associate(activity_x, activity_y, lateral, settings)
    return select_output(activity_x, activity_y, labels, settings)


# ---- learning -----------------------------------------------------------------------------------------
def learn_lateral(
    codebooks: tuple[np.ndarray, np.ndarray],
    data: tuple[Any, Any],
    settings: ReSOMSettings,
    rule: str = 'hebb',
    rate: float = 1.0,
    keep: float = 1.0,
) -> np.ndarray:
    """H from paired unlabelled samples (`hebbian_lateral`, with the maps' distance and betas): 'hebb',
    'bmu' or 'oja', pruned to the largest fraction `keep`, divided by its maximum."""
    betas = (settings.map_x.beta, settings.map_y.beta)
    return hebbian_lateral(codebooks, data, rule, rate, betas, settings.distance, keep)


def map_labels(
    codebooks: tuple[np.ndarray, np.ndarray],
    lateral: np.ndarray,
    settings: ReSOMSettings,
    labelled_x: Labelled | None = None,
    labelled_y: Labelled | None = None,
    method: str = 'majority',
) -> np.ndarray:
    """The labels of both maps (x units, then y units). A map with labelled samples is labelled by
    `som_core.unit_labels` ('majority' or 'activities'); a map without, by divergence through H
    (unit j of y takes the label of argmax_i H[i, j], ties to the lowest i; symmetrically for x)."""
    if labelled_x is None and labelled_y is None:
        raise ValueError('ReSOM labelling: give labelled samples of x, of y or of both')
    if labelled_x is not None:
        labels_x = unit_labels(codebooks[0], settings.map_x, labelled_x[0], labelled_x[1], method)
    if labelled_y is not None:
        labels_y = unit_labels(codebooks[1], settings.map_y, labelled_y[0], labelled_y[1], method)
    if labelled_x is None:
        labels_x = divergent_labels(lateral.T, labels_y)
    if labelled_y is None:
        labels_y = divergent_labels(lateral, labels_x)
    return np.concatenate([labels_x, labels_y])


# ---- conversion ---------------------------------------------------------------------------------------
def layer_parts(
    codebooks: tuple[np.ndarray, np.ndarray],
    lateral: np.ndarray,
    labels: np.ndarray | None,
    settings: ReSOMSettings,
    where: str = 'ReSOM',
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The attributes and weights of the IR ReSOM layer, checked by `resom_graph` (shapes, NaN, signs);
    its errors name `where`."""
    check_chosen(settings, where)
    n_x = settings.n_units[0]
    labels_x = labels_y = None
    if settings.output == 'label' and labels is not None:
        labels_x, labels_y = labels[:n_x], labels[n_x:]
    try:
        graph, _ = resom_graph(
            codebooks[0],
            settings.map_x.grid,
            codebooks[1],
            settings.map_y.grid,
            lateral,
            labels_x,
            labels_y,
            settings.output,
            settings.distance,
            settings.source,
            settings.combine,
            settings.iterations,
            settings.map_x.beta,
            settings.map_y.beta,
        )
    except ValueError as error:
        raise ValueError(f'{where}: {str(error).removeprefix("ReSOM: ")}') from error
    layer = graph.layers['resom']
    return dict(layer.attributes), dict(layer.weights)


# ---- constructors -------------------------------------------------------------------------------------
def settings_of_maps(
    map_x: SOMSettings,
    map_y: SOMSettings,
    where: str = 'ReSOM',
    beta_x: float | str | None = None,
    beta_y: float | str | None = None,
    **options: Any,
) -> ReSOMSettings:
    """The settings of a ReSOM over two existing maps (their grids, distance, topologies and, unless
    given, betas); `options`: source, combine, iterations, output."""
    if map_x.distance != map_y.distance:
        raise ValueError(f'{where}: the two SOMs must use one distance, got {map_x.distance} and {map_y.distance}')
    return make_settings(
        map_x.grid,
        map_y.grid,
        map_x.distance,
        beta_x=map_x.beta if beta_x is None else beta_x,
        beta_y=map_y.beta if beta_y is None else beta_y,
        topology=(map_x.topology, map_y.topology),
        where=where,
        **options,
    )


def minisom_maps(som_x: Any, som_y: Any, distance: str | None = None) -> tuple[list[np.ndarray], list[SOMSettings]]:
    """The codebooks (n_units, n_in) and map settings of two trained MiniSoms."""
    states = [som_core.minisom_state(som, distance) for som in (som_x, som_y)]
    maps = [SOMSettings(state['grid'], state['distance'], 'activities', state['topology']) for state in states]
    return [state['codebook'] for state in states], maps


def arguments(settings: ReSOMSettings) -> dict[str, Any]:
    """The constructor arguments of a framework ReSOM with these settings (its get_config too)."""
    map_x, map_y = settings.map_x, settings.map_y
    return {
        'grid_x': map_x.grid,
        'grid_y': map_y.grid,
        'distance': settings.distance,
        'source': settings.source,
        'combine': settings.combine,
        'iterations': settings.iterations,
        'output': settings.output,
        'beta_x': AUTO if 'x' in settings.auto else map_x.beta,
        'beta_y': AUTO if 'y' in settings.auto else map_y.beta,
        'topology': map_x.topology if map_x.topology == map_y.topology else (map_x.topology, map_y.topology),
    }


OPTIONS = ('source', 'combine', 'iterations', 'output', 'beta_x', 'beta_y')  # of settings_of_maps


class ReSOMLearning:
    """The learning and constructors both framework ReSOMs share (mixed into `keras_resom.ReSOM` and
    `torch_resom.ReSOM`, before the framework's base class).

    How to write a framework ReSOM with it: set `settings` and the maps `som_x`, `som_y` (hls4ml SOM
    layers of the framework, output 'activities'), and define the methods below that raise
    NotImplementedError; `_build_for` only if the weights are made lazily (Keras)."""

    settings: ReSOMSettings
    som_x: Any
    som_y: Any

    def _build_for(self, n_in_x: int, n_in_y: int) -> None:
        """Make the weights for inputs of these widths if they do not exist yet."""

    def codebook_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def lateral_array(self) -> np.ndarray:
        raise NotImplementedError

    def set_lateral(self, lateral: Any) -> Any:
        raise NotImplementedError

    def set_labels(self, labels: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def from_settings(cls, settings: ReSOMSettings, codebooks: Any, labels: Any = None, **kwargs: Any) -> Any:
        """A ReSOM with these settings and codebooks; kwargs: constructor arguments (seed, a Keras name)."""
        raise NotImplementedError

    def fit_maps(self, data_x: Any, data_y: Any, **kohonen: Any) -> Any:
        """Kohonen training of both maps (`fit_kohonen` of the SOM layers: epochs, sigma, learning_rate,
        mode, seed, initialize, shuffle); the y map uses seed + 1."""
        self._build_for(np.shape(data_x)[-1], np.shape(data_y)[-1])
        seed = kohonen.pop('seed', 0)
        self.som_x.fit_kohonen(data_x, seed=seed, **kohonen)
        self.som_y.fit_kohonen(data_y, seed=seed + 1, **kohonen)
        return self

    def set_settings(self, settings: ReSOMSettings) -> None:
        """Replace the settings and the maps' betas (the SOM layers compute the activities)."""
        self.settings = settings
        for som, mapping in ((self.som_x, settings.map_x), (self.som_y, settings.map_y)):
            som.settings = replace(som.settings, beta=mapping.beta)

    def choose_betas(self, data_x: Any, data_y: Any) -> Any:
        """Choose each beta still 'auto' from samples of its map (`auto_beta`); a number given stays."""
        settings, codebooks = self.settings, self.codebook_arrays()
        betas = [
            auto_beta(codebook, mapping, _numpy(data), f'{type(self).__name__} (map {side})')
            if side in settings.auto
            else mapping.beta
            for side, codebook, mapping, data in zip(
                'xy', codebooks, (settings.map_x, settings.map_y), (data_x, data_y), strict=True
            )
        ]
        self.set_settings(with_betas(settings, *betas))
        return self

    def fit_lateral(self, data_x: Any, data_y: Any, rule: str = 'hebb', rate: float = 1.0, keep: float = 1.0) -> Any:
        """H from paired unlabelled samples (`learn_lateral`: rule 'hebb', 'bmu' or 'oja', pruning `keep`);
        a beta still 'auto' is chosen from these samples first (`choose_betas`)."""
        samples = (_numpy(data_x), _numpy(data_y))
        self.choose_betas(*samples)
        codebooks = self.codebook_arrays()
        return self.set_lateral(learn_lateral(codebooks, samples, self.settings, rule, rate, keep))

    def label_units(
        self, labelled_x: Labelled | None = None, labelled_y: Labelled | None = None, method: str = 'majority'
    ) -> Any:
        """Label both maps from (samples, targets) of x, y or both; a map without by divergence through H."""
        given = [None if pair is None else (_numpy(pair[0]), _numpy(pair[1])) for pair in (labelled_x, labelled_y)]
        if method == 'activities':
            check_chosen(self.settings, f'{type(self).__name__}.label_units')
        codebooks, lateral = self.codebook_arrays(), self.lateral_array()
        found = map_labels(codebooks, lateral, self.settings, given[0], given[1], method)
        return self.set_labels(found)

    def learn(
        self, pairs: tuple[Any, Any] | None, labelled_x: Labelled | None, labelled_y: Labelled | None, **options: Any
    ) -> Any:
        """`fit_lateral(*pairs, rule, rate, keep)` when pairs are given, then `label_units(..., method)`
        when labelled samples are."""
        method = options.pop('method', 'majority')
        if pairs is not None:
            self.fit_lateral(pairs[0], pairs[1], **options)
        if labelled_x is not None or labelled_y is not None:
            self.label_units(labelled_x, labelled_y, method)
        return self

    @classmethod
    def from_soms(
        cls,
        som_x: Any,
        som_y: Any,
        pairs: tuple[Any, Any] | None = None,
        labelled_x: Labelled | None = None,
        labelled_y: Labelled | None = None,
        learning: dict[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """A ReSOM over copies of two trained hls4ml SOM layers of the same framework: their grids,
        distance, topologies, codebooks and betas (unless beta_x / beta_y are given). `options`: source,
        combine, iterations, output, beta_x, beta_y and constructor arguments (a Keras name). H is
        learned from `pairs` and the labels from `labelled_x` / `labelled_y` (`learn`; `learning`: rule,
        rate, keep, method)."""
        chosen = {key: options.pop(key) for key in OPTIONS if key in options}
        settings = settings_of_maps(som_x.settings, som_y.settings, f'{cls.__name__}.from_soms', **chosen)
        codebooks = (som_x.codebook_array(), som_y.codebook_array())
        resom = cls.from_settings(settings, codebooks, **options)
        return resom.learn(pairs, labelled_x, labelled_y, **(learning or {}))

    @classmethod
    def from_minisoms(
        cls,
        som_x: Any,
        som_y: Any,
        pairs: tuple[Any, Any] | None = None,
        labelled_x: Labelled | None = None,
        labelled_y: Labelled | None = None,
        learning: dict[str, Any] | None = None,
        distance: str | None = None,
        **options: Any,
    ) -> Any:
        """As `from_soms`, from two trained `minisom.MiniSom` (betas 'auto' unless given: chosen from
        `pairs` by `fit_lateral`; `distance` names the metric of a user callable)."""
        chosen = {'beta_x': AUTO, 'beta_y': AUTO, **{key: options.pop(key) for key in OPTIONS if key in options}}
        codebooks, maps = minisom_maps(som_x, som_y, distance)
        settings = settings_of_maps(maps[0], maps[1], f'{cls.__name__}.from_minisoms', **chosen)
        resom = cls.from_settings(settings, codebooks, **options)
        return resom.learn(pairs, labelled_x, labelled_y, **(learning or {}))


def _numpy(values: Any) -> np.ndarray:
    """Samples or targets of any framework as a numpy array (torch tensors are detached first)."""
    detach = getattr(values, 'detach', None)
    return np.asarray(detach().cpu().numpy() if detach is not None else values)
