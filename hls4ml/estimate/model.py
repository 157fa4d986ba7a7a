"""The rule of every layer kind, in one table, and the rows they give on one target.

How to add a kind: write `rule(layer, ctx) -> LayerModel` next to its relatives (`kinds_*.py`,
following the kernel's loops), register it in `RULES` (test/unit/test_kind_records.py fails for a kind
without one), and add a hand-computed test in test/unit/estimate/. A layer whose rule cannot read it
gets a 'not modelled' row, never an error (docs/adding-a-layer.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hls4ml.backends.devices import Family
from hls4ml.estimate import kinds_maps as maps
from hls4ml.estimate import kinds_other as other
from hls4ml.estimate import kinds_products as products
from hls4ml.estimate import kinds_quantizer as quantizer
from hls4ml.estimate import kinds_selection as selection
from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.mapping import bit_operations, map_cost
from hls4ml.estimate.primitives import ZERO, Cost, Memory, Range
from hls4ml.estimate.result import LayerEstimate
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.passes.fifo_depths import stream_pack

Rule = Callable[[Layer, RuleContext], LayerModel]

RULES: dict[str, Rule] = {  # every kind but the ports (a port is not a circuit)
    # matrix products
    Kind.DENSE: products.dense,
    Kind.CONV1D: products.convolution,
    Kind.CONV2D: products.convolution,
    Kind.DEPTHWISE_CONV1D: products.convolution,
    Kind.DEPTHWISE_CONV2D: products.convolution,
    Kind.DOT: products.dot,
    # element-wise arithmetic
    Kind.BATCH_NORMALIZATION: products.batchnorm,
    Kind.MERGE: products.merge,
    Kind.FIXED_POINT_QUANTIZER: quantizer.quantizer,
    # activations
    Kind.ACTIVATION: other.activation,
    Kind.UNARY_LUT: other.activation,
    Kind.PARAMETRIZED_ACTIVATION: other.activation,
    Kind.PRELU: other.activation,
    Kind.HARD_ACTIVATION: other.activation,
    Kind.SOFTMAX: other.softmax,
    # pooling
    Kind.POOLING1D: other.pooling,
    Kind.POOLING2D: other.pooling,
    Kind.GLOBAL_POOLING1D: other.pooling,
    Kind.GLOBAL_POOLING2D: other.pooling,
    # selection and maps
    Kind.SOM: other.som,
    Kind.RESOM: maps.resom,
    Kind.TOPK: other.topk,
    Kind.SOFT_TOPK: selection.soft_topk,
    Kind.ROUTER: selection.router,
    Kind.EXPERT_CHOICE_ROUTER: selection.expert_choice,
    # moving values
    **dict.fromkeys(
        (
            Kind.RESHAPE,
            Kind.TRANSPOSE,
            Kind.ZERO_PADDING1D,
            Kind.ZERO_PADDING2D,
            Kind.CROPPING1D,
            Kind.CROPPING2D,
            Kind.RESIZE,
            Kind.RESIZE2D,
            Kind.CONCATENATE,
            Kind.CLONE,
        ),
        other.move,
    ),
}


@dataclass(frozen=True)
class Target:
    """How neutral resources become a report's columns: AMD (Vitis, Vivado, Catapult on a Xilinx part),
    Intel (oneAPI), or an ASIC library (Catapult: multipliers and an area proxy only)."""

    vendor: str  # 'amd', 'intel' or 'asic'
    family: Family
    area: bool = False  # add Catapult's MUL and AREA columns

    @property
    def columns(self) -> tuple[str, ...]:
        base = {
            'amd': ('DSP', 'LUT', 'FF', 'BRAM_18K', 'URAM'),
            'intel': ('ALUT', 'REG', 'RAM', 'DSP'),
            'asic': (),
        }[self.vendor]
        return (*base, 'MUL', 'AREA') if self.area else base

    def resources(self, cost: Cost) -> dict[str, Range]:
        neutral = map_cost(cost, self.family)
        if self.vendor == 'amd':
            columns = {
                'DSP': neutral['DSP'],
                'LUT': neutral['LUT'],
                'FF': neutral['FF'],
                'BRAM_18K': neutral['BRAM'],
                'URAM': ZERO,
            }
        elif self.vendor == 'intel':  # the oneAPI compiler adds control logic and registers freely
            columns = {
                'ALUT': neutral['LUT'].scale(1.0, 1.5),
                'REG': neutral['FF'].scale(1.0, 2.0),
                'RAM': neutral['BRAM'],
                'DSP': neutral['DSP'],
            }
        else:
            columns = {}
        if self.area:
            columns['MUL'] = Range.exact(cost.multiplier_count)
            columns['AREA'] = bit_operations(cost)
        return columns


def layer_row(layer: Layer, ctx: RuleContext, target: Target) -> tuple[LayerEstimate, LayerModel | None]:
    """One layer's row; a kind without a rule, or a rule that cannot read the layer, is not modelled."""
    rule = RULES.get(layer.kind)
    if rule is None:
        return _not_modelled(layer, target, f'no estimator rule for kind {layer.kind!r}'), None
    try:
        model = rule(layer, ctx)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as error:
        return _not_modelled(layer, target, f'the {layer.kind} rule could not read this layer ({error!r})'), None
    row = LayerEstimate(
        layer.name,
        layer.kind,
        model.latency.rounded(),
        model.interval.rounded(),
        target.resources(model.cost),
        coarse=model.coarse or target.vendor != 'amd',
        notes=model.notes,
    )
    return row, model


def _not_modelled(layer: Layer, target: Target, why: str) -> LayerEstimate:
    zeros = dict.fromkeys(target.columns, ZERO)
    return LayerEstimate(layer.name, layer.kind, None, None, zeros, modelled=False, coarse=True, notes=[why])


def fifo_rows(ctx: RuleContext, target: Target) -> list[LayerEstimate]:
    """io_stream: one row per FIFO between two layers (model inputs and outputs are ports)."""
    graph, rows = ctx.graph, []
    for name in [tensor for layer in graph.layers.values() for tensor in layer.outputs]:
        tensor = graph.tensors[name]
        if not tensor.fifo_depth or name in graph.inputs or name in graph.outputs:
            continue
        bits = stream_pack(tensor.shape) * ctx.type_bits(graph.producer(name), 'result')
        cost = Cost(memories=[Memory('fifo', tensor.fifo_depth, bits, label=name)])
        note = f'depth {tensor.fifo_depth} x {bits} bits'
        rows.append(LayerEstimate(f'{name} fifo', 'FIFO', ZERO, ZERO, target.resources(cost), notes=[note]))
    return rows


def buffer_row(ctx: RuleContext, target: Target) -> LayerEstimate:
    """io_parallel dataflow: every array between two layers is a ping-pong pair of registers."""
    graph, bits = ctx.graph, 0
    for name, tensor in graph.tensors.items():
        if name not in graph.inputs and name not in graph.outputs:
            bits += 2 * tensor.size * ctx.type_bits(graph.producer(name), 'result')
    cost = Cost(register_bits=Range(bits / 2, bits))
    note = 'ping-pong buffers between dataflow layers (complete partitioning: registers)'
    return LayerEstimate('(buffers)', 'Dataflow', ZERO, ZERO, target.resources(cost), coarse=True, notes=[note])
