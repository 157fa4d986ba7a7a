"""The rule of every layer kind, in one table, and the rows they give on one target.

How to add a kind: write `rule(layer, ctx) -> LayerModel` next to its relatives (`kinds_*.py`,
following the kernel's loops) under `@estimator_rule(Kind.X)` (`rules.py`; test/unit/test_kind_records.py
fails for a kind without one), and add a hand-computed test in test/unit/estimate/. A layer whose rule
cannot read it gets a 'not modelled' row, never an error (docs/adding-a-layer.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from hls4ml.backends.devices import Family
from hls4ml.estimate import kinds_attention as attention
from hls4ml.estimate import kinds_experts as experts
from hls4ml.estimate import kinds_gather as gather
from hls4ml.estimate import kinds_maps as maps
from hls4ml.estimate import kinds_other as other
from hls4ml.estimate import kinds_products as products
from hls4ml.estimate import kinds_quantizer as quantizer
from hls4ml.estimate import kinds_recurrent as recurrent
from hls4ml.estimate import kinds_resom_maps as resom_maps
from hls4ml.estimate import kinds_routers as routers
from hls4ml.estimate import kinds_selection as selection
from hls4ml.estimate import kinds_sequence as sequence
from hls4ml.estimate.context import LayerModel, RuleContext
from hls4ml.estimate.mapping import bit_operations, map_cost
from hls4ml.estimate.primitives import ZERO, Cost, Memory, Range
from hls4ml.estimate.result import LayerEstimate
from hls4ml.estimate.rules import REGISTERED, Rule
from hls4ml.model.ir import Layer
from hls4ml.model.passes.fifo_depths import stream_pack

# every module with @estimator_rule functions; importing them fills the table
RULE_MODULES = (
    attention,
    experts,
    gather,
    maps,
    other,
    products,
    quantizer,
    recurrent,
    resom_maps,
    routers,
    selection,
    sequence,
)
INTEL_ADDER_ALUTS = 1.0  # oneAPI: ALUTs per adder bit beyond the LUT count (fitted: pooling adders ~2 ALUTs/bit)
INTEL_REGISTER_FACTOR = 1.5  # oneAPI: REGs per register bit of the AMD model (fitted, see docs/estimator.md)
RULES: Mapping[str, Rule] = MappingProxyType(REGISTERED)  # every kind but the ports (a port is not a circuit)


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
        neutral = map_cost(cost, self.family, self.vendor)
        if self.vendor == 'amd':
            columns = {
                'DSP': neutral['DSP'],
                'LUT': neutral['LUT'],
                'FF': neutral['FF'],
                'BRAM_18K': neutral['BRAM'],
                'URAM': ZERO,
            }
        elif self.vendor == 'intel':  # the oneAPI compiler adds control logic and registers freely
            adders = Range(0, 2 * cost.adder_bits, INTEL_ADDER_ALUTS * cost.adder_bits)
            columns = {
                'ALUT': neutral['LUT'].scale(1.0, 1.5, 1.0) + adders,
                'REG': neutral['FF'].scale(1.0, 2.0, INTEL_REGISTER_FACTOR),
                'RAM': neutral['BRAM'],
                'DSP': neutral['DSP'],
            }
        else:
            columns = {}
        if self.area:
            columns['MUL'] = Range.exact(cost.multiplier_count)
            columns['AREA'] = bit_operations(cost)
        return columns


def layer_model(layer: Layer, ctx: RuleContext) -> tuple[LayerModel | None, str]:
    """The rule's model of one layer, or None and why (no rule, or a rule that cannot read the layer)."""
    rule = RULES.get(layer.kind)
    if rule is None:
        return None, f'no estimator rule for kind {layer.kind!r}'
    try:
        return rule(layer, ctx), ''
    except (KeyError, ValueError, TypeError, AttributeError, IndexError) as error:
        return None, f'the {layer.kind} rule could not read this layer ({error!r})'


def layer_row(layer: Layer, model: LayerModel | None, why: str, target: Target) -> LayerEstimate:
    """One layer's row; a layer without a model is not modelled (the reason in its notes)."""
    if model is None:
        return _not_modelled(layer, target, why)
    return LayerEstimate(
        layer.name,
        layer.kind,
        model.latency.rounded(),
        model.interval.rounded(),
        target.resources(model.cost),
        coarse=model.coarse or target.vendor != 'amd',
        notes=model.notes,
    )


def _not_modelled(layer: Layer, target: Target, why: str) -> LayerEstimate:
    zeros = dict.fromkeys(target.columns, ZERO)
    return LayerEstimate(layer.name, layer.kind, None, None, zeros, modelled=False, coarse=True, notes=[why])


def port_row(ctx: RuleContext, target: Target) -> LayerEstimate:
    """The top function's port registers: io_parallel registers the whole input arrays (a pooling
    layer alone, combinational, reports input bits + 2 FFs), io_stream one element of each input; the
    oneAPI kernel registers its outputs too (pooling: 16,689 REGs = 12,960 in + 3,456 out + 273)."""
    graph, bits = ctx.graph, 0
    ports = [*graph.inputs, *(graph.outputs if ctx.vendor == 'intel' else ())]
    for name in ports:
        tensor, per_value = graph.tensors[name], ctx.type_bits(graph.producer(name), 'result')
        bits += per_value * (stream_pack(tensor.shape) if ctx.io_stream else tensor.size)
    cost = Cost(register_bits=Range(0, bits, bits))
    return LayerEstimate('(ports)', 'Ports', ZERO, ZERO, target.resources(cost), notes=['input registers'])


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
