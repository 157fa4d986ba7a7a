"""Rule of the mixture of Dense experts with conditional execution (`nnet_moe.h`, docs/moe.md).

Per token: the Router's k argmax passes over the E logits and its gates (exp-table reads, a sum, one
reciprocal read, k products); then k banks of ceil(n_in * n_out / RF) general multipliers, one per
routed slot, whose weights are selected from the E experts' sets (the weights change per token, so no
multiplier has a constant coefficient), folded by the reuse factor like Dense; then k * n_out gate
products summed. An always-computed mixture would need E banks: the note states the saving. The E
weight sets are one ROM of E * RF words of block_factor weights (k reads per cycle) under Resource,
or E constants per weight behind an E:1 multiplexer under Latency.
"""

from __future__ import annotations

import math

from hls4ml.estimate.context import LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.kinds_products import mux_luts
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.primitives import Cost, Memory, Multiplier, Range, index_bits, tree_levels, width_of
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.experts import logits_type, moe_tables


def _routing(cost: Cost, layer: Layer, ctx: RuleContext) -> Range:
    """The Router of one token (nnet_router.h: router_select, router_gate_values); returns its delay."""
    attributes = layer.attributes
    experts, k, logit_bits = attributes['n_experts'], attributes['k'], ctx.input_bits(layer, 1)
    cost.logic_bits += k * (experts - 1) * (2 * logit_bits + index_bits(experts) + 1) + k * experts
    cost.logic_bits += k * logit_bits * mux_luts(experts)  # the chosen logits
    exp_reads = k if attributes['renormalize'] else k + experts
    for prefix, spec in moe_tables(layer, logits_type(ctx.graph, layer)).items():
        reads = exp_reads if prefix == 'exp_' else 1
        cost.memories.append(Memory('rom', spec.size, width_of(spec.table_type), reads, label=f'{prefix}table'))
    summed = k if attributes['renormalize'] else experts
    cost.adder_bits += exp_reads * logit_bits + summed * ctx.type_bits(layer, 'gate_accum')
    gate_products = [Multiplier(k, ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'inv_table'))]
    cost.add_multipliers(gate_products)
    selection = ctx.compare_ns(logit_bits, tree_levels(experts)).scale(k)
    return (
        selection + ctx.add_ns(ctx.type_bits(layer, 'gate_accum'), tree_levels(summed)) + ctx.multiply_ns(gate_products)
    )


def _expert_banks(cost: Cost, layer: Layer, ctx: RuleContext) -> tuple[Range, int]:
    """k banks of block_factor multipliers over the selected weights; returns the delay and the block."""
    attributes = layer.attributes
    n_in, n_out, experts, k = attributes['n_in'], attributes['n_out'], attributes['n_experts'], attributes['k']
    reuse = int(attributes.get('reuse_factor', 1))
    block = math.ceil(n_in * n_out / reuse)
    data_bits, weight_bits = ctx.input_bits(layer), ctx.type_bits(layer, 'weight')
    accum_bits = ctx.type_bits(layer, 'accum')
    banks = [Multiplier(k * block, data_bits, weight_bits)]
    cost.add_multipliers(banks)
    cost.adder_bits += k * block * accum_bits
    if attributes.get('strategy', 'latency') == 'resource':
        cost.memories.append(Memory('rom', experts * reuse, block * weight_bits, k, label='expert weights'))
        cost.logic_bits += (
            k * block * (data_bits * mux_luts(min(reuse, n_in)) + accum_bits * mux_luts(min(reuse, n_out)))
        )
    else:  # each multiplier's weight: one of E constants (and of RF under folding) behind a multiplexer
        cost.logic_bits += k * block * weight_bits * mux_luts(experts * reuse)
    cost.logic_bits += k * n_out * ctx.type_bits(layer, 'bias') * mux_luts(experts)
    chain = ctx.multiply_ns(banks) + ctx.add_ns(accum_bits, tree_levels(n_in + 1))
    return chain, block


@estimator_rule(Kind.MOE)
def moe(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Tokens in sequence (io_parallel: the row loop; io_stream: one token per element), each routed,
    its k experts computed at II = reuse_factor, their gated outputs summed."""
    attributes = layer.attributes
    n_out, experts, k = attributes['n_out'], attributes['n_experts'], attributes['k']
    reuse, rows = int(attributes.get('reuse_factor', 1)), max(ctx.input_size(layer, 1) // experts, 1)
    cost = Cost(register_bits=Range.exact(n_out * ctx.type_bits(layer, 'result')))
    route = _routing(cost, layer, ctx)
    expert_chain, block = _expert_banks(cost, layer, ctx)
    combine = [Multiplier(k * n_out, ctx.type_bits(layer, 'gate'), ctx.type_bits(layer, 'accum'))]
    cost.add_multipliers(combine)
    cost.adder_bits += k * n_out * ctx.type_bits(layer, 'result')
    result_add = ctx.add_ns(ctx.type_bits(layer, 'result'), k)
    tables = in_block_ram(max((memory.bits for memory in cost.memories), default=0))
    depth = ctx.cycles(route + expert_chain + ctx.multiply_ns(combine) + result_add, ctx.read_cycles(tables).scale(2))
    notes = [
        f'{k} of {experts} experts computed: {k * block} expert multipliers instead of {experts * block} '
        f'({k} banks of {block} shared by the {experts} weight sets)'
    ]
    if ctx.io_stream:
        latency, interval = stream_schedule(depth, rows, reuse)
        return LayerModel(cost, latency, interval, depth, notes, coarse=True)
    latency, interval = pipelined(depth, reuse)
    return LayerModel(cost, latency.scale(rows), interval.scale(rows), depth, notes, coarse=True)
