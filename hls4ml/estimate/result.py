"""The estimate users see: per-layer rows and totals, a printed table, a figure, plain dictionaries.

Every number is a `Range`: a point estimate (`value`) and the bounds the tools' choices cannot leave
(`low`, `high`). The table prints the point and the calibrated band around it: the ratios of report
to point that held at least 90 % of the calibration reports (docs/estimator.md, "Calibration"),
clipped to the bounds. A row marked coarse comes from a rule known to be rough; a row of a kind
without a rule says 'not modelled' and takes no part in the totals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from hls4ml.estimate.bands import band
from hls4ml.estimate.figure import estimate_figure
from hls4ml.estimate.primitives import Range


def _with_band(metric: str, value: Range) -> dict[str, Any]:
    low, high = band(metric, value)
    return {**value.to_dict(), 'band': [_plain(low), _plain(high)]}


def _plain(value: float) -> float:
    return int(value) if float(value).is_integer() else round(float(value), 3)


@dataclass
class LayerEstimate:
    name: str
    kind: str
    latency: Range | None  # cycles; None when not modelled
    interval: Range | None
    resources: dict[str, Range]
    modelled: bool = True
    coarse: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self, clock_period: float) -> dict[str, Any]:
        return {
            'name': self.name,
            'kind': self.kind,
            'modelled': self.modelled,
            'coarse': self.coarse,
            'latency_cycles': _with_band('latency', self.latency) if self.latency else None,
            'latency_ns': _with_band('latency', self.latency.scale(clock_period)) if self.latency else None,
            'interval_cycles': _with_band('latency', self.interval) if self.interval else None,
            'resources': {name: _with_band(name, value) for name, value in self.resources.items()},
            'notes': list(self.notes),
        }


@dataclass
class Estimate:
    """The analytic estimate of a converted model (`ModelGraph.estimate()`)."""

    backend: str
    part: str | None
    family: str
    clock_period: float  # ns, as configured
    effective_period: float  # ns, after the clock uncertainty
    io_type: str
    schedule: str  # 'pipeline', 'dataflow' or 'stream'
    columns: tuple[str, ...]
    layers: list[LayerEstimate]
    total: LayerEstimate
    available: dict[str, int] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def latency_cycles(self) -> Range:
        assert self.total.latency is not None
        return self.total.latency

    @property
    def latency_ns(self) -> Range:
        return self.latency_cycles.scale(self.clock_period)

    @property
    def interval(self) -> Range:
        assert self.total.interval is not None
        return self.total.interval

    def utilisation(self) -> dict[str, Range] | None:
        """Percent of the part's resources (None when the part is not known)."""
        if self.available is None:
            return None
        return {
            name: self.total.resources[name].scale(100 / self.available[name])
            for name in self.columns
            if self.available.get(name)
        }

    def plot(self, to_file: str | None = None) -> Any:
        """A figure of latency and resources per layer (matplotlib; saved to `to_file` when given)."""
        return estimate_figure(self, to_file)

    def to_dict(self) -> dict[str, Any]:
        utilisation = self.utilisation()
        return {
            'backend': self.backend,
            'part': self.part,
            'family': self.family,
            'clock_period_ns': self.clock_period,
            'effective_period_ns': self.effective_period,
            'io_type': self.io_type,
            'schedule': self.schedule,
            'columns': list(self.columns),
            'layers': [layer.to_dict(self.clock_period) for layer in self.layers],
            'total': self.total.to_dict(self.clock_period),
            'available': dict(self.available) if self.available is not None else None,
            'utilisation_percent': {k: v.to_dict() for k, v in utilisation.items()} if utilisation else None,
            'notes': list(self.notes),
        }

    def __str__(self) -> str:
        header = ('layer', 'kind', 'latency', 'II', *self.columns)
        rows = [self._row(layer) for layer in self.layers]
        rows.append(self._row(self.total))
        if self.available is not None:
            rows.append(('available', '', '', '', *(_count(self.available.get(c)) for c in self.columns)))
            percent = self.utilisation() or {}
            rows.append(('used %', '', '', '', *(_percent(c, percent.get(c)) for c in self.columns)))
        widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
        lines = [self._title(), _line(header, widths), _line(tuple('-' * w for w in widths), widths)]
        lines += [_line(row, widths) for row in rows]
        lines += [f'* {note}' for note in self.notes]
        return '\n'.join(lines)

    def _title(self) -> str:
        latency = f'{_cell("latency", self.latency_cycles)} cycles = {_cell("latency", self.latency_ns)} ns'
        return (
            f'{self.backend} estimate, part {self.part or "none"} ({self.family}), clock {self.clock_period:g} ns '
            f'(effective {self.effective_period:.3g} ns), {self.io_type}, {self.schedule}: latency {latency}, '
            f'II {_cell("latency", self.interval)} cycles'
        )

    def _row(self, layer: LayerEstimate) -> tuple[str, ...]:
        name = layer.name + (' *' if layer.coarse else '')
        if not layer.modelled:
            return (name, layer.kind, 'not modelled', '', *('' for _ in self.columns))
        latency, interval = _cell('latency', layer.latency), _cell('latency', layer.interval)
        return (name, layer.kind, latency, interval, *(_cell(c, layer.resources[c]) for c in self.columns))


def _cell(metric: str, value: Range | None) -> str:
    """A point and its calibrated band: '3323 (2658-3323)'; one number when the band is a point."""
    if value is None:
        return ''
    low, high = band(metric, value)
    point, low_text, high_text = _short(round(value.value)), _short(math.floor(low)), _short(math.ceil(high))
    return point if low_text == high_text else f'{point} ({low_text}-{high_text})'


def _short(value: float) -> str:
    return f'{int(value):,}'.replace(',', '_') if abs(value) >= 100_000 else str(int(value))


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    return '  '.join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def _count(value: int | None) -> str:
    return '-' if value is None else str(value)


def _percent(metric: str, value: Range | None) -> str:
    if value is None:
        return '-'
    low, high = band(metric, value)
    point, low_text, high_text = f'{value.value:.2f}', f'{low:.2f}', f'{high:.2f}'
    return point if low_text == high_text else f'{point} ({low_text}-{high_text})'
