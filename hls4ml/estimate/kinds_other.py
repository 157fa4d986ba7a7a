"""Rules of the layers without weight matrices: activations, softmax, pooling, SOM, top-k, moves.

Each follows its kernel (docs/kernels.md, docs/som.md, docs/topk.md); formulas and reasons are in
docs/estimator.md. A lookup table read by many values in the same cycle is one ROM with that many
reads: the mapping replicates it (two reads per block RAM, one per LUT ROM).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.kinds_products import lanes, mux_luts, per_channel_multipliers, schedule
from hls4ml.estimate.mapping import BLOCK_MEMORY_BITS, LUT_MEMORY_BITS
from hls4ml.estimate.primitives import (
    ZERO,
    Cost,
    Memory,
    Multiplier,
    Range,
    constant_multipliers,
    raw_values,
    tree_levels,
    width_of,
)
from hls4ml.model.ir import Layer
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.layers import TABLE_ACTIVATIONS
from hls4ml.model.passes.fifo_depths import stream_pack
from hls4ml.model.types import FixedPrecisionType


def _table_memories(layer: Layer, ctx: RuleContext, reads: dict[str, int]) -> tuple[list[Memory], bool | None]:
    """The layer's lookup tables as ROMs (size and width from the lowering's table choice), and
    whether they sit in block RAM (None: the mapping may choose either)."""
    source = ctx.graph.input_type(layer)
    if not isinstance(source, FixedPrecisionType):
        return [], None
    memories = []
    for prefix, spec in layer_tables(layer, source).items():
        width = width_of(spec.table_type)
        memories.append(Memory('rom', spec.size, width, reads.get(prefix, 1), label=f'{prefix}table'))
    bits = max((memory.bits for memory in memories), default=0)
    return memories, True if bits >= BLOCK_MEMORY_BITS else False if bits <= LUT_MEMORY_BITS else None


def activation(layer: Layer, ctx: RuleContext) -> LayerModel:
    """relu-like: a sign test and a multiplexer per value; table functions: an index (a subtraction
    and a shift), two range checks and a ROM read; leaky/elu/selu/hard_sigmoid: constant products."""
    count, data_bits = lanes(layer, ctx), ctx.input_bits(layer)
    result = ctx.type_bits(layer, 'result')
    name = layer.attributes.get('activation', layer.kind.lower())
    cost = Cost(register_bits=Range.exact(count * result), logic_bits=count * result)
    chain = ctx.compare_ns(data_bits)
    read = ZERO
    if name in TABLE_ACTIVATIONS:
        rf = 1 if ctx.io_stream else int(layer.attributes.get('reuse_factor', 1))
        memories, in_block_ram = _table_memories(layer, ctx, {'': math.ceil(count / rf)})
        cost.memories += memories
        cost.adder_bits += count * data_bits
        cost.logic_bits += 2 * count * data_bits
        read = ctx.read_cycles(in_block_ram)
    factors = _activation_factors(layer, ctx, count)
    cost.add_multipliers(factors)
    if factors:
        cost.adder_bits += count * result if name == 'hard_sigmoid' else 0
        chain = chain + ctx.multiply_ns(cost.multipliers)
    depth = ctx.cycles(chain, read)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth)


def _activation_factors(layer: Layer, ctx: RuleContext, count: int) -> list[Multiplier]:
    """Constant multipliers of the parametrised activations (alpha, slope, the SELU scale)."""
    name, data_bits = layer.attributes.get('activation', layer.kind.lower()), ctx.input_bits(layer)
    param = layer.types.get('param')
    if layer.kind == 'PReLU':
        return per_channel_multipliers(layer, ctx, 'alpha', 'param', count)
    if name in ('leaky_relu', 'elu') and 'activ_param' in layer.attributes:
        bits = data_bits if name == 'leaky_relu' else ctx.type_bits(layer, 'table')
        return constant_multipliers(raw_values(np.array([layer.attributes['activ_param']]), param) * count, bits)
    if name == 'hard_sigmoid':
        return constant_multipliers(raw_values(np.array([layer.attributes['slope']]), param) * count, data_bits)
    if name == 'selu':
        return [Multiplier(count, data_bits, width_of(param))]
    return []


def softmax(layer: Layer, ctx: RuleContext) -> LayerModel:
    """stable: a maximum tree, n subtractions, n exp reads, a sum tree, one reciprocal read per row,
    n products; latency: the same without maximum and subtractions; argmax: a comparator tree."""
    count, data_bits = lanes(layer, ctx), ctx.input_bits(layer)
    n_slice = int(layer.attributes.get('n_slice', 0) or count)
    rows = max(count // n_slice, 1)
    implementation = layer.attributes['implementation']
    cost = Cost(register_bits=Range.exact(count * ctx.type_bits(layer, 'result')))
    cost.logic_bits += (n_slice - 1) * rows * 2 * data_bits if implementation != 'latency' else 0
    chain = ctx.compare_ns(data_bits, tree_levels(n_slice)) if implementation != 'latency' else ZERO
    if implementation == 'argmax':
        cost.logic_bits += count * ctx.type_bits(layer, 'result')
        depth = ctx.cycles(chain)
        latency, interval = schedule(layer, ctx, depth)
        return LayerModel(cost, latency, interval, depth)
    memories, in_block_ram = _table_memories(layer, ctx, {'exp_': count, 'inv_': rows})
    cost.memories += memories
    accum = ctx.type_bits(layer, 'accum')
    exp_bits, inv_bits = ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'inv_table')
    cost.adder_bits += count * data_bits * (implementation == 'stable') + count * accum
    cost.add_multipliers([Multiplier(count, exp_bits, inv_bits)])
    chain = chain + ctx.add_ns(data_bits) + ctx.add_ns(accum, tree_levels(n_slice)) + ctx.multiply_ns(cost.multipliers)
    read = ctx.read_cycles(in_block_ram)
    depth = ctx.cycles(chain, read + read)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth, coarse=True)


def pooling(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Per output value: window - 1 comparators (max) or adders (average, then a constant divider);
    io_stream adds a line buffer of pool_height - 1 rows; global pooling folds every position."""
    attributes = layer.attributes
    is_global = layer.kind.startswith('Global')
    prefix = 'in_' if is_global else 'pool_'
    window = attributes.get(prefix + 'width', 1) * attributes.get(prefix + 'height', 1)
    channels = ctx.graph.tensors[layer.outputs[0]].shape[-1]
    outputs = channels if ctx.io_stream else ctx.output_size(layer)
    data_bits, accum = ctx.input_bits(layer), ctx.type_bits(layer, 'accum')
    average = attributes['pool_op'] == 'average'
    folded = 1 if ctx.io_stream and is_global else window  # a streamed global pool adds one pixel per cycle
    cost = Cost(register_bits=Range.exact(outputs * (accum if average else data_bits)))
    if average:
        cost.adder_bits += outputs * (folded - 1 + int(is_global and ctx.io_stream)) * accum
        if window & (window - 1):  # not a power of two: a constant divider, about a product of the width
            cost.add_multipliers([Multiplier(outputs, accum, accum, max(accum // 3, 2))])
    else:
        cost.logic_bits += 2 * outputs * max(folded - 1, 1) * data_bits
    if ctx.io_stream and not is_global and attributes.get('pool_height', 1) > 1:
        width = (attributes['pool_height'] - 1) * channels * data_bits
        cost.memories.append(Memory('ram', attributes['in_width'], width, label='line buffer'))
    levels = tree_levels(folded)
    chain = ctx.add_ns(accum, levels) if average else ctx.compare_ns(data_bits, levels)
    depth = ctx.cycles(chain + ctx.multiply_ns(cost.multipliers))
    latency, interval = schedule(layer, ctx, depth, int(attributes.get('reuse_factor', 1)))
    return LayerModel(cost, latency, interval, depth, coarse=average)


def som(layer: Layer, ctx: RuleContext) -> LayerModel:
    """n_units x n_in differences and distance terms, n_units sums, and the best-unit scan: a chain
    of n_units - 1 compare-selects the tool may or may not rebalance into a tree (the latency range)."""
    attributes = layer.attributes
    n_in, n_units = attributes['n_in'], attributes['n_units']
    data_bits, code_bits, accum = ctx.input_bits(layer), ctx.type_bits(layer, 'codebook'), ctx.type_bits(layer, 'accum')
    distance, terms = attributes['distance'], n_in * n_units
    diff = max(data_bits, code_bits) + 1
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    if distance == 'cosine':
        codebook = raw_values(layer.weights['codebook'], layer.types.get('codebook'))
        cost.add_multipliers(constant_multipliers(codebook, data_bits))
    else:
        cost.adder_bits += terms * diff
        if distance == 'squared_euclidean':
            cost.add_multipliers([Multiplier(terms, diff, diff)])
        elif distance == 'chebyshev':
            cost.logic_bits += 4 * terms * accum
    cost.adder_bits += terms * accum if distance != 'chebyshev' else 0
    cost.logic_bits += (n_units - 1) * (2 * accum + math.ceil(math.log2(max(n_units, 2))))
    if attributes['output'] == 'label':
        cost.logic_bits += ctx.type_bits(layer, 'label') * mux_luts(n_units)
    if attributes['output'] == 'activities':  # exp(-(d_n - d_bmu) / beta): a table read per unit
        size, bits = int(attributes.get('table_size', 1024)), ctx.type_bits(layer, 'result')
        cost.memories.append(Memory('rom', size, bits, n_units, label='activity table'))
        cost.adder_bits += n_units * accum
    per_unit = ctx.multiply_ns(cost.multipliers) + ctx.add_ns(accum, tree_levels(n_in))
    fastest = ctx.compare_ns(accum, tree_levels(n_units))
    slowest = ctx.compare_ns(accum, max(n_units - 1, 1))
    depth = ctx.cycles(per_unit + Range(fastest.low, slowest.high))
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    latency = ctx.vector_latency(latency)
    return LayerModel(cost, latency, interval, depth, ['best unit: a chain (high) or a tree (low)'], coarse=True)


def topk(layer: Layer, ctx: RuleContext) -> LayerModel:
    """All-pairs ranking: n(n-1)/2 comparators, n rank counters of n-1 one-bit votes, then the
    selection (k one-hot multiplexers of n values, or n rank < k tests)."""
    attributes = layer.attributes
    n, k = attributes['n_in'], attributes['k']
    data_bits, result = ctx.input_bits(layer), ctx.type_bits(layer, 'result')
    rank_bits = max(math.ceil(math.log2(n)), 1)
    pairs = n * (n - 1) // 2
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * result))
    cost.adder_bits += pairs * data_bits * (2 if attributes.get('magnitude') else 1)
    cost.adder_bits += n * (n - 1)  # the counters: a tree of one-bit votes per value
    if attributes['output'] in ('mask', 'masked'):
        cost.logic_bits += n * (rank_bits + (data_bits if attributes['output'] == 'masked' else 1))
    else:
        cost.logic_bits += k * n * rank_bits + k * result * math.ceil(n / 3)
    chain = ctx.compare_ns(data_bits) + ctx.add_ns(rank_bits, tree_levels(n)) + ctx.compare_ns(rank_bits)
    depth = ctx.cycles(chain)
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    latency = ctx.vector_latency(latency)
    return LayerModel(cost, latency, interval, depth, [f'{pairs} comparators (all pairs)'])


def move(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Reshape, transpose, padding, cropping, upsampling, concatenation, clone: wiring in io_parallel;
    in io_stream a loop over elements, with a whole-tensor buffer (transpose) or a row (upsampling 2-D)."""
    if not ctx.io_stream:
        return LayerModel(Cost(), Range(0, 1), Range.exact(1), Range(0, 1), ['wiring'])
    bits = ctx.type_bits(layer, 'result')
    cost = Cost(register_bits=Range.exact(_element_bits(ctx, layer.outputs[0], bits)))
    out_elements = max(ctx.elements(name) for name in layer.outputs)
    in_elements = sum(ctx.elements(name) for name in layer.inputs)
    if layer.kind == 'Transpose':
        size = ctx.input_size(layer)
        cost.memories.append(Memory('ram', size, bits, label='tensor buffer'))
        busy = Range.exact(in_elements + out_elements) + LOOP_OVERHEAD_CYCLES.scale(2)
        return LayerModel(cost, busy, busy, Range(1, 2), ['buffers the whole tensor'])
    if layer.kind == 'Resize2D':
        channels = ctx.graph.tensors[layer.inputs[0]].shape[-1]
        cost.memories.append(Memory('ram', layer.attributes['in_width'], channels * bits, label='row buffer'))
    latency, interval = stream_schedule(Range(1, 2), max(in_elements, out_elements))
    return LayerModel(cost, latency, interval, Range(1, 2))


def _element_bits(ctx: RuleContext, tensor: str, bits: int) -> int:
    return stream_pack(ctx.graph.tensors[tensor].shape) * bits
