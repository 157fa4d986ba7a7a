"""The estimate of a model on the Verilog backend: da4ml's adder-graph costs, no HLS schedule.

The RTL is known exactly before synthesis: every constant product is an adder graph whose LUT cost
da4ml computes per adder (one LUT per output bit of a ripple-carry adder, on the carry chain), every ROM
and comparison likewise, and the flip-flops are the pipeline registers between stages. So a row's LUT
is da4ml's cost of that layer's logic, FF the register bits of the whole pipeline (in the total row),
DSP and block RAM zero (no multiplier is left; ROMs are distributed LUT memory), the latency the number
of pipeline stages (cycles), the interval 1. `build()` (Yosys) checks these numbers (docs/verilog.md).
"""

from __future__ import annotations

from hls4ml.backends.base import Design
from hls4ml.backends.verilog.project import render_rtl
from hls4ml.estimate.primitives import Range
from hls4ml.estimate.result import Estimate, LayerEstimate

COLUMNS = ('LUT', 'FF', 'DSP', 'BRAM_18K')


def estimate_rtl(design: Design, part: str | None = None) -> Estimate:
    """The estimate of a converted model on the Verilog backend (nothing is written)."""
    project = render_rtl(design)
    rows = [_row(design, name, cost) for name, cost in project.layer_costs.items()]
    latency, interval = Range.exact(project.stages), Range.exact(1)
    resources = {
        'LUT': Range.exact(round(project.cost)),
        'FF': Range.exact(project.register_bits),
        'DSP': Range.exact(0),
        'BRAM_18K': Range.exact(0),
    }
    total = LayerEstimate('total', '', latency, interval, resources)
    period = float(design.config.get('ClockPeriod', 5))
    part = part or design.config.get('Part') or design.backend.default_part
    notes = [
        "LUT: da4ml's adder-graph cost; FF: the pipeline's register bits; "
        f'{project.stages} stages at a latency cutoff of {project.latency_cutoff:g}'
    ]
    return Estimate(
        design.backend.name, part, 'RTL (da4ml adder graphs)', period, period, design.config['IOType'], 'pipeline',
        COLUMNS, rows, total, None, notes,
    )  # fmt: skip


def _row(design: Design, name: str, cost: float) -> LayerEstimate:
    layer = design.graph.layers[name]
    resources = {
        'LUT': Range.exact(round(cost)),
        'FF': Range.exact(0),
        'DSP': Range.exact(0),
        'BRAM_18K': Range.exact(0),
    }
    return LayerEstimate(name, layer.kind, None, None, resources, modelled=True, notes=['combinational: see total'])
