"""Rule of the recurrent layers (SimpleRNN, LSTM, GRU), following `templates/nnet/nnet_recurrent.h`.

A step is one cell: the input product x W (n_features x G n_out, at ReuseFactor) and the state product
h U (n_out x G n_out, at RecurrentReuseFactor) as Dense matrices (`kinds_products.matrix_model`), then
per state value the gate functions (table reads) and the gate products (LSTM f c, i g, o act(c); GRU
r (h U_h), z h, z n: 3 n_out products; SimpleRNN none). The step is serial: the next h needs this one,
so a step takes the slower product's latency plus the gate depth (a table read, a product, an add).
Static (one shared cell): one cell's cost, the steps one after the other, a new inference only after
the last step. Non-static (unrolled): n_timesteps cells, the same chain of steps, and a new inference
every max(ReuseFactor, RecurrentReuseFactor) cycles. io_stream first reads the n_timesteps elements.
"""

from __future__ import annotations

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext
from hls4ml.estimate.kinds_other import table_memories
from hls4ml.estimate.kinds_products import Matrix, matrix_model
from hls4ml.estimate.primitives import Cost, Multiplier, Range, raw_values
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import RECURRENT, Kind
from hls4ml.model.kinds.recurrent import gate_count, recurrent_weight_values

GATE_PRODUCTS: dict[str, int] = {Kind.SIMPLE_RNN: 0, Kind.LSTM: 3, Kind.GRU: 3}  # per state value


def _matrices(layer: Layer, ctx: RuleContext) -> tuple[Matrix, Matrix]:
    attributes = layer.attributes
    columns, accum = gate_count(layer) * attributes['n_out'], ctx.type_bits(layer, 'accum')
    strategy = str(attributes.get('strategy', 'latency'))
    inputs = Matrix(
        raw_values(layer.weights['weight'], layer.types.get('weight')),
        attributes['n_features'],
        columns,
        ctx.input_bits(layer),
        ctx.type_bits(layer, 'weight'),
        accum,
        accum,
        int(attributes.get('reuse_factor', 1)),
        strategy,
    )
    state = Matrix(
        raw_values(
            recurrent_weight_values(layer).reshape(attributes['n_out'], columns), layer.types.get('recurrent_weight')
        ),
        attributes['n_out'],
        columns,
        ctx.type_bits(layer, 'state'),
        ctx.type_bits(layer, 'recurrent_weight'),
        accum,
        accum,
        int(attributes.get('recurrent_reuse_factor', 1)),
        strategy,
    )
    return inputs, state


def _gates(layer: Layer, ctx: RuleContext) -> tuple[Cost, Range]:
    """The gate functions and products of one cell, and their depth."""
    n_out, gates = layer.attributes['n_out'], gate_count(layer)
    state_bits, accum = ctx.type_bits(layer, 'state'), ctx.type_bits(layer, 'accum')
    cost = Cost(adder_bits=gates * n_out * accum, logic_bits=2 * gates * n_out * accum)
    reads = {'act_': n_out, 'rec_': (gates - 1) * n_out, 'cell_': n_out}
    memories, block_ram = table_memories(layer, ctx, reads)
    cost.memories += memories
    products = GATE_PRODUCTS[layer.kind] * n_out
    cost.add_multipliers([Multiplier(products, ctx.type_bits(layer, 'act_table'), state_bits)])
    cost.adder_bits += products * state_bits
    cost.register_bits = Range.exact(n_out * state_bits * (2 if layer.kind == Kind.LSTM else 1))
    chain = ctx.compare_ns(accum) + ctx.add_ns(accum)
    if products:
        chain = chain + ctx.multiply_ns(cost.multipliers) + ctx.add_ns(state_bits)
    return cost, ctx.cycles(chain, ctx.read_cycles(block_ram))


def _merge(total: Cost, part: Cost, copies: int) -> None:
    total.multipliers += [
        Multiplier(m.count * copies, m.data_bits, m.coefficient_bits, m.digits) for m in part.multipliers
    ]
    total.memories += part.memories  # weights and tables: one ROM, read by every copy (replicated by the mapping)
    total.adder_bits += part.adder_bits * copies
    total.logic_bits += part.logic_bits * copies
    total.register_bits = total.register_bits + part.register_bits.scale(copies)


@estimator_rule(*RECURRENT)
def recurrent(layer: Layer, ctx: RuleContext) -> LayerModel:
    attributes = layer.attributes
    steps, static = attributes['n_timesteps'], bool(attributes.get('static', True))
    inputs, state = (matrix_model(matrix, ctx) for matrix in _matrices(layer, ctx))
    gate_cost, gate_depth = _gates(layer, ctx)
    copies = 1 if static else steps
    cost = Cost()
    for part in (inputs.cost, state.cost, gate_cost):
        _merge(cost, part, copies)
    step = inputs.latency.maximum(state.latency) + gate_depth + LOOP_OVERHEAD_CYCLES
    latency = step.scale(steps)
    notes = [f'{steps} steps of {step} cycles, {"one shared cell (static)" if static else "unrolled cells"}']
    if ctx.io_stream:
        latency = latency + Range.exact(steps)
        notes.append('io_stream: the whole sequence is read before the first step')
    reuse = max(int(attributes.get('reuse_factor', 1)), int(attributes.get('recurrent_reuse_factor', 1)))
    interval = latency if static else Range.exact(reuse)
    return LayerModel(cost, latency, interval, step, notes, coarse=True)
