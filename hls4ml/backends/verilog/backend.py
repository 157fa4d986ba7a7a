"""The Verilog backend: fully unrolled io_parallel models as one pipelined Verilog module (docs/verilog.md).

Unlike the HLS backends it writes no C++: the typed graph is traced with da4ml (`trace.py`), the constant
products become multiplier-free adder graphs, and the program is pipelined at the configured clock and
emitted as Verilog. `compile()` builds it with Verilator (hls4ml/csim/rtl.py), `build()` synthesizes it
with Yosys and simulates the written testbench (`build.py`, `testbench.py`). What it cannot express is
refused when the model is converted (`check_design`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hls4ml.backends.base import Backend, Design
from hls4ml.backends.verilog.fixed import UnsupportedInRTL
from hls4ml.backends.verilog.layers import RULES
from hls4ml.model.kinds import LAYER_KINDS

STRATEGIES = ('latency', 'distributed_arithmetic')
GAPS = tuple((kind, 'no Verilog logic yet (docs/verilog.md)') for kind in LAYER_KINDS if kind not in RULES)


@dataclass(frozen=True)
class VerilogBackend(Backend):
    family: str = 'ap'  # the RTL computes what ap_fixed computes: it is checked against the Vitis C-simulation
    template_dir: str = 'verilog'
    default_part: str = 'xcvu13p-flga2577-2-e'
    writes_rtl: bool = True
    unsupported_io: tuple[tuple[str, str], ...] = (
        ('io_stream', 'the Verilog backend builds fully unrolled io_parallel designs only'),
    )
    unsupported_kinds: tuple[tuple[str, str], ...] = GAPS

    def create_initial_config(
        self,
        part: str | None = None,
        clock_period: float = 5,
        io_type: str = 'io_parallel',
        **unknown: Any,
    ) -> tuple[dict[str, Any], set[str]]:
        """Part (its family chooses Yosys' synth_xilinx target), ClockPeriod (ns: the pipeline's stage
        budget), IOType (io_parallel only)."""
        self.check_io_type(io_type)
        self.check_clock_period(clock_period)
        config = {'Part': self.chosen_part(part), 'ClockPeriod': clock_period, 'IOType': io_type, 'HLSConfig': {}}
        return config, set(unknown)

    def check_design(self, design: Design) -> None:
        """Every layer fully unrolled (reuse factor 1, Latency strategy) and of a kind the RTL expresses;
        one UnsupportedInRTL (a ValueError) naming every refused layer."""
        from hls4ml.backends.verilog.trace import unsupported_layers

        problems = []
        for layer in design.graph.layers.values():
            reuse = layer.attributes.get('reuse_factor', 1)
            strategy = str(layer.attributes.get('strategy', 'latency')).lower()
            if reuse != 1:
                problems.append(f'{layer.describe()}: reuse factor {reuse}; the Verilog backend unrolls fully (1)')
            if strategy not in STRATEGIES:
                problems.append(f"{layer.describe()}: strategy '{strategy}'; the Verilog backend needs 'Latency'")
        problems += unsupported_layers(design.graph)
        if problems:
            raise UnsupportedInRTL('the Verilog backend cannot implement: ' + '; '.join(problems))

    def project_files(self) -> dict[str, str]:
        return {}

    def learn_files(self) -> dict[str, str]:
        return {}

    def build(self, design: Design, **kwargs: Any) -> dict[str, Any]:
        from hls4ml.backends.verilog.build import build_project

        return build_project(design, **kwargs)
