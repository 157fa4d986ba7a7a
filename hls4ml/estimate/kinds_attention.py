"""Rules of the attention building blocks: the Einsum of two run-time tensors and EinsumDense
(`nnet_einsum.h`).

Both operands change every call, so every product is a general multiplier (no constants to fold):
ceil(products / RF) of them, each shared RF times, as the kernel's ALLOCATION limit says; one
accumulator add of accum_t per product; each output a chain of n_inner adds, an adder tree of
ceil(log2 n_inner) levels once unrolled. io_parallel: one region pipelined at II = RF. io_stream:
the inputs are read whole, the array kernel runs, the result is written out (docs/estimator.md).

EinsumDense multiplies by constants: it is a Dense (kinds_products.matrix_model) of an (inner) x
(batch * columns) weight matrix applied to n_rows positions at once (`copies`), each product its own
constant multiplier at RF 1.
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined
from hls4ml.estimate.kinds_products import Matrix, matrix_model
from hls4ml.estimate.primitives import Cost, Multiplier, Range, raw_values, tree_levels
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.attention import graph_plan


@estimator_rule(Kind.EINSUM)
def einsum(layer: Layer, ctx: RuleContext) -> LayerModel:
    plan = graph_plan(ctx.graph, layer)
    reuse_factor = int(layer.attributes.get('reuse_factor', 1))
    accum, result = ctx.type_bits(layer, 'accum'), ctx.type_bits(layer, 'result')
    cost = Cost()
    multipliers = math.ceil(plan.products / reuse_factor)
    cost.add_multipliers([Multiplier(multipliers, ctx.input_bits(layer, 0), ctx.input_bits(layer, 1))])
    cost.adder_bits += plan.products * accum
    cost.register_bits = Range.exact(ctx.output_size(layer) * result)
    inner = plan.sizes[3]
    depth = ctx.cycles(ctx.multiply_ns(cost.multipliers) + ctx.add_ns(accum, tree_levels(inner)))
    latency, interval = pipelined(depth, reuse_factor)
    notes = [f'{plan.products} products of two run-time operands, {multipliers} general multipliers']
    return streamed(layer, ctx, LayerModel(cost, latency, interval, depth, notes))


@estimator_rule(Kind.EINSUM_DENSE)
def einsum_dense(layer: Layer, ctx: RuleContext) -> LayerModel:
    plan = graph_plan(ctx.graph, layer)
    batch, rows, columns, inner = plan.sizes
    weights = np.array(raw_values(layer.weights['weight'], layer.types.get('weight')), dtype=object)
    index = np.arange(batch)[None, :, None] * plan.second[0] + np.arange(inner)[:, None, None] * plan.second[1]
    index = index + np.arange(columns)[None, None, :] * plan.second[2]  # (inner, batch, columns)
    matrix = Matrix(
        weights[index].reshape(-1).tolist(),
        inner,
        batch * columns,
        ctx.input_bits(layer),
        ctx.type_bits(layer, 'weight'),
        ctx.type_bits(layer, 'accum'),
        ctx.type_bits(layer, 'result'),
        int(layer.attributes.get('reuse_factor', 1)),
        str(layer.attributes.get('strategy', 'latency')),
        copies=rows,
    )
    return streamed(layer, ctx, matrix_model(matrix, ctx))


def streamed(layer: Layer, ctx: RuleContext, model: LayerModel) -> LayerModel:
    """io_stream: the inputs are read whole before the array kernel runs and the result written after
    it, one pipelined loop per stream (one element per cycle)."""
    if not ctx.io_stream:
        return model
    tensors = [*layer.inputs, layer.outputs[0]]
    streaming = Range.exact(sum(ctx.elements(name) for name in tensors)) + LOOP_OVERHEAD_CYCLES.scale(len(tensors))
    model.latency, model.interval = model.latency + streaming, model.interval + streaming
    model.notes.append('io_stream: inputs buffered whole, the result streamed out')
    return model
