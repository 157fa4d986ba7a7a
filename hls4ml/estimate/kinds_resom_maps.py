"""Rule of the M-map ReSOM (`ReSOMMaps`, `nnet_resom_maps.h`, docs/resom.md): each map's SOM stages as the
two-map ReSOM's (kinds_maps), the lateral products of the block matrix L (two constant products per
non-zero entry of each pair matrix, as the two-map kernel), per map the normalising divisions and winner
scans, and the global winner over the M maps' winners. One region pipelined at II = reuse_factor.
"""

from __future__ import annotations

import numpy as np

from hls4ml.estimate import kinds_maps as maps
from hls4ml.estimate.context import LayerModel, RuleContext, pipelined
from hls4ml.estimate.kinds_products import mux_luts
from hls4ml.estimate.primitives import ZERO, Cost, Range, constant_multipliers, index_bits, raw_values, tree_levels
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


@estimator_rule(Kind.RESOM_MAPS)
def resom_maps(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Every map's SOM stages and activities, `iterations` unrolled rounds (lateral products, per-map
    divisions and winner scans), the global winner and the output; one region pipelined at II = RF."""
    attributes = layer.attributes
    rounds, shapes = int(attributes['iterations']), _map_shapes(layer, ctx)
    types, tables = layer_setup(layer, 'ap')
    activity_bits = ctx.type_bits(layer, 'activity')
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    afferent, reads = ZERO, ZERO
    for index, (shape, table) in enumerate(zip(shapes, tables, strict=True)):
        codebook = raw_values(layer.weights[f'codebook_{index}'], layer.types.get('codebook'))
        delay = maps.distance_stage(cost, ctx, shape, codebook) + maps.scan_stage(
            cost, ctx, shape.n_units, shape.accum_bits
        )
        afferent = afferent.maximum(delay + maps.activity_stage(cost, ctx, shape, table, activity_bits))
        reads = reads.maximum(maps.table_read(ctx, table, activity_bits))
    lateral, combine, winner = ZERO, ZERO, ZERO
    for _ in range(rounds):
        lateral = lateral_stage(cost, ctx, layer, activity_bits)
        for shape in shapes:
            combine = combine.maximum(maps.combine_stage(cost, ctx, layer, shape.n_units, types))
            winner = winner.maximum(maps.scan_stage(cost, ctx, shape.n_units, activity_bits))
    output = _output_stage(cost, ctx, layer, activity_bits)
    chain = afferent + (lateral + combine + winner).scale(rounds) + output
    depth = ctx.cycles(chain, reads)
    latency, interval = pipelined(depth, int(attributes.get('reuse_factor', 1)))
    notes = [
        f'{len(shapes)} maps, {rounds} unrolled round(s): lateral products, {sum(attributes["map_units"])} divisions '
        f'of {types.activity.fractional + 1} compare-subtract stages; scans: a chain (high) or a tree (low)'
    ]
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, notes, coarse=True)


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
