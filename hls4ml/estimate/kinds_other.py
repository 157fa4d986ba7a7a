"""Rules of the layers without weight matrices: activations, softmax, pooling, SOM, top-k, moves.

Each follows its kernel (docs/kernels.md, docs/som.md, docs/topk.md); formulas and reasons are in
docs/estimator.md. A lookup table read by many values in the same cycle is one ROM with that many
reads: the mapping replicates it (two reads per block RAM, one per LUT ROM).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate import kinds_maps as maps
from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.kinds_products import Matrix, lanes, matrix_model, mux_luts, per_channel_multipliers, schedule
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.primitives import (
    ZERO,
    Cost,
    Memory,
    Multiplier,
    Range,
    constant_multipliers,
    index_bits,
    raw_values,
    tree_levels,
    width_of,
)
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import (
    BOUNDED_TABLE_ACTIVATIONS,
    GLOBAL_POOLINGS,
    HARD_ACTIVATIONS,
    POOLINGS,
    TABLE_ACTIVATIONS,
    Kind,
)
from hls4ml.model.kinds.pooling import POOL_PADS
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.passes.fifo_depths import stream_pack
from hls4ml.model.reference.som import activity_table
from hls4ml.model.types import FixedPrecisionType

SELECT_LUTS_PER_BIT = 2  # a relu-like sign test and select, per result bit (fitted, see activation)
# Vivado HLS 2020.1 builds `sum / n` of a padded average pooling as a pipelined divider per output: accum
# stages of subtract-and-select and DIVIDER_EXTRA_CYCLES more (fitted: 21 cycles at a 16-bit accumulator,
# 521 LUTs and 778 FFs per output; Vitis 2024.1 and oneAPI fold the per-window counts: no divider).
DIVIDER_EXTRA_CYCLES = 5


def table_memories(layer: Layer, ctx: RuleContext, reads: dict[str, int]) -> tuple[list[Memory], bool | None]:
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
    return memories, in_block_ram(bits)


@estimator_rule(Kind.ACTIVATION, Kind.UNARY_LUT, Kind.PARAMETRIZED_ACTIVATION, Kind.PRELU, Kind.HARD_ACTIVATION)
def activation(layer: Layer, ctx: RuleContext) -> LayerModel:
    """relu-like: a sign test and a multiplexer per value; table functions: an index (a subtraction
    and a shift), two range checks and a ROM read (sigmoid, tanh, softsign clamp at both ends: two
    more checks per value); leaky/elu/selu/hard_sigmoid: constant products; clipped_relu: a second
    comparison; hard_swish: the gate's constant product and x times the gate. A leaky ReLU of slope 1
    is the identity: Vitis removes it (381 LUTs for Dense + LeakyReLU(1) against 2,910 with a PReLU), so
    it costs nothing there; Vivado HLS 2020.1 kept it. oneAPI io_stream multiplies by the parameter of
    a leaky ReLU or ELU as a variable (its task's argument): 64 DSPs for an ELU of 64 values, where
    io_parallel folds the constant (0 DSPs). The sign test and select of a value cost
    SELECT_LUTS_PER_BIT LUTs per result bit (fitted: Dense + PReLU(0) minus Dense alone is 1,900-2,500
    LUTs for 64 x 16 bits in four reports)."""
    count, data_bits = lanes(layer, ctx), ctx.input_bits(layer)
    result = ctx.type_bits(layer, 'result')
    name = layer.attributes.get('activation', layer.kind.lower())
    if name == 'leaky_relu' and float(layer.attributes.get('activ_param', 0)) == 1.0 and ctx.tool == 'vitis':
        latency, interval = schedule(layer, ctx, Range.exact(0))
        model = LayerModel(Cost(), latency, interval, Range.exact(0), ['slope 1: the identity'])
        model.stage_bits = None if ctx.io_stream else 0  # io_stream: still a process copying its element
        return model
    cost = Cost(register_bits=Range.exact(count * result), logic_bits=SELECT_LUTS_PER_BIT * count * result)
    chain = ctx.compare_ns(data_bits)
    read, free, carried = ZERO, 0, 0
    if name in TABLE_ACTIVATIONS or layer.kind == Kind.UNARY_LUT:
        rf = 1 if ctx.io_stream else int(layer.attributes.get('reuse_factor', 1))
        memories, block_ram = table_memories(layer, ctx, {'': math.ceil(count / rf)})
        cost.memories += memories
        cost.adder_bits += count * data_bits
        cost.logic_bits += (4 if name in BOUNDED_TABLE_ACTIVATIONS else 2) * count * data_bits
        read = ctx.read_cycles(block_ram)
        free = 1 if block_ram else 0  # the read's first cycle registers inside the block
        carried = count * data_bits if name in ('elu', 'selu') else 0  # x is kept for the x > 0 side
    if name == 'clipped_relu':  # the second comparison, against the ceiling
        cost.logic_bits += count * data_bits
    factors = _activation_factors(layer, ctx, count)
    cost.add_multipliers(factors)
    if factors:
        cost.adder_bits += count * result if name in HARD_ACTIVATIONS else 0
        chain = chain + ctx.multiply_ns(cost.multipliers)
    depth = ctx.cycles(chain, read)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth, free_boundaries=free, carried_bits=carried)


def _activation_factors(layer: Layer, ctx: RuleContext, count: int) -> list[Multiplier]:
    """Constant multipliers of the parametrised activations (alpha, slope, the SELU scale)."""
    name, data_bits = layer.attributes.get('activation', layer.kind.lower()), ctx.input_bits(layer)
    param = layer.types.get('param')
    if layer.kind == Kind.PRELU:
        return per_channel_multipliers(layer, ctx, 'alpha', 'param', count)
    if name in ('leaky_relu', 'elu') and 'activ_param' in layer.attributes:
        bits = data_bits if name == 'leaky_relu' else ctx.type_bits(layer, 'table')
        if ctx.vendor == 'intel' and ctx.io_stream:  # a task's parameter is a variable there (see activation)
            return [Multiplier(count, bits, width_of(param))]
        return constant_multipliers(raw_values(np.array([layer.attributes['activ_param']]), param) * count, bits)
    if name in HARD_ACTIVATIONS:
        slopes = constant_multipliers(raw_values(np.array([layer.attributes['slope']]), param) * count, data_bits)
        gate_bits = data_bits + width_of(param) + 1  # x * slope + shift at full precision
        return slopes + ([Multiplier(count, data_bits, gate_bits)] if name == 'hard_swish' else [])
    if name == 'selu':
        return [Multiplier(count, data_bits, width_of(param))]
    return []


@estimator_rule(Kind.SOFTMAX)
def softmax(layer: Layer, ctx: RuleContext) -> LayerModel:
    """The rows of `softmax_rows`: the whole vector or rows of n_slice values."""
    count = lanes(layer, ctx)
    n_slice = int(layer.attributes.get('n_slice', 0) or count)
    implementation = layer.attributes['implementation']
    cost = Cost(register_bits=Range.exact(count * ctx.type_bits(layer, 'result')))
    depth = softmax_rows(cost, ctx, layer, count, n_slice, implementation)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth, coarse=implementation != 'argmax')


def softmax_rows(cost: Cost, ctx: RuleContext, layer: Layer, count: int, n_slice: int, implementation: str) -> Range:
    """count values in rows of n_slice (nnet_softmax.h), added to `cost`; returns the depth in cycles.
    stable: a maximum tree, n subtractions, n exp reads, a sum tree, one reciprocal read per row,
    n products; latency: the same without maximum and subtractions; argmax: a comparator tree."""
    data_bits, rows = ctx.input_bits(layer), max(count // n_slice, 1)
    cost.logic_bits += (n_slice - 1) * rows * 2 * data_bits if implementation != 'latency' else 0
    chain = ctx.compare_ns(data_bits, tree_levels(n_slice)) if implementation != 'latency' else ZERO
    if implementation == 'argmax':
        cost.logic_bits += count * ctx.type_bits(layer, 'result')
        return ctx.cycles(chain)
    memories, block_ram = table_memories(layer, ctx, {'exp_': count, 'inv_': rows})
    cost.memories += memories
    accum = ctx.type_bits(layer, 'accum')
    exp_bits, inv_bits = ctx.type_bits(layer, 'exp_table'), ctx.type_bits(layer, 'inv_table')
    cost.adder_bits += count * data_bits * (implementation == 'stable') + count * accum
    products = [Multiplier(count, exp_bits, inv_bits)]
    cost.add_multipliers(products)
    chain = chain + ctx.add_ns(data_bits) + ctx.add_ns(accum, tree_levels(n_slice)) + ctx.multiply_ns(products)
    read = ctx.read_cycles(block_ram)
    return ctx.cycles(chain, read + read)


@estimator_rule(*POOLINGS, *GLOBAL_POOLINGS)
def pooling(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Per output value: window - 1 comparators (max) or adders (average, then a constant divider);
    io_stream adds a line buffer of pool_height - 1 rows; global pooling folds every position. A padded
    average pooling on Vivado HLS 2020.1 divides by each window's count in a divider (DIVIDER_EXTRA_CYCLES)."""
    attributes = layer.attributes
    is_global = layer.kind in GLOBAL_POOLINGS
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
    divider = average and not ctx.io_stream and ctx.tool == 'vivado' and _padded(attributes)
    stages = Range.exact(accum + DIVIDER_EXTRA_CYCLES) if divider else ZERO
    if divider:
        cost.adder_bits += outputs * accum * (accum + 1)  # accum stages of an (accum + 1)-bit subtraction
        cost.logic_bits += outputs * accum * (accum + 1)  # and the selection of the partial remainder
    depth = ctx.cycles(chain + ctx.multiply_ns(cost.multipliers), stages)
    latency, interval = schedule(layer, ctx, depth, int(attributes.get('reuse_factor', 1)))
    model = LayerModel(cost, latency, interval, depth, coarse=average)
    if divider:
        model.stage_bits = outputs * 3 * accum  # remainder, quotient and dividend of every output's divider
        model.notes.append("Vivado HLS 2020.1: a pipelined divider per output (the padded windows' counts)")
    return model


def _padded(attributes: dict) -> bool:
    """True when some pooling window covers padding, so that the kernel divides by the window's own count
    of valid inputs (`sum / n`, n computed per window)."""
    return any(attributes.get(name, 0) for name in POOL_PADS)


@estimator_rule(Kind.SOM)
def som(layer: Layer, ctx: RuleContext) -> LayerModel:
    """The distances (kinds_maps.distance_stage; Resource: folded_distance_stage, a loop before the rest,
    not pipelined as a whole), then, except for output 'distances', the best-unit
    scan and the output: index; coordinates (a division of the index by the column count, or a read
    of the hexagonal coordinate table); one-hot (n index tests); label and quantized (multiplexers of
    the best unit's entry); activities (kinds_maps.activity_stage: roots, slots, exp-table reads)."""
    attributes = layer.attributes
    shape = maps.MapShape(
        attributes['n_in'],
        attributes['n_units'],
        ctx.input_bits(layer),
        ctx.type_bits(layer, 'codebook'),
        ctx.type_bits(layer, 'accum'),
        attributes['distance'],
    )
    if attributes.get('implementation') == 'dense':
        return som_dense(layer, ctx, shape)
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    reuse_factor, folded = int(attributes.get('reuse_factor', 1)), attributes.get('strategy') == 'resource'
    chain, fold = ZERO, ZERO
    if folded:  # Resource: the distances a loop of RF steps, the rest once after it
        fold = maps.folded_distance_stage(cost, ctx, shape, reuse_factor, 'codebook')
    else:
        chain = maps.distance_stage(
            cost, ctx, shape, raw_values(layer.weights['codebook'], layer.types.get('codebook'))
        )
    read = ZERO
    if attributes['output'] != 'distances':
        chain = chain + maps.scan_stage(cost, ctx, shape.n_units, shape.accum_bits)
    if attributes['output'] == 'activities':
        table = activity_table(attributes, layer.types['accum'], layer.types['table'])
        if folded and table.root_type is not None:
            fold = fold + maps.folded_root_stage(ctx, cost, shape, table.root_type.width, reuse_factor)
        chain = chain + maps.activity_stage(cost, ctx, shape, table, ctx.type_bits(layer, 'table'), folded)
        read = maps.table_read(ctx, table, ctx.type_bits(layer, 'table'))
    else:
        read = _som_selection(cost, ctx, layer, shape)
    depth = ctx.cycles(chain, read)
    latency, interval = (depth + fold, depth + fold) if folded else pipelined(depth, reuse_factor)
    notes = ['best unit: a chain (high) or a tree (low)']
    if folded:
        notes.append(f'Resource: distances folded by {reuse_factor}')
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)


def _som_selection(cost: Cost, ctx: RuleContext, layer: Layer, shape: maps.MapShape) -> Range:
    """What the outputs without the exp table add after the best unit; returns their read cycles."""
    output, units, index = layer.attributes['output'], shape.n_units, index_bits(shape.n_units)
    if output == 'coordinates' and layer.attributes.get('topology', 'rectangular') == 'hexagonal':
        result = ctx.type_bits(layer, 'result')
        cost.memories.append(Memory('rom', 2 * units, result, 2, label='unit coordinates'))
        return ctx.read_cycles(in_block_ram(2 * units * result))
    if output == 'coordinates':  # best / n_cols and best % n_cols: small functions of the index
        cost.logic_bits += 2 * index
    elif output == 'one_hot':
        cost.logic_bits += units * index
    elif output == 'label':
        cost.logic_bits += ctx.type_bits(layer, 'label') * mux_luts(units)
    elif output == 'quantized':
        cost.logic_bits += shape.n_in * shape.code_bits * mux_luts(units)
    return ZERO


def som_dense(layer: Layer, ctx: RuleContext, shape: maps.MapShape) -> LayerModel:
    """Implementation 'dense' (docs/som.md): the scores as a Dense layer of the transposed codebook
    (kinds_products.matrix_model, with the layer's strategy and reuse factor), then the best-unit scan
    and the output, as in the distance form, after the scores."""
    attributes = layer.attributes
    weights = raw_values(layer.weights['codebook'].T, layer.types.get('codebook'))
    reuse_factor, strategy = int(attributes.get('reuse_factor', 1)), str(attributes.get('strategy', 'latency'))
    accum = shape.accum_bits
    matrix = Matrix(
        weights, shape.n_in, shape.n_units, shape.data_bits, shape.code_bits, accum, accum, reuse_factor, strategy
    )
    model = matrix_model(matrix, ctx)
    scan = maps.scan_stage(model.cost, ctx, shape.n_units, accum)
    after = ctx.cycles(scan, _som_selection(model.cost, ctx, layer, shape))
    model.cost.register_bits = model.cost.register_bits + Range.exact(
        ctx.output_size(layer) * ctx.type_bits(layer, 'result')
    )
    model.latency, model.depth = ctx.vector_latency(model.latency + after), model.depth + after
    model.notes.append('dense form: Dense scores, then the best unit: a chain (high) or a tree (low)')
    model.coarse = True
    return model


@estimator_rule(Kind.TOPK)
def topk(layer: Layer, ctx: RuleContext) -> LayerModel:
    """All-pairs ranking: n(n-1)/2 comparators, n rank counters of n-1 one-bit votes, then the
    selection (k one-hot multiplexers of n values, or n rank < k tests)."""
    attributes = layer.attributes
    n, k = attributes['n_in'], attributes['k']
    data_bits, result = ctx.input_bits(layer), ctx.type_bits(layer, 'result')
    rank_bits = index_bits(n)
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


@estimator_rule(
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
)
def move(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Reshape, transpose, padding, cropping, upsampling, concatenation, clone: wiring in io_parallel;
    in io_stream a loop over elements, with a whole-tensor buffer (transpose) or a row (upsampling that
    repeats rows)."""
    if not ctx.io_stream:
        return LayerModel(Cost(), Range(0, 1, 0), Range.exact(1), Range(0, 1, 0), ['wiring'], stage_bits=0)
    bits = ctx.type_bits(layer, 'result')
    cost = Cost(register_bits=Range.exact(_element_bits(ctx, layer.outputs[0], bits)))
    out_elements = max(ctx.elements(name) for name in layer.outputs)
    in_elements = sum(ctx.elements(name) for name in layer.inputs)
    if layer.kind == Kind.TRANSPOSE:
        size = ctx.input_size(layer)
        cost.memories.append(Memory('ram', size, bits, label='tensor buffer'))
        busy = Range.exact(in_elements + out_elements) + LOOP_OVERHEAD_CYCLES.scale(2)
        return LayerModel(cost, busy, busy, Range(1, 2), ['buffers the whole tensor'])
    if layer.kind == Kind.RESIZE2D and layer.attributes['height_factor'] > 1:  # rows emitted once stream through
        channels = ctx.graph.tensors[layer.inputs[0]].shape[-1]
        cost.memories.append(Memory('ram', layer.attributes['in_width'], channels * bits, label='row buffer'))
    latency, interval = stream_schedule(Range(1, 2), max(in_elements, out_elements))
    return LayerModel(cost, latency, interval, Range(1, 2))


def _element_bits(ctx: RuleContext, tensor: str, bits: int) -> int:
    return stream_pack(ctx.graph.tensors[tensor].shape) * bits
