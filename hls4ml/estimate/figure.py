"""The estimate as a figure: latency and resources per layer (`Estimate.plot()`).

Two panels sharing the layer axis: the latency of each layer in cycles, and its resources, as a
percentage of the part when the part is known (else as counts, on a log scale). `estimate` is a
`result.Estimate` (typed Any: result imports this module).
Bars are the point estimates, whiskers the calibrated band (docs/estimator.md, "Calibration").
The figure is a plain `matplotlib.figure.Figure` on the Agg canvas (headless; the `plot` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.estimate.bands import band
from hls4ml.estimate.primitives import Range

BAR_WIDTH = 0.8


def estimate_figure(estimate: Any, to_file: str | Path | None = None) -> Any:
    """Latency and resources per layer; saved to `to_file` (by its extension) when given."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError('Estimate.plot() needs matplotlib: pip install hls4ml[plot]') from error
    rows = [row for row in estimate.layers if row.modelled]
    figure = Figure(figsize=(max(6.0, 0.9 * len(rows) + 3), 7.0))
    FigureCanvasAgg(figure)
    latency_axes, resource_axes = figure.subplots(2, 1, sharex=True)
    positions = np.arange(len(rows), dtype=float)
    _latency_panel(latency_axes, rows, positions)
    _resource_panel(resource_axes, estimate, rows, positions)
    resource_axes.set_xticks(positions, [row.name for row in rows], rotation=45, ha='right', fontsize=8)
    figure.suptitle(f'{estimate.backend} estimate, {estimate.part or "no part"}, {estimate.io_type}')
    figure.tight_layout()
    if to_file is not None:
        figure.savefig(str(to_file))
    return figure


def _latency_panel(axes: Any, rows: list[Any], positions: np.ndarray) -> None:
    values = [row.latency or Range.exact(0) for row in rows]
    _bars(axes, positions, values, BAR_WIDTH, 'latency', 'latency', 'C0')
    axes.set_ylabel('cycles')
    axes.grid(axis='y', alpha=0.3)


def _resource_panel(axes: Any, estimate: Any, rows: list[Any], positions: np.ndarray) -> None:
    available = estimate.available or {}
    columns = [name for name in estimate.columns if any(row.resources[name].value for row in rows)]
    width = BAR_WIDTH / max(len(columns), 1)
    for index, name in enumerate(columns):
        capacity = available.get(name)
        scale = 100 / capacity if capacity else 1.0
        values = [row.resources[name].scale(scale, scale, scale) for row in rows]
        offset = (index - (len(columns) - 1) / 2) * width
        _bars(axes, positions + offset, values, width, name.lower(), name, f'C{index + 1}')
    axes.set_ylabel('% of the part' if available else 'count')
    if not available:
        axes.set_yscale('symlog')
    axes.legend(fontsize=8, ncol=max(len(columns), 1))
    axes.grid(axis='y', alpha=0.3)


def _bars(axes: Any, x: np.ndarray, values: list[Range], width: float, metric: str, label: str, colour: str) -> None:
    points = np.array([value.value for value in values])
    bands = np.array([band(metric, value) for value in values]).reshape(-1, 2)
    errors = np.vstack([points - bands[:, 0], bands[:, 1] - points]).clip(min=0)
    axes.bar(x, points, width, label=label, color=colour, yerr=errors, capsize=2, ecolor='0.3')
