"""Analytic estimate of latency and resources of a converted model, without any vendor tool.

    estimate = hls_model.estimate()            # or estimate_model(hls_model.design, part='xcu250')
    print(estimate)                            # a table: per layer and total, ranges low-high
    estimate.to_dict()                         # plain dicts and numbers, for JSON

The model is written down in docs/estimator.md: how each layer kind is costed from its kernel's
loops, strategy, reuse factor, IO type and operand widths; the device facts; what is not modelled.
"""

from __future__ import annotations

import re
from typing import Any

from hls4ml.backends.base import Design
from hls4ml.backends.common.project import top_schedule
from hls4ml.backends.devices import family_of, part_of
from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.model import Target, buffer_row, fifo_rows, layer_model, layer_row, port_row
from hls4ml.estimate.primitives import ZERO, Range
from hls4ml.estimate.result import Estimate, LayerEstimate
from hls4ml.estimate.schedule import parallel_totals, stage_registers, stream_totals
from hls4ml.model.kinds import is_port

__all__ = ['Estimate', 'LayerEstimate', 'estimate_model']

DEFAULT_UNCERTAINTY = {'amd': '12.5%', 'intel': '0%', 'asic': '0%'}
INTEL_KERNEL_CYCLES = 3  # oneAPI: the kernel's pipe read and write (fitted: pooling alone reports 3 cycles)


def estimate_model(design: Design, part: str | None = None) -> Estimate:
    """The estimate of a converted model (`ModelGraph.design`) on `part` (default: the part in its config)."""
    config = design.config
    target, part, notes = _target(design, part)
    period = float(config.get('ClockPeriod', 5))
    effective = period * (1 - _uncertainty(config.get('ClockUncertainty'), period, target.vendor))
    io_stream = config['IOType'] == 'io_stream'
    tool = design.backend.name.lower()
    ctx = RuleContext(design.graph, target.family, effective, io_stream, target.vendor, tool)
    layers = [layer for layer in design.graph.layers.values() if not is_port(layer)]
    modelled = {layer.name: layer_model(layer, ctx) for layer in layers}
    models = {name: model for name, (model, _) in modelled.items() if model is not None}
    schedule, latency, interval = _totals(design, ctx, models)
    rows = [layer_row(layer, *modelled[layer.name], target) for layer in layers]
    rows += [port_row(ctx, target)]
    rows += fifo_rows(ctx, target) if io_stream else []
    rows += [buffer_row(ctx, target)] if schedule == 'dataflow' else []
    total = _total(rows, target.columns, latency, interval)
    notes += _row_notes(rows)
    available = _available(part, target.columns, notes)
    family_name = f'{target.family.name}, {target.family.dsp_name}' if target.vendor != 'asic' else 'ASIC library'
    return Estimate(
        design.backend.name, part, family_name, period, effective, config['IOType'], schedule,
        target.columns, rows, total, available, notes,
    )  # fmt: skip


def _target(design: Design, part: str | None) -> tuple[Target, str | None, list[str]]:
    """The report columns, device family and part of the model's backend."""
    config, notes = design.config, []
    name = design.backend.name
    if name == 'Catapult' and config.get('Technology') == 'asic' and part is None:
        family, _ = family_of(None, 'amd')
        notes.append('ASIC library: multipliers and the AREA proxy only (no DSP, LUT or block RAM)')
        return Target('asic', family, area=True), None, notes
    part = part or config.get('Part') or design.backend.default_part
    vendor = 'intel' if name == 'oneAPI' else 'amd'
    family, known = family_of(part, vendor)
    if not known:
        notes.append(f'part {part!r}: family not recognised, {family.name} device facts assumed')
    return Target(vendor, family, area=name == 'Catapult'), part, notes


def _uncertainty(text: Any, period: float, vendor: str) -> float:
    """The clock uncertainty as a fraction of the period ('27%', '0.5' ns, or the vendor default)."""
    text = str(text if text is not None else DEFAULT_UNCERTAINTY[vendor]).strip()
    match = re.fullmatch(r'([0-9.]+)\s*(%?)', text)
    if not match:
        return 0.125
    value = float(match.group(1))
    return min(value / 100 if match.group(2) else value / period, 0.9)


def _totals(design: Design, ctx: RuleContext, models: dict[str, LayerModel]) -> tuple[str, Any, Any]:
    """(schedule, latency, II); sets every layer's register point from the schedule's cycle boundaries."""
    port_cycles = INTEL_KERNEL_CYCLES if ctx.vendor == 'intel' else 0
    if ctx.io_stream:
        latency, interval = stream_totals(ctx, models)
        stage_registers(ctx, models, {})
        return 'stream', latency + Range(0, port_cycles, port_cycles), interval
    style, top_interval = top_schedule(design)  # the top-level schedule the writer emits
    latency, interval, spans = parallel_totals(ctx, models, style == 'dataflow', top_interval)
    stage_registers(ctx, models, spans)
    return style, latency + Range(0, port_cycles, port_cycles), interval


def _total(rows: list[LayerEstimate], columns: tuple[str, ...], latency: Any, interval: Any) -> LayerEstimate:
    resources = dict.fromkeys(columns, ZERO)
    for row in rows:
        for name in columns:
            resources[name] = resources[name] + row.resources.get(name, ZERO)
    coarse = any(row.coarse for row in rows)
    return LayerEstimate('total', '', latency.rounded(), interval.rounded(), resources, coarse=coarse)


def _row_notes(rows: list[LayerEstimate]) -> list[str]:
    notes = [
        'cells: point estimate (calibrated band); to_dict() also has the bounds low-high; '
        'rows marked * are coarse (docs/estimator.md says why)'
    ]
    missing = [row.name for row in rows if not row.modelled]
    if missing:
        notes.append(f'not modelled, left out of the totals: {", ".join(missing)}')
    return notes


def _available(part: str | None, columns: tuple[str, ...], notes: list[str]) -> dict[str, int] | None:
    known = part_of(part)
    if known is None:
        notes.append(f'part {part!r} is not in the device table: no utilisation percentages')
        return None
    return {name: known.resources[name] for name in columns if name in known.resources}
