"""Rule of the M-map ReSOM (`ReSOMMaps`, `nnet_resom_maps.h`, docs/resom.md): each map's SOM stages as the
two-map ReSOM's (kinds_maps), the lateral products of the block matrix L (two constant products per
non-zero entry of each pair matrix, as the two-map kernel), per map the normalising divisions and winner
scans, and the global winner over the M maps' winners. Latency: one region pipelined at II = reuse_factor.
Resource: every map's distance stage, (source 'all') the lateral products of the whole block matrix L and
every map's divisions are folded loops of about reuse_factor steps at II = 1 (kinds_maps.folded_distance_stage,
`folded_lateral_stage`, kinds_maps.folded_combine_stage);
the rest runs once after them and the layer is not pipelined as a whole (II = latency).
"""

from __future__ import annotations

import math

import numpy as np

from hls4ml.estimate import kinds_maps as maps
from hls4ml.estimate.context import LayerModel, RuleContext, pipelined
from hls4ml.estimate.kinds_products import mux_luts
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
)
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.resom_maps import layer_setup, pairs


def _map_shapes(layer: Layer, ctx: RuleContext) -> list[maps.MapShape]:
    attributes = layer.attributes
    return [
        maps.MapShape(
            width,
            units,
            ctx.input_bits(layer, index),
            ctx.type_bits(layer, 'codebook'),
            ctx.type_bits(layer, 'accum'),
            attributes['distance'],
        )
        for index, (width, units) in enumerate(zip(attributes['map_inputs'], attributes['map_units'], strict=True))
    ]


def lateral_stage(cost: Cost, ctx: RuleContext, layer: Layer, activity_bits: int) -> Range:
    """resom_maps_lateral: 'all': every non-zero H_ij entry twice (H_ij a^j and H_ij^T a^i), a constant
    product and a lateral_accum add each (the zero blocks of L cost nothing); 'bmu': every unit selects
    and adds one entry per other map."""
    units, lateral_bits = layer.attributes['map_units'], ctx.type_bits(layer, 'lateral_accum')
    total = sum(units)
    if layer.attributes['source'] == 'bmu':
        cost.logic_bits += ctx.type_bits(layer, 'lateral') * sum(n * mux_luts(total - n) for n in units)
        cost.adder_bits += total * (len(units) - 1) * lateral_bits
        return ctx.compare_ns(index_bits(max(units))) + ctx.add_ns(lateral_bits, tree_levels(len(units) - 1))
    entries: list[int] = []
    widest = np.zeros(total, dtype=np.int64)
    for i, j in pairs(len(units)):
        values = raw_values(layer.weights[f'lateral_{i}_{j}'], layer.types.get('lateral'))
        entries += values
        nonzero = np.asarray(values, dtype=object).reshape(units[i], units[j]) != 0
        widest[sum(units[:i]) : sum(units[: i + 1])] += nonzero.sum(axis=1).astype(np.int64)
        widest[sum(units[:j]) : sum(units[: j + 1])] += nonzero.sum(axis=0).astype(np.int64)
    multipliers = constant_multipliers(entries, activity_bits, copies=2)
    cost.add_multipliers(multipliers)
    cost.adder_bits += int(widest.sum()) * lateral_bits
    return ctx.multiply_ns(multipliers) + ctx.add_ns(lateral_bits, tree_levels(int(widest.max(initial=1))))


def folded_lateral_stage(cost: Cost, ctx: RuleContext, layer: Layer, activity_bits: int, memory: Memory) -> Range:
    """resom_maps_folded_lateral (Resource, source 'all'): one fold over the n_units^2 entries of L (the
    zero blocks included) of block = ceil(n_units^2 / RF) general products (activity x entry) and
    lateral_accum adds, with the multiplexers of `fold_multiplexers`; L is the ROM `memory`."""
    total, reuse_factor = sum(layer.attributes['map_units']), int(layer.attributes.get('reuse_factor', 1))
    block, lateral_bits = math.ceil(total * total / reuse_factor), ctx.type_bits(layer, 'lateral_accum')
    multipliers = [Multiplier(block, activity_bits, ctx.type_bits(layer, 'lateral'))]
    cost.add_multipliers(multipliers)
    cost.adder_bits += block * lateral_bits
    rows, columns = np.divmod(np.arange(total * total), total)
    source_luts, target_luts = maps.fold_multiplexers(rows, columns, block)
    cost.logic_bits += activity_bits * source_luts + lateral_bits * target_luts
    step = ctx.multiply_ns(multipliers) + ctx.add_ns(lateral_bits)
    return maps.fold_cycles(ctx, step, memory, reuse_factor)


def _afferent_stage(
    cost: Cost, ctx: RuleContext, layer: Layer, index: int, shape: maps.MapShape, table
) -> tuple[Range, Range]:
    """Map `index`'s distances, best unit and activities: (the delay of the unfolded part, the cycles of
    the Resource folds: distances and square roots)."""
    reuse_factor, activity_bits = int(layer.attributes.get('reuse_factor', 1)), ctx.type_bits(layer, 'activity')
    folded = layer.attributes.get('strategy') == 'resource'
    delay, folds = maps.scan_stage(cost, ctx, shape.n_units, shape.accum_bits), ZERO
    if folded:
        folds = maps.folded_distance_stage(cost, ctx, shape, reuse_factor, f'codebook_{index}')
    else:
        codebook = raw_values(layer.weights[f'codebook_{index}'], layer.types.get('codebook'))
        delay = maps.distance_stage(cost, ctx, shape, codebook) + delay
    if folded and table.root_type is not None:
        folds = folds + maps.folded_root_stage(ctx, cost, shape, table.root_type.width, reuse_factor)
    return delay + maps.activity_stage(cost, ctx, shape, table, activity_bits, roots_folded=folded), folds


def _lateral_memory(cost: Cost, ctx: RuleContext, layer: Layer) -> Memory:
    """L of a Resource ReSOMMaps: a ROM of RF words of ceil(n_units^2 / RF) entries (one wide word a step)."""
    total, reuse_factor = sum(layer.attributes['map_units']), int(layer.attributes.get('reuse_factor', 1))
    block = math.ceil(total * total / reuse_factor)
    memory = Memory('rom', reuse_factor, block * ctx.type_bits(layer, 'lateral'), label='lateral')
    cost.memories.append(memory)
    return memory


@estimator_rule(Kind.RESOM_MAPS)
def resom_maps(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Every map's SOM stages and activities, `iterations` unrolled rounds (lateral products, per-map
    divisions and winner scans), the global winner and the output. Latency: one region pipelined at
    II = RF. Resource: the distance stages, (source 'all') the lateral products and the divisions folded
    by RF, in sequence with the rest; not pipelined as a whole."""
    attributes = layer.attributes
    rounds, shapes = int(attributes['iterations']), _map_shapes(layer, ctx)
    folded = attributes.get('strategy') == 'resource'
    types, tables = layer_setup(layer, 'ap')
    activity_bits = ctx.type_bits(layer, 'activity')
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    afferent, reads, folds = ZERO, ZERO, ZERO
    for index, (shape, table) in enumerate(zip(shapes, tables, strict=True)):
        delay, fold = _afferent_stage(cost, ctx, layer, index, shape, table)
        afferent, folds = afferent.maximum(delay), folds + fold
        reads = reads.maximum(maps.table_read(ctx, table, activity_bits))
    lateral_memory = _lateral_memory(cost, ctx, layer) if folded and attributes['source'] == 'all' else None
    lateral, combine, winner = ZERO, ZERO, ZERO
    for _ in range(rounds):
        if lateral_memory is None:
            lateral = lateral_stage(cost, ctx, layer, activity_bits)
        else:
            folds = folds + folded_lateral_stage(cost, ctx, layer, activity_bits, lateral_memory)
        for shape in shapes:
            if folded:  # the maps' folds in sequence
                folds = folds + maps.folded_combine_stage(cost, ctx, layer, shape.n_units, types)
            else:
                combine = combine.maximum(maps.combine_stage(cost, ctx, layer, shape.n_units, types))
            winner = winner.maximum(maps.scan_stage(cost, ctx, shape.n_units, activity_bits))
    output = _output_stage(cost, ctx, layer, activity_bits)
    depth = ctx.cycles(afferent + (lateral + combine + winner).scale(rounds) + output, reads)
    if folded:
        latency = interval = depth + folds
    else:
        latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, _notes(layer, types), coarse=True)


def _notes(layer: Layer, types) -> list[str]:
    attributes = layer.attributes
    notes = [
        f'{len(attributes["map_units"])} maps, {attributes["iterations"]} unrolled round(s): lateral products, '
        f'{sum(attributes["map_units"])} divisions of {types.activity.fractional + 1} compare-subtract stages; '
        'scans: a chain (high) or a tree (low)'
    ]
    if attributes.get('strategy') == 'resource':
        notes.append(
            f'Resource: distances, lateral products and divisions folded by {attributes.get("reuse_factor", 1)}'
        )
    return notes


def _output_stage(cost: Cost, ctx: RuleContext, layer: Layer, activity_bits: int) -> Range:
    """The global winner (each map's winner activity through a multiplexer, M - 1 compare-selects) and the
    label read."""
    output, units = layer.attributes['output'], layer.attributes['map_units']
    if output in ('winners', 'activities'):
        return ZERO
    cost.logic_bits += sum(activity_bits * mux_luts(n) for n in units)
    cost.logic_bits += (len(units) - 1) * (2 * activity_bits + index_bits(sum(units)))
    if output == 'label':
        cost.logic_bits += ctx.type_bits(layer, 'label') * mux_luts(sum(units))
    return ctx.compare_ns(activity_bits, len(units) - 1)
