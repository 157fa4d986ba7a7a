"""What a sweep returns: every evaluated point as a pandas DataFrame, its Pareto front, a matplotlib
figure of the front, and the configuration of any point ready for `convert_from_*`."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hls4ml.exploration.space import Point, hls_config_for

MAXIMISED = ('accuracy',)  # every other objective (latency, ii, dsp, lut, ff, bram, ...) is minimised


def pareto_mask(values: np.ndarray, maximise: Sequence[bool]) -> np.ndarray:
    """Rows of `values` (points x objectives) that no other row dominates: at least as good in every
    objective and better in one. Rows with a NaN are never on the front."""
    signs = np.where(np.asarray(maximise), -1.0, 1.0)  # all minimised from here on
    costs = values * signs
    valid = ~np.isnan(costs).any(axis=1)
    mask = valid.copy()
    for row in np.flatnonzero(valid):
        others = costs[valid]
        dominated = np.all(others <= costs[row], axis=1) & np.any(others < costs[row], axis=1)
        mask[row] = not dominated.any()
    return mask


@dataclass
class ExplorationResult:
    """The outcome of `hls4ml.explore`.

    `points`: one row per evaluated point (its settings, `accuracy`, the estimate's figures, `error`,
    `warnings`, `cached`, `key`) with a boolean `pareto` column; `front`: the Pareto rows;
    `selected`: the row greedy search chose (None for grid and random)."""

    points: Any  # pandas.DataFrame
    objectives: tuple[str, ...]
    dimensions: tuple[str, ...]
    hls_config: dict[str, Any] = field(repr=False)
    variables: dict[str, tuple[str, ...]] = field(repr=False)
    project: dict[str, Any] = field(repr=False)
    selected: int | None = None

    @property
    def front(self) -> Any:
        """The Pareto-optimal points, sorted by the first objective."""
        front = self.points[self.points['pareto']]
        first = self.objectives[0]
        return front.sort_values(first, ascending=first not in MAXIMISED, kind='stable')

    def point(self, row: int) -> Point:
        """The settings of row `row` of `points`."""
        values = self.points.loc[row, list(self.dimensions)]
        return {name: _plain(values[name]) for name in self.dimensions}

    def config(self, row: int) -> dict[str, Any]:
        """The hls_config dictionary of row `row`, for `convert_from_*(model, hls_config=...)`."""
        return hls_config_for(self.point(row), self.hls_config, self.variables)

    def keywords(self, row: int) -> dict[str, Any]:
        """All the keywords of `convert_from_*` for row `row` (hls_config, io_type, backend, part, ...):
        `hls4ml.converters.convert_from_keras_model(model, output_dir=..., **result.keywords(row))`."""
        keywords = copy.deepcopy(self.project)
        keywords['hls_config'] = self.config(row)
        keywords['io_type'] = self.point(row).get('io_type', keywords.get('io_type', 'io_parallel'))
        return keywords

    def plot(self, path: str | None = None, x: str | None = None, y: str | None = None) -> Any:
        """A matplotlib figure of every point (grey; failed points left out), the Pareto front of all the
        objectives (red dots) and the front in the two plotted ones (red line), `y` against `x`
        (default: accuracy, or the second objective, against the first hardware objective); saved to
        `path` when given."""
        import matplotlib

        if path is not None:
            matplotlib.use('Agg', force=False)
        import matplotlib.pyplot as plt

        x, y = self._axes(x, y)
        figure, axes = plt.subplots(figsize=(6, 4.5))
        good = self.points[self.points['error'].isna()]
        axes.scatter(good[x], good[y], s=14, color='0.6', label=f'{len(good)} points')
        maximise = [x in MAXIMISED, y in MAXIMISED]
        plane = good[pareto_mask(good[[x, y]].astype(float).to_numpy(), maximise)].sort_values(x, kind='stable')
        axes.step(plane[x], plane[y], where='post', color='tab:red', linewidth=1, label=f'front in {x}, {y}')
        front = self.front
        axes.scatter(front[x], front[y], s=28, color='tab:red', label=f'Pareto front of all objectives ({len(front)})')
        axes.set_xlabel(x)
        axes.set_ylabel(y)
        axes.grid(alpha=0.3)
        axes.legend()
        figure.tight_layout()
        if path is not None:
            figure.savefig(path, dpi=120)
        return figure

    def _axes(self, x: str | None, y: str | None) -> tuple[str, str]:
        hardware = [name for name in self.objectives if name not in MAXIMISED] or list(self.objectives)
        x = x or hardware[0]
        y = y or ('accuracy' if 'accuracy' in self.objectives else (hardware + list(self.objectives))[1])
        for axis in (x, y):
            if axis not in self.points.columns:
                raise ValueError(f'plot: no column {axis!r}; columns: {", ".join(self.points.columns)}')
        return x, y

    def __str__(self) -> str:
        columns = [*self.dimensions, *self.objectives]
        failed = int(self.points['error'].notna().sum())
        head = f'{len(self.points)} points evaluated ({failed} failed), {len(self.front)} on the Pareto front of '
        return head + f'{", ".join(self.objectives)}:\n' + self.front[columns].to_string()


def _plain(value: Any) -> Any:
    """numpy scalars from a DataFrame back to Python values (configs are written to YAML and JSON)."""
    return value.item() if isinstance(value, np.generic) else value
