"""Rules of the sequence kinds (`hls4ml/model/kinds/sequence.py`), following their kernels
(nnet_layernorm.h, nnet_embedding.h); formulas and reasons in docs/estimator.md and docs/sequence.md."""

from __future__ import annotations

from hls4ml.estimate.context import LayerModel, RuleContext, stream_schedule
from hls4ml.estimate.kinds_products import lanes, schedule
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.primitives import Cost, Memory, Multiplier, Range, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind


@estimator_rule(Kind.LAYER_NORMALIZATION)
def layernorm(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Per value: a sum term, n*x - S (a shift-and-add by the constant n), a square and its sum, the
    division's norm-width compare steps (each a norm x root product), the scale product and the bias
    add; per row: the root's root-width compare steps (each a root x root product). The root and the
    division are bit-serial chains: the depth adds one product and one compare per bit."""
    count, n = lanes(layer, ctx), layer.attributes['n_slice']
    rows = max(count // n, 1)
    bits = {var: ctx.type_bits(layer, var) for var in ('sum', 'diff', 'variance', 'root', 'norm', 'scale', 'result')}
    cost = Cost(register_bits=Range.exact(count * bits['result']))
    division_steps, root_steps = bits['norm'] - 1, bits['root']
    cost.add_multipliers(
        [
            Multiplier(count, bits['diff'], bits['diff']),
            Multiplier(count * division_steps, bits['norm'], bits['root']),
            Multiplier(rows * root_steps, bits['root'], bits['root']),
            Multiplier(count, bits['norm'], bits['scale']),
        ]
    )
    cost.adder_bits += count * (bits['sum'] + 2 * bits['diff'] + bits['variance'] + bits['result'])
    cost.logic_bits += (count * division_steps + rows * root_steps) * 2 * bits['variance']
    square = ctx.multiply_ns([Multiplier(1, bits['diff'], bits['diff'])])
    root_step = ctx.multiply_ns([Multiplier(1, bits['root'], bits['root'])]) + ctx.compare_ns(bits['variance'])
    divide_step = ctx.multiply_ns([Multiplier(1, bits['norm'], bits['root'])]) + ctx.compare_ns(bits['variance'])
    chain = ctx.add_ns(bits['sum'], tree_levels(n)) + ctx.add_ns(bits['diff']) + square
    chain = chain + ctx.add_ns(bits['variance'], tree_levels(n)) + root_step.scale(root_steps)
    chain = chain + divide_step.scale(division_steps) + ctx.multiply_ns(cost.multipliers[-1:])
    depth = ctx.cycles(chain + ctx.add_ns(bits['result']))
    latency, interval = schedule(layer, ctx, depth, int(layer.attributes.get('reuse_factor', 1)))
    return LayerModel(cost, latency, interval, depth, ['bit-serial root and division: one product per bit'])


@estimator_rule(Kind.EMBEDDING)
def embedding(layer: Layer, ctx: RuleContext) -> LayerModel:
    """The table is one ROM of n_vocab words of n_dim entries, read once per index in the same cycle
    (io_parallel: every index; io_stream: one index per cycle); per index a range check (two compares
    of the index width) and a multiplexer to zero per output value."""
    attributes = layer.attributes
    indices = ctx.input_size(layer) if not ctx.io_stream else 1
    index_bits, result = ctx.input_bits(layer), ctx.type_bits(layer, 'result')
    row_bits = attributes['n_dim'] * ctx.type_bits(layer, 'embeddings')
    cost = Cost(register_bits=Range.exact(indices * attributes['n_dim'] * result))
    cost.memories.append(Memory('rom', attributes['n_vocab'], row_bits, indices, label='embedding table'))
    cost.logic_bits += indices * (2 * index_bits + attributes['n_dim'] * result)
    read = ctx.read_cycles(in_block_ram(attributes['n_vocab'] * row_bits))
    depth = ctx.cycles(ctx.compare_ns(index_bits), read)
    if ctx.io_stream:
        latency, interval = stream_schedule(depth, ctx.input_size(layer))
    else:
        latency, interval = depth, Range.exact(1)
    return LayerModel(cost, latency, interval, depth, ['the table as one ROM read per index'])
