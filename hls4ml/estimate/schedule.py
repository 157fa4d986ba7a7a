"""Whole-model latency and initiation interval from the per-layer schedules.

* pipeline (io_parallel, Latency layers): the layers are stages of one pipeline; the latency is the
  longest path of layer latencies, the II the largest of the top's II and every layer's II;
* dataflow (io_parallel with a Resource layer): the same path, plus 0-1 cycle per ping-pong
  hand-over; the II is the slowest layer's;
* stream (io_stream): each layer starts when the first elements of its inputs arrive and needs
  `startup` elements (the FIFO-depth pass's model) before it emits; the last output element leaves
  after max(its own busy time, the last input element + its depth). The II is the busiest layer.
"""

from __future__ import annotations

import math

from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.primitives import ZERO, Range
from hls4ml.model.passes.fifo_depths import startup

VIVADO_PROCESS_CONTROL_FF = 150  # Vivado HLS 2020.1 io_stream: FFs of one process's control (fitted: 326 for 2)


def _latest(ranges: list[Range]) -> Range:
    latest = ZERO
    for value in ranges:
        latest = latest.maximum(value)
    return latest


def parallel_totals(
    ctx: RuleContext, models: dict[str, LayerModel], dataflow: bool, top_interval: int
) -> tuple[Range, Range, dict[str, tuple[float, float]]]:
    """(latency, II, spans) of an io_parallel model; layers without a model count as 0 cycles.

    The point chains the layers' fractional cycles along the path, as the tools schedule a pipelined
    top function (a ReLU after a one-input Dense shares its cycle: latency 0), and rounds the total
    down; a dataflow process hands over on a cycle boundary. `spans`: each layer's (start, finish)
    point, in fractional cycles, for `stage_registers`."""
    ready = dict.fromkeys(ctx.graph.inputs, ZERO)
    handover = Range(0, 1, 0) if dataflow else ZERO
    interval = ZERO if dataflow else Range.exact(top_interval)
    spans = {}
    for layer in ctx.graph.layers.values():
        start = _latest([ready.get(name, ZERO) for name in layer.inputs])
        model = models.get(layer.name)
        finish = start + (model.latency + handover if model else ZERO)
        if model and dataflow:
            finish = finish.at(start.value + max(1, math.ceil(model.latency.value - 1e-9)))
        if model:
            spans[layer.name] = (start.value, finish.value)
        interval = interval.maximum(model.interval) if model else interval
        for name in layer.outputs:
            ready[name] = finish
    latency = _latest([ready.get(name, ZERO) for name in ctx.graph.outputs])
    return latency.at(math.floor(latency.value + 1e-9)), interval, spans


def stream_totals(ctx: RuleContext, models: dict[str, LayerModel]) -> tuple[Range, Range]:
    """(latency, II) of an io_stream model: from the first input element to the last output element.

    The point: every process on the longest path adds its whole cycles (a one-element process its
    latency, at least one; a loop over elements its depth and a cycle of entry), and the busiest
    loop adds its elements (Vitis/Vivado io_stream reports: Dense + ReLU 2 cycles, a 32 x 32
    depthwise convolution 1,028)."""
    graph = ctx.graph
    first = dict.fromkeys(graph.inputs, ZERO)
    last = {name: Range.exact(ctx.elements(name) - 1) for name in graph.inputs}
    path = dict.fromkeys(graph.inputs, 0.0)
    interval, busiest = ZERO, 0
    for layer in graph.layers.values():
        if not layer.inputs:
            continue
        model = models.get(layer.name)
        start = _latest([first.get(name, ZERO) for name in layer.inputs])
        arrived = _latest([last.get(name, ZERO) for name in layer.inputs])
        along = max(path.get(name, 0.0) for name in layer.inputs)
        if model is None:
            begin, end = start, arrived
        else:
            elements = max(ctx.elements(layer.inputs[0]), 1)
            per_element = model.interval.scale(1 / elements)
            begin = start + per_element.scale(startup(graph, layer)) + model.depth
            end = (start + model.latency).maximum(arrived + model.depth + Range.exact(1))
            interval = interval.maximum(model.interval)
            along += process_cycles(model, elements)
            busiest = max(busiest, round(per_element.value * elements) if elements > 1 else 0)
        for name in layer.outputs:
            first[name], last[name], path[name] = begin, end, along
    latency = _latest([last.get(name, ZERO) for name in graph.outputs]) + Range.exact(1)
    point = max(path.get(name, 0.0) for name in graph.outputs) + max(busiest - 1, 0)
    return latency.at(point), interval


def process_cycles(model: LayerModel, elements: int) -> int:
    """Whole cycles one io_stream process adds to the path: a one-element process its latency (at
    least one), a loop over elements its depth and a cycle of loop entry."""
    if elements <= 1:
        return max(1, math.ceil(model.latency.value - 1e-9))
    return max(1, math.ceil(model.depth.value - 1e-9)) + 1


def stage_registers(ctx: RuleContext, models: dict[str, LayerModel], spans: dict[str, tuple[float, float]]) -> None:
    """Set each layer's register point from the cycle boundaries the schedule puts in it.

    Calibrated on the reports (docs/estimator.md, "Calibration"): a pipelined io_parallel design
    registers, at each cycle boundary, the values alive there (the layer's output bits, plus what it
    carries past a table read, as ELU carries x); the first cycle of a block RAM read registers inside
    the block (Dense + sigmoid at latency 2: 1,047 FFs = 16 input + 1,024). io_stream (Vitis): each
    one-element process registers its output per cycle (Dense + ReLU: 2,064 = 16 + 2 x 1,024); Vivado
    HLS 2020.1 kept them in the FIFOs (326 FFs for the same model: its processes' control only)."""
    for layer in ctx.graph.layers.values():
        model = models.get(layer.name)
        if model is None:
            continue
        if ctx.io_stream:
            elements = max(ctx.elements(layer.inputs[0]), 1) if layer.inputs else 1
            if elements > 1:
                continue  # loops over elements keep their rule's registers (line buffers, windows)
            boundaries = 0 if ctx.tool == 'vivado' else process_cycles(model, 1)
            control = VIVADO_PROCESS_CONTROL_FF if ctx.tool == 'vivado' else 0
        elif layer.name in spans:
            start, finish = spans[layer.name]
            boundaries, control = math.floor(finish + 1e-9) - math.floor(start + 1e-9), 0
            pipeline = model.loop_boundaries
            if pipeline is None:  # a layer longer than one pass (RF > 1, a loop) registers one pass's stages
                pipeline = math.ceil(model.depth.value - 1e-9) + 1
            boundaries = min(boundaries, pipeline)
        else:
            continue
        output_bits = model.stage_bits
        if output_bits is None:
            output_bits = ctx.output_size(layer) * ctx.type_bits(layer, 'result')
        free = min(model.free_boundaries, boundaries)
        point = (boundaries - free) * output_bits + free * model.carried_bits
        model.cost.register_bits = model.cost.register_bits.at(point + control)
