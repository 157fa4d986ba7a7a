"""What a layer rule reads (`RuleContext`) and returns (`LayerModel`), and the delay model.

Timing works in nanoseconds along the longest chain of operations of one pass through a layer,
then in cycles of the effective clock period (the period minus the clock uncertainty the tool
reserves). Delays are ranges for an UltraScale+ -2 part, scaled by the family's `speed`; see
docs/estimator.md ("Timing").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hls4ml.backends.devices import Family
from hls4ml.estimate.mapping import in_dsp, placement
from hls4ml.estimate.primitives import ZERO, Cost, Multiplier, Range, width_of
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.passes.fifo_depths import stream_pack

# Delays: low-high, and the point the calibration reports fit (docs/estimator.md, "Calibration"):
# Dense(1 -> 64) + PReLU, a DSP product then a compare-select, closes at 2.9-3.0 ns in combinational
# designs (Vivado 2020.1, Vitis 2024.1), so a DSP product is ~2.2 ns and a 16-bit compare-select ~0.7 ns.
DSP_MULTIPLY_NS = Range(2.0, 3.6, 2.2)  # a DSP product, inputs to the registered output
ADD_NS = (0.4, 0.02, 0.9, 0.04, 0.25, 0.015)  # w-bit adder: low 0.4 + 0.02 w, high 0.9 + 0.04 w, point 0.25 + 0.015 w
SELECT_NS = Range(0.3, 0.6, 0.2)  # a multiplexer level after a comparison
LUT_READ_NS = Range(0.5, 1.2)  # a distributed ROM read
BLOCK_READ_CYCLES = Range(1, 2, 2)  # a block RAM read (registered output, optionally a second register)
INTEL_BLOCK_READ_CYCLES = Range(1, 5, 4)  # an M20K read as the oneAPI reports schedule it (fitted: tables + 4)
LOOP_OVERHEAD_CYCLES = Range(1, 2, 1)  # entering and leaving a pipelined loop


@dataclass
class LayerModel:
    """One layer's cost and schedule. io_parallel: `latency` of one call, `interval` between calls.
    io_stream: `latency` from the first input element to the last output element when inputs arrive
    at full rate, `interval` the time the layer is busy per inference, `depth` the cycles from an
    element's arrival to the output it completes."""

    cost: Cost
    latency: Range
    interval: Range
    depth: Range = ZERO
    notes: list[str] = field(default_factory=list)
    coarse: bool = False
    stage_bits: float | None = None  # bits registered at a cycle boundary inside the layer (None: its output)
    free_boundaries: int = 0  # boundaries whose registers sit inside a block RAM (a table read's first cycle)
    carried_bits: float = 0  # bits carried across every boundary besides (ELU keeps x past its table read)
    loop_boundaries: int | None = None  # a loop's pipeline: its registers are one iteration's, not the latency's


@dataclass
class RuleContext:
    graph: Graph
    family: Family
    period_ns: float  # the effective clock period
    io_stream: bool
    vendor: str = 'amd'  # 'amd', 'intel' or 'asic' (model.Target)
    tool: str = 'vitis'  # the backend, lower case: 'vitis', 'vivado', 'oneapi', 'catapult'

    # ---- widths and sizes --------------------------------------------------------------------------
    def input_bits(self, layer: Layer, index: int = 0) -> int:
        return width_of(self.graph.input_type(layer, index))

    def type_bits(self, layer: Layer, var: str) -> int:
        return width_of(layer.types.get(var))

    def input_size(self, layer: Layer, index: int = 0) -> int:
        return self.graph.tensors[layer.inputs[index]].size

    def output_size(self, layer: Layer) -> int:
        return sum(self.graph.tensors[name].size for name in layer.outputs)

    def elements(self, tensor: str) -> int:
        """Stream elements of a tensor (io_stream packs the channels of one position in one element)."""
        shape = self.graph.tensors[tensor].shape
        return max(math.prod(shape) // max(stream_pack(shape), 1), 1)

    # ---- delays ------------------------------------------------------------------------------------
    def add_ns(self, bits: int, levels: int = 1) -> Range:
        low0, low1, high0, high1, point0, point1 = ADD_NS
        one = Range(low0 + low1 * bits, high0 + high1 * bits, point0 + point1 * bits)
        return one.scale(levels * self.family.speed, None, levels * self.family.speed)

    def compare_ns(self, bits: int, levels: int = 1) -> Range:
        return (self.add_ns(bits) + SELECT_NS.scale(self.family.speed, None, self.family.speed)).scale(
            levels, None, levels
        )

    def multiply_ns(self, multipliers: list[Multiplier]) -> Range:
        """The slowest multiplier of a layer: a DSP, a LUT product, or a constant's adder tree."""
        slowest = ZERO
        for multiplier in multipliers:
            where = placement(multiplier)
            bits = multiplier.data_bits + multiplier.coefficient_bits
            if where == 'none':
                continue
            if multiplier.digits is not None and not in_dsp(multiplier, self.vendor):
                delay = self.add_ns(bits, max(math.ceil(math.log2(multiplier.digits)), 1))
            elif where == 'lut':
                delay = Range(0.5 + 0.06 * bits, 1.0 + 0.12 * bits).scale(self.family.speed)
            else:
                delay = DSP_MULTIPLY_NS.scale(self.family.speed, None, self.family.speed)
            slowest = slowest.maximum(delay)
        return slowest

    def cycles(self, chain_ns: Range, fixed: Range = ZERO) -> Range:
        """Clock cycles of a chain of operations: low rounds down (operations chained in one cycle
        up to the period), high rounds up; plus `fixed` cycles (block RAM reads, loop entry). The point
        stays fractional (the chain's point over the period) so that the schedule can chain layers in
        one cycle as the tools do; `schedule.py` rounds the totals down."""
        low = math.floor(chain_ns.low / self.period_ns + 1e-9)
        high = math.ceil(chain_ns.high / self.period_ns - 1e-9)
        return Range(low, max(high, low), chain_ns.value / self.period_ns) + fixed.at(fixed.value)

    def vector_latency(self, latency: Range) -> Range:
        """io_stream layers whose vector is one element (Dense, Dot, SOM, top-k, ...) read it, run the
        array kernel and write one element: a loop's entry and exit more than io_parallel. The point:
        such a process takes whole cycles, at least one (Vitis io_stream reports: Dense + ReLU 2 cycles,
        Dense + a table activation 4)."""
        if not self.io_stream:
            return latency
        return (latency + LOOP_OVERHEAD_CYCLES).at(max(1, math.ceil(latency.value - 1e-9)))

    def read_cycles(self, in_block_ram: bool | None) -> Range:
        """Cycles of a memory read: a block RAM registers its output; LUTs may; None: either."""
        lut = self.cycles(LUT_READ_NS.scale(self.family.speed))
        block = INTEL_BLOCK_READ_CYCLES if self.vendor == 'intel' else BLOCK_READ_CYCLES
        if in_block_ram is None:
            return Range(lut.low, block.high, block.value)
        return block if in_block_ram else lut


def pipelined(depth: Range, reuse_factor: int) -> tuple[Range, Range]:
    """(latency, interval) of a region pipelined at II = reuse_factor: the operations shared
    reuse_factor times take reuse_factor - 1 more cycles."""
    return depth + Range.exact(reuse_factor - 1), Range.exact(reuse_factor)


def stream_schedule(depth: Range, elements: int, element_interval: int = 1) -> tuple[Range, Range]:
    """(latency, interval) of a loop over `elements` stream elements pipelined at `element_interval`.
    The point: whole cycles of the depth (at least one), then an element per interval, and a cycle of
    loop entry when there is more than one element."""
    busy = Range.exact(elements * element_interval)
    latency = busy + depth + LOOP_OVERHEAD_CYCLES + Range.exact(-element_interval)
    point = max(1, math.ceil(depth.value - 1e-9)) + (elements - 1) * element_interval + (elements > 1)
    return latency.at(point), busy + LOOP_OVERHEAD_CYCLES
