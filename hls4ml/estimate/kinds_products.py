"""Rules of the layers that multiply: Dense, the convolutions, BatchNormalization, Dot, Merge.

Each rule follows its kernel in `templates/nnet/` (docs/kernels.md gives the loop structure):
Latency strategy = everything unrolled in a region pipelined at II = reuse_factor, with at most
ceil(n_weights / RF) - n_zeros / RF multipliers; at RF = 1 each multiplier has one fixed weight,
a constant (zeros vanish, powers of two are shifts). Resource strategy = RF pipelined steps of
block_factor = ceil(n_weights / RF) general multipliers, the weights in a ROM of RF words of
block_factor weights each. Formulas and reasons: docs/estimator.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.backends.common.distributed import AdderGraph
from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined, stream_schedule
from hls4ml.estimate.distributed import distributed_graph, distributed_matrix
from hls4ml.estimate.mapping import in_block_ram
from hls4ml.estimate.primitives import Cost, Memory, Multiplier, Range, constant_multipliers, raw_values, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import CONVOLUTIONS, DEPTHWISE_CONVOLUTIONS, Kind
from hls4ml.model.passes.fifo_depths import stream_pack

WINDOW_LUTS_PER_BIT = 2  # io_stream convolution: LUTs per window register bit (fitted: two depthwise reports)


@dataclass
class Matrix:
    """A weight matrix of `rows` x `cols` (raw integer weights in storage order) used by `copies`
    output pixels at once, `groups` times in sequence (conv: the pixel groups)."""

    weights: list[int]
    rows: int
    cols: int
    data_bits: int
    weight_bits: int
    accum_bits: int
    result_bits: int
    reuse_factor: int
    strategy: str
    copies: int = 1
    groups: int = 1
    biases: list[int] | None = None  # raw biases (None: every output has one)
    adder_graph: AdderGraph | None = None  # Strategy 'distributed_arithmetic' (estimate/distributed.py)

    @property
    def n_weights(self) -> int:
        return len(self.weights)

    @property
    def zeros(self) -> int:
        return sum(1 for value in self.weights if value == 0)

    def terms_per_output(self) -> list[int]:
        """Nonzero products summed into each output (its bias is one more term)."""
        nonzero = np.asarray(self.weights, dtype=object).reshape(self.rows, self.cols) != 0
        return [int(count) for count in nonzero.sum(axis=0)]

    def additions(self) -> int:
        """Additions of one pass: each output sums its nonzero products and a nonzero bias (a zero bias,
        Keras' default, is not added: the calibration's Dense(1 -> 64) used no adder LUTs)."""
        biases = self.biases if self.biases is not None else [1] * self.cols
        terms = self.terms_per_output()
        return sum(max(count - 1 + (biases[j % len(biases)] != 0), 0) for j, count in enumerate(terms))

    @property
    def constant(self) -> bool:
        """Each multiplier sees one fixed weight: Latency, or Resource at reuse factor 1 (its loop fully
        unrolled over a completely partitioned weight array), as the tools then fold the constants."""
        return self.reuse_factor == 1


def mux_luts(inputs: int) -> int:
    """LUT6s per bit of an inputs-to-1 multiplexer (one LUT6 is a 4:1 multiplexer)."""
    return math.ceil((inputs - 1) / 3) if inputs > 1 else 0


def latency_matrix(matrix: Matrix, ctx: RuleContext, notes: list[str]) -> tuple[Cost, Range]:
    """Cost and pipeline depth of the Latency strategy (all products of one pass unrolled)."""
    if matrix.adder_graph is not None:  # distributed arithmetic: the adder graph instead of multipliers
        return distributed_matrix(matrix, ctx, notes)
    cost = Cost()
    rf, copies = matrix.reuse_factor, matrix.copies
    terms = matrix.terms_per_output()
    if matrix.constant:
        cost.add_multipliers(constant_multipliers(matrix.weights, matrix.data_bits, copies))
        notes.append(f'{matrix.zeros} zero weights cost nothing; constant multipliers')
    else:
        limit = math.ceil(matrix.n_weights / rf) - matrix.zeros // rf
        cost.add_multipliers([Multiplier(copies * limit, matrix.data_bits, matrix.weight_bits)])
        cost.logic_bits += copies * limit * (matrix.data_bits + matrix.weight_bits) * mux_luts(rf)
    adds = copies * matrix.additions() * matrix.accum_bits
    cost.adder_bits += math.ceil(adds / rf)
    cost.register_bits = Range(0, adds - cost.adder_bits) + Range.exact(copies * matrix.cols * matrix.result_bits)
    chain = ctx.multiply_ns(cost.multipliers) + ctx.add_ns(matrix.accum_bits, tree_levels(max(terms, default=0) + 1))
    return cost, ctx.cycles(chain)


def resource_matrix(matrix: Matrix, ctx: RuleContext, notes: list[str]) -> tuple[Cost, Range]:
    """Cost and loop-iteration depth of the Resource strategy (RF steps of block_factor products)."""
    rf, copies = matrix.reuse_factor, matrix.copies
    block = math.ceil(matrix.n_weights / rf)
    cost = Cost()
    cost.add_multipliers([Multiplier(copies * block, matrix.data_bits, matrix.weight_bits)])
    cost.memories.append(Memory('rom', rf, block * matrix.weight_bits, label='weights'))
    sources = min(rf, matrix.rows)  # inputs one multiplier lane reads over the RF steps
    targets = min(rf, matrix.cols)  # accumulators one lane adds into
    cost.adder_bits += copies * block * matrix.accum_bits
    cost.logic_bits += copies * block * (matrix.data_bits * mux_luts(sources) + matrix.accum_bits * mux_luts(targets))
    cost.register_bits = Range.exact(copies * matrix.cols * (matrix.accum_bits + matrix.result_bits))
    notes.append(
        f'block_factor {block}: weights in a {rf} x {block * matrix.weight_bits}-bit ROM; zeros are multiplied'
    )
    bits = rf * block * matrix.weight_bits
    chain = ctx.multiply_ns(cost.multipliers) + ctx.add_ns(matrix.accum_bits)
    return cost, ctx.cycles(chain, ctx.read_cycles(in_block_ram(bits)))


def matrix_model(matrix: Matrix, ctx: RuleContext) -> LayerModel:
    """A matrix product applied to `groups` pixel groups in sequence (1 for Dense). Its registers at a
    cycle boundary are `matrix_stage_bits`; a loop (pixel groups, Resource's RF steps) registers one
    iteration's pipeline, not its whole latency."""
    notes: list[str] = []
    rf, groups = matrix.reuse_factor, matrix.groups
    if matrix.strategy == 'resource' and not matrix.constant:
        cost, depth = resource_matrix(matrix, ctx, notes)
        per_group = Range.exact(rf) + depth + LOOP_OVERHEAD_CYCLES
        latency = per_group.scale(groups)
        model = LayerModel(cost, latency, latency + Range(0, 1), depth, notes)
    else:
        cost, depth = latency_matrix(matrix, ctx, notes)
        if groups == 1:
            latency, interval = pipelined(depth, rf)
            model = LayerModel(cost, latency, interval, depth, notes)
        else:
            latency = Range.exact((groups - 1) * rf) + depth + LOOP_OVERHEAD_CYCLES
            model = LayerModel(cost, latency, Range.exact(groups * rf) + LOOP_OVERHEAD_CYCLES, depth, notes)
    if groups > 1 or matrix.strategy == 'resource':
        model.loop_boundaries = math.ceil(depth.value - 1e-9) + 1
    model.stage_bits = matrix_stage_bits(matrix)
    return model


def matrix_stage_bits(matrix: Matrix) -> float:
    """Bits registered at a cycle boundary inside a matrix product: half way between its products (at
    the accumulator width) and its outputs, an adder tree narrowing from one to the other."""
    products = math.ceil((matrix.n_weights - matrix.zeros) / matrix.reuse_factor)  # in flight per cycle
    return matrix.copies * (products * matrix.accum_bits + matrix.cols * matrix.result_bits) / 2


def _matrix(layer: Layer, ctx: RuleContext, rows: int, cols: int, copies: int = 1, groups: int = 1) -> Matrix:
    return Matrix(
        raw_values(layer.weights['weight'], layer.types.get('weight')),
        rows,
        cols,
        ctx.input_bits(layer),
        ctx.type_bits(layer, 'weight'),
        ctx.type_bits(layer, 'accum'),
        ctx.type_bits(layer, 'result'),
        int(layer.attributes.get('reuse_factor', 1)),
        str(layer.attributes.get('strategy', 'latency')),
        copies,
        groups,
        raw_values(layer.weights['bias'], layer.types.get('bias')) if 'bias' in layer.weights else [0],
        distributed_graph(layer, ctx),
    )


@estimator_rule(Kind.DENSE)
def dense(layer: Layer, ctx: RuleContext) -> LayerModel:
    attributes = layer.attributes
    model = matrix_model(_matrix(layer, ctx, attributes['n_in'], attributes['n_out']), ctx)
    model.latency = ctx.vector_latency(model.latency)
    if ctx.io_stream:
        model.notes.append('io_stream: the vector is one stream element')
    return model


@estimator_rule(*CONVOLUTIONS)
def convolution(layer: Layer, ctx: RuleContext) -> LayerModel:
    """io_parallel: pixel groups of PF pixels in sequence; io_stream: one input pixel per RF cycles
    through a line buffer, all products of one output pixel unrolled (PF and strategy unused)."""
    attributes = layer.attributes
    window = attributes['filt_width'] * attributes.get('filt_height', 1)
    rows = window * (1 if layer.kind in DEPTHWISE_CONVOLUTIONS else attributes['n_chan'])
    pixels = attributes['out_width'] * attributes.get('out_height', 1)
    if ctx.io_stream:
        return _stream_convolution(layer, ctx, _matrix(layer, ctx, rows, attributes['n_filt']))
    parallel = int(attributes.get('parallelization_factor', 1))
    matrix = _matrix(layer, ctx, rows, attributes['n_filt'], parallel, pixels // parallel)
    model = matrix_model(matrix, ctx)
    taps = rows * parallel
    model.cost.logic_bits += taps * matrix.data_bits * mux_luts(matrix.groups)  # window gather
    model.coarse = True
    model.notes.append(
        f'{matrix.groups} pixel groups of {parallel}; under a pipelined top function the tool may unroll them'
    )
    return model


def _stream_convolution(layer: Layer, ctx: RuleContext, matrix: Matrix) -> LayerModel:
    attributes = layer.attributes
    matrix.strategy = 'latency'  # the streaming kernel has one schedule
    notes = ['io_stream: line buffer and window registers; strategy and PF unused']
    cost, depth = latency_matrix(matrix, ctx, notes)
    height, width = attributes.get('filt_height', 1), attributes['filt_width']
    channels, in_width = attributes['n_chan'], attributes['in_width']
    if height > 1:
        cost.memories.append(Memory('ram', in_width, (height - 1) * channels * matrix.data_bits, label='line buffer'))
    window_bits = height * width * channels * matrix.data_bits
    cost.register_bits = cost.register_bits + Range.exact(window_bits)
    cost.logic_bits += WINDOW_LUTS_PER_BIT * window_bits  # shifting the window, the padding and output tests
    latency, interval = stream_schedule(depth, ctx.elements(layer.inputs[0]), matrix.reuse_factor)
    pipeline = math.ceil(depth.value - 1e-9) * matrix_stage_bits(matrix)  # one window's products in flight
    cost.register_bits = cost.register_bits.at(cost.register_bits.value + pipeline)
    return LayerModel(cost, latency, interval, depth, notes, coarse=True)


def lanes(layer: Layer, ctx: RuleContext, index: int = 0) -> int:
    """Values processed in parallel: the whole tensor (io_parallel) or one stream element."""
    shape = ctx.graph.tensors[layer.inputs[index]].shape
    return stream_pack(shape) if ctx.io_stream else ctx.input_size(layer, index)


def schedule(layer: Layer, ctx: RuleContext, depth: Range, reuse_factor: int = 1) -> tuple[Range, Range]:
    if ctx.io_stream:
        return stream_schedule(depth, ctx.elements(layer.inputs[0]))
    return pipelined(depth, reuse_factor)


def per_channel_multipliers(layer: Layer, ctx: RuleContext, weight: str, var: str, count: int) -> list[Multiplier]:
    """Constant multipliers by a per-channel factor (c = i % n_factors), or general ones when a stream
    element does not align with the channels."""
    factors = raw_values(layer.weights[weight], layer.types.get(var))
    data_bits = ctx.input_bits(layer)
    if ctx.io_stream and count % len(factors):
        return [Multiplier(count, data_bits, ctx.type_bits(layer, var))]
    return constant_multipliers([factors[i % len(factors)] for i in range(count)], data_bits)


@estimator_rule(Kind.BATCH_NORMALIZATION)
def batchnorm(layer: Layer, ctx: RuleContext) -> LayerModel:
    count = lanes(layer, ctx)
    cost = Cost()
    cost.add_multipliers(per_channel_multipliers(layer, ctx, 'scale', 'scale', count))
    cost.adder_bits += count * ctx.type_bits(layer, 'result')
    cost.register_bits = Range.exact(count * ctx.type_bits(layer, 'result'))
    depth = ctx.cycles(ctx.multiply_ns(cost.multipliers) + ctx.add_ns(ctx.type_bits(layer, 'result')))
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth, ['constant multipliers by the scale'])


@estimator_rule(Kind.DOT)
def dot(layer: Layer, ctx: RuleContext) -> LayerModel:
    n_in, rf = layer.attributes['n_in'], int(layer.attributes.get('reuse_factor', 1))
    cost = Cost()
    cost.add_multipliers([Multiplier(math.ceil(n_in / rf), ctx.input_bits(layer, 0), ctx.input_bits(layer, 1))])
    accum = ctx.type_bits(layer, 'accum')
    cost.adder_bits += n_in * accum
    cost.register_bits = Range.exact(ctx.type_bits(layer, 'result'))
    depth = ctx.cycles(ctx.multiply_ns(cost.multipliers) + ctx.add_ns(accum, tree_levels(n_in)))
    latency, interval = pipelined(depth, rf)
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth)


@estimator_rule(Kind.MERGE)
def merge(layer: Layer, ctx: RuleContext) -> LayerModel:
    count, operation = lanes(layer, ctx), layer.attributes.get('op', 'add')
    result = ctx.type_bits(layer, 'result')
    cost = Cost(register_bits=Range.exact(count * result))
    if operation == 'multiply':
        cost.add_multipliers([Multiplier(count, ctx.input_bits(layer, 0), ctx.input_bits(layer, 1))])
        chain = ctx.multiply_ns(cost.multipliers)
    elif operation in ('maximum', 'minimum'):
        cost.logic_bits += 2 * count * result  # a comparator and a multiplexer per value
        chain = ctx.compare_ns(result)
    else:  # add, subtract, average (the halving is a shift)
        cost.adder_bits += count * result
        chain = ctx.add_ns(result)
    depth = ctx.cycles(chain)
    latency, interval = schedule(layer, ctx, depth)
    return LayerModel(cost, latency, interval, depth)
