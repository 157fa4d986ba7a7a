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

from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.primitives import ZERO, Range
from hls4ml.model.passes.fifo_depths import startup


def _latest(ranges: list[Range]) -> Range:
    latest = ZERO
    for value in ranges:
        latest = latest.maximum(value)
    return latest


def parallel_totals(
    ctx: RuleContext, models: dict[str, LayerModel], dataflow: bool, top_interval: int
) -> tuple[Range, Range]:
    """(latency, II) of an io_parallel model; layers without a model count as 0 cycles."""
    ready = dict.fromkeys(ctx.graph.inputs, ZERO)
    handover = Range(0, 1) if dataflow else ZERO
    interval = ZERO if dataflow else Range.exact(top_interval)
    for layer in ctx.graph.layers.values():
        start = _latest([ready.get(name, ZERO) for name in layer.inputs])
        model = models.get(layer.name)
        finish = start + (model.latency + handover if model else ZERO)
        interval = interval.maximum(model.interval) if model else interval
        for name in layer.outputs:
            ready[name] = finish
    return _latest([ready.get(name, ZERO) for name in ctx.graph.outputs]), interval


def stream_totals(ctx: RuleContext, models: dict[str, LayerModel]) -> tuple[Range, Range]:
    """(latency, II) of an io_stream model: from the first input element to the last output element."""
    graph = ctx.graph
    first = dict.fromkeys(graph.inputs, ZERO)
    last = {name: Range.exact(ctx.elements(name) - 1) for name in graph.inputs}
    interval = ZERO
    for layer in graph.layers.values():
        if not layer.inputs:
            continue
        model = models.get(layer.name)
        start = _latest([first.get(name, ZERO) for name in layer.inputs])
        arrived = _latest([last.get(name, ZERO) for name in layer.inputs])
        if model is None:
            begin, end = start, arrived
        else:
            per_element = model.interval.scale(1 / max(ctx.elements(layer.inputs[0]), 1))
            begin = start + per_element.scale(startup(graph, layer)) + model.depth
            end = (start + model.latency).maximum(arrived + model.depth + Range.exact(1))
            interval = interval.maximum(model.interval)
        for name in layer.outputs:
            first[name], last[name] = begin, end
    return _latest([last.get(name, ZERO) for name in graph.outputs]) + Range.exact(1), interval
