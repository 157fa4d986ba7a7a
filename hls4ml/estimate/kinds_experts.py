"""Rule of the mixture of Dense or FFN experts with conditional execution (`nnet_moe.h`, docs/moe.md).

Per token: the Router's k argmax passes over the E logits and its gates (exp-table reads, a sum, one
reciprocal read, k products); then k banks of ceil(n_in * n_out / RF) general multipliers, one per
routed slot, whose weights are selected from the E experts' sets (the weights change per token, so no
multiplier has a constant coefficient), folded by the reuse factor like Dense; then the k * n_out
gate products summed, folded by the reuse factor too. An always-computed mixture would need E banks:
the note states the saving. The E weight sets are one ROM of E * RF words of block_factor weights
(k reads per cycle) under Resource, or E constants per weight behind an E:1 multiplexer under Latency.
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
from hls4ml.model.kinds.experts import logits_type, moe_matrices, moe_tables


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


def _expert_bank(
    cost: Cost, layer: Layer, ctx: RuleContext, shape: tuple[int, int], bits: tuple[int, int, int, int]
) -> tuple[Range, int]:
    """k banks of block_factor multipliers over one selected weight matrix (rows x cols), `bits` the
    data, weight, bias and accumulator widths; returns the delay and the block."""
    attributes = layer.attributes
    (rows, cols), (data_bits, weight_bits, bias_bits, accum_bits) = shape, bits
    experts, k, reuse = attributes['n_experts'], attributes['k'], int(attributes.get('reuse_factor', 1))
    block = math.ceil(rows * cols / reuse)
    bank = [Multiplier(k * block, data_bits, weight_bits)]
    cost.add_multipliers(bank)
    cost.adder_bits += k * block * accum_bits
    if attributes.get('strategy', 'latency') == 'resource':
        cost.memories.append(Memory('rom', experts * reuse, block * weight_bits, k, label='expert weights'))
        lanes = data_bits * mux_luts(min(reuse, rows)) + accum_bits * mux_luts(min(reuse, cols))
        cost.logic_bits += k * block * lanes
    else:  # each multiplier's weight: one of E constants (and of RF under folding) behind a multiplexer
        cost.logic_bits += k * block * weight_bits * mux_luts(experts * reuse)
    cost.logic_bits += k * cols * bias_bits * mux_luts(experts)
    return ctx.multiply_ns(bank) + ctx.add_ns(accum_bits, tree_levels(rows + 1)), block


def _expert_banks(cost: Cost, layer: Layer, ctx: RuleContext) -> tuple[Range, int]:
    """The routed experts' products: one bank per slot (linear experts) or two with the ReLU between
    (FFN experts); returns the delay and the multipliers per slot."""
    bits = ctx.input_bits(layer), ctx.type_bits(layer, 'weight'), ctx.type_bits(layer, 'bias')
    accum = ctx.type_bits(layer, 'accum')
    shapes = moe_matrices(layer)
    if len(shapes) == 1:
        return _expert_bank(cost, layer, ctx, shapes[0], (*bits, accum))
    hidden = ctx.type_bits(layer, 'hidden')
    first, first_block = _expert_bank(cost, layer, ctx, shapes[0], (*bits, hidden))
    second_bits = (hidden, ctx.type_bits(layer, 'weight2'), ctx.type_bits(layer, 'bias2'), accum)
    second, second_block = _expert_bank(cost, layer, ctx, shapes[1], second_bits)
    cost.logic_bits += layer.attributes['k'] * shapes[0][1] * hidden  # the ReLU: a sign test and a zeroing select
    return first + ctx.compare_ns(hidden) + second, first_block + second_block


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
    combine = [Multiplier(math.ceil(k * n_out / reuse), ctx.type_bits(layer, 'gate'), ctx.type_bits(layer, 'accum'))]
    cost.add_multipliers(combine)  # moe_combine: folded by RF as the experts are
    cost.adder_bits += combine[0].count * ctx.type_bits(layer, 'result')
    result_add = ctx.add_ns(ctx.type_bits(layer, 'result'), k)
    tables = in_block_ram(max((memory.bits for memory in cost.memories), default=0))
    reads = ctx.read_cycles(tables).scale(2) + Range.exact(reuse - 1)  # the gate products' RF steps
    depth = ctx.cycles(route + expert_chain + ctx.multiply_ns(combine) + result_add, reads)
    notes = [
        f'{k} of {experts} experts computed: {k * block} expert multipliers instead of {experts * block} '
        f'({k} banks of {block} per expert, shared by the {experts} weight sets)'
    ]
    if ctx.io_stream:
        latency, interval = stream_schedule(depth, rows, reuse)
        return LayerModel(cost, latency, interval, depth, notes, coarse=True)
    latency, interval = pipelined(depth, reuse)
    return LayerModel(cost, latency.scale(rows), interval.scale(rows), depth, notes, coarse=True)
