"""The estimate users see: per-layer rows and totals, a printed table, and plain dictionaries.

Every number is a `Range`; a row marked coarse comes from a rule known to be rough (see
docs/estimator.md "What the ranges mean"). A row of a kind without a rule says 'not modelled' and
takes no part in the totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hls4ml.estimate.primitives import Range


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
            'latency_cycles': self.latency.to_dict() if self.latency else None,
            'latency_ns': self.latency.scale(clock_period).to_dict() if self.latency else None,
            'interval_cycles': self.interval.to_dict() if self.interval else None,
            'resources': {name: value.to_dict() for name, value in self.resources.items()},
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
            rows.append(('used %', '', '', '', *(_percent(percent.get(c)) for c in self.columns)))
        widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
        lines = [self._title(), _line(header, widths), _line(tuple('-' * w for w in widths), widths)]
        lines += [_line(row, widths) for row in rows]
        lines += [f'* {note}' for note in self.notes]
        return '\n'.join(lines)

    def _title(self) -> str:
        latency = f'{self.latency_cycles} cycles = {self.latency_ns} ns'
        return (
            f'{self.backend} estimate, part {self.part or "none"} ({self.family}), clock {self.clock_period:g} ns '
            f'(effective {self.effective_period:.3g} ns), {self.io_type}, {self.schedule}: latency {latency}, '
            f'II {self.interval} cycles'
        )

    def _row(self, layer: LayerEstimate) -> tuple[str, ...]:
        name = layer.name + (' *' if layer.coarse else '')
        if not layer.modelled:
            return (name, layer.kind, 'not modelled', '', *('' for _ in self.columns))
        latency, interval = str(layer.latency), str(layer.interval)
        return (name, layer.kind, latency, interval, *(str(layer.resources[c].rounded()) for c in self.columns))


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    return '  '.join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def _count(value: int | None) -> str:
    return '-' if value is None else str(value)


def _percent(value: Range | None) -> str:
    if value is None:
        return '-'
    low, high = f'{value.low:.2f}', f'{value.high:.2f}'
    return low if low == high else f'{low}-{high}'
