"""Rules of the self-organizing maps: the SOM's stages (distances, best unit, activities) and ReSOM.

The stages follow `nnet_som.h` loop by loop and are shared: the SOM rule (`kinds_other.som`) uses
them once, ReSOM (`nnet_resom.h`, docs/resom.md) once per map, then adds its unrolled rounds of
lateral products, normalising divisions and winner scans. Latency: everything sits in one region
pipelined at II = reuse_factor with no ALLOCATION limit, so every operator is instanced (the tool may
still share some across the II: the high end). Resource: the distance stages, the lateral products
and the normalising divisions are folded loops (`folded_distance_stage`, `folded_lateral_stage`,
`folded_combine_stage`) of about reuse_factor steps at II = 1, the rest runs once after them, and the
layer is not pipelined as a whole (II = latency).
Formulas and reasons: docs/estimator.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.estimate.context import LOOP_OVERHEAD_CYCLES, LayerModel, RuleContext, pipelined
from hls4ml.estimate.kinds_products import mux_luts
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
)
from hls4ml.estimate.rules import estimator_rule
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.resom import ResomTypes, layer_setup
from hls4ml.model.reference.som import ActivityTable


@dataclass(frozen=True)
class MapShape:
    """One map: `n_units` codebook rows of `n_in` values; data, codebook and distance widths."""

    n_in: int
    n_units: int
    data_bits: int
    code_bits: int
    accum_bits: int
    distance: str


def distance_stage(cost: Cost, ctx: RuleContext, shape: MapShape, codebook: list[int]) -> Range:
    """som_all_distances: n_units x n_in differences of max(Wd, Wc) + 1 bits and their terms (general
    squarers, absolute values, compare-selects, or constant products for cosine), one accumulator add
    per term. Returns the delay of one unit's distance."""
    terms, accum = shape.n_in * shape.n_units, shape.accum_bits
    diff = max(shape.data_bits, shape.code_bits) + 1
    multipliers: list[Multiplier] = []
    if shape.distance == 'cosine':
        multipliers = constant_multipliers(codebook, shape.data_bits)
    else:
        cost.adder_bits += terms * diff
        if shape.distance == 'squared_euclidean':
            multipliers = [Multiplier(terms, diff, diff)]
        elif shape.distance == 'chebyshev':
            cost.logic_bits += 4 * terms * accum
    cost.add_multipliers(multipliers)
    cost.adder_bits += terms * accum if shape.distance != 'chebyshev' else 0
    return ctx.multiply_ns(multipliers) + ctx.add_ns(accum, tree_levels(shape.n_in))


def fold_cycles(ctx: RuleContext, step_ns: Range, memory: Memory, reuse_factor: int) -> Range:
    """Cycles of a folded loop: reuse_factor steps at II = 1, one step's depth (its products and adds
    after a read of the wide word, `memory`), entering and leaving the loop."""
    read = ctx.read_cycles(in_block_ram(memory.bits))
    return Range.exact(reuse_factor) + ctx.cycles(step_ns, read) + LOOP_OVERHEAD_CYCLES


def fold_multiplexers(targets: np.ndarray, sources: np.ndarray, block: int) -> tuple[int, int]:
    """LUTs per bit of the multiplexers a fold needs, counted from its walk (term k is lane k % block
    of step k // block; it reads input sources[k] and adds into sum targets[k]): each lane selects
    among the inputs it reads over the steps; each sum among the lanes where its run of terms in a
    step starts (a run's terms are chained lane to lane). A fold whose block is a multiple of the
    row length needs none: every lane always reads the same input and every sum is one run."""
    terms = np.arange(len(targets))
    lanes, steps = terms % block, terms // block
    lane_inputs = np.unique(np.stack([lanes, sources]), axis=1)[0]
    source_luts = sum(mux_luts(int(count)) for count in np.bincount(lane_inputs))
    _, first = np.unique(targets * (int(steps.max()) + 1) + steps, return_index=True)  # each run's first term
    starts = np.unique(np.stack([targets[first], lanes[first]]), axis=1)[0]
    return source_luts, sum(mux_luts(int(count)) for count in np.bincount(starts))


def folded_distance_stage(cost: Cost, ctx: RuleContext, shape: MapShape, reuse_factor: int, label: str) -> Range:
    """som_folded_distances (Resource): block = ceil(n_units n_in / RF) lanes, each a difference and a
    general squarer (cosine: a data x codebook product; Manhattan, Chebyshev: none) and an accumulator
    add per step; the multiplexers of `fold_multiplexers`; the codebook a ROM of RF words of block x Wc
    bits (block RAM when large, `label`). Returns the fold's cycles."""
    block = math.ceil(shape.n_in * shape.n_units / reuse_factor)
    diff, accum = max(shape.data_bits, shape.code_bits) + 1, shape.accum_bits
    multipliers: list[Multiplier] = []
    if shape.distance == 'cosine':
        multipliers = [Multiplier(block, shape.data_bits, shape.code_bits)]
    else:
        cost.adder_bits += block * diff
        if shape.distance == 'squared_euclidean':
            multipliers = [Multiplier(block, diff, diff)]
    cost.add_multipliers(multipliers)
    if shape.distance == 'chebyshev':
        cost.logic_bits += 4 * block * accum
    else:
        cost.adder_bits += block * accum
    terms = np.arange(shape.n_in * shape.n_units)
    source_luts, target_luts = fold_multiplexers(terms // shape.n_in, terms % shape.n_in, block)
    cost.logic_bits += shape.data_bits * source_luts + accum * target_luts
    cost.register_bits = cost.register_bits + Range.exact(shape.n_units * accum)
    memory = Memory('rom', reuse_factor, block * shape.code_bits, label=label)
    cost.memories.append(memory)
    step = ctx.multiply_ns(multipliers) + ctx.add_ns(accum, tree_levels(min(block, shape.n_in)))
    return fold_cycles(ctx, step, memory, reuse_factor)


def scan_stage(cost: Cost, ctx: RuleContext, count: int, bits: int) -> Range:
    """A first-best scan (som_best_unit, resom_first_largest): count - 1 compare-selects of a value and
    its index. The kernel writes a chain; the tool may keep it (high) or balance it into a tree (low)."""
    cost.logic_bits += (count - 1) * (2 * bits + index_bits(count))
    fastest = ctx.compare_ns(bits, tree_levels(count))
    slowest = ctx.compare_ns(bits, max(count - 1, 1))
    return Range(fastest.low, slowest.high)


def root_stage(cost: Cost, ctx: RuleContext, shape: MapShape, width: int, roots: int) -> Range:
    """`roots` bit-serial square roots of W = `width` bits (exact_root: step k squares a trial of k
    significant bits and compares it with the distance, keeping the bit). Returns one root's delay."""
    cost.add_multipliers([Multiplier(roots, bits, bits) for bits in range(1, width + 1)])
    cost.logic_bits += roots * width * (shape.accum_bits + 1)  # trial * trial <= d, keep the bit
    step = ctx.multiply_ns([Multiplier(1, width, width)]) + ctx.compare_ns(shape.accum_bits)
    return step.scale(width)


def folded_root_stage(ctx: RuleContext, cost: Cost, shape: MapShape, width: int, reuse_factor: int) -> Range:
    """som_folded_roots (Resource, squared Euclidean activities): ceil(n_units / RF) roots per step, in
    ceil(n_units / block) steps at II = 1. Returns the loop's cycles."""
    block = math.ceil(shape.n_units / reuse_factor)
    steps = math.ceil(shape.n_units / block)
    cost.register_bits = cost.register_bits + Range.exact(shape.n_units * width)
    return Range.exact(steps) + ctx.cycles(root_stage(cost, ctx, shape, width, block)) + LOOP_OVERHEAD_CYCLES


def activity_stage(
    cost: Cost, ctx: RuleContext, shape: MapShape, table: ActivityTable, table_bits: int, roots_folded: bool = False
) -> Range:
    """som_lookup_output<som_activities>: for squared Euclidean n_units + 1 bit-serial roots
    (`root_stage`; with `roots_folded` (Resource) none: `folded_root_stage`, costed by the caller);
    per unit the gap to the
    best unit's (read through a multiplexer), the slot (a saturating write, + 1, a halving), the end
    test and a read of the exp table. Returns the delay up to the read (its cycles: `table_read`)."""
    units, accum = shape.n_units, shape.accum_bits
    gap_bits, chain = accum, ZERO
    cost.logic_bits += accum * mux_luts(units)  # dist[best] (Resource: roots[best])
    if table.root_type is not None:
        gap_bits = table.root_type.width + 1
        if not roots_folded:
            chain = root_stage(cost, ctx, shape, table.root_type.width, units + 1)
    slot_bits = table.index_type.width
    cost.adder_bits += units * (gap_bits + slot_bits)
    cost.logic_bits += units * (2 * slot_bits + table_bits)
    cost.memories.append(Memory('rom', table.size, table_bits, units, label='activity table'))
    return chain + ctx.add_ns(gap_bits) + ctx.add_ns(slot_bits)


def table_read(ctx: RuleContext, table: ActivityTable, table_bits: int) -> Range:
    """Cycles of an exp-table read: block RAM, LUTs or either by the table's size (mapping.in_block_ram)."""
    return ctx.read_cycles(in_block_ram(table.size * table_bits))


# ---- ReSOM ---------------------------------------------------------------------------------------------


def _map_shapes(layer: Layer, ctx: RuleContext) -> tuple[MapShape, MapShape]:
    attributes, distance = layer.attributes, layer.attributes['distance']
    return (
        MapShape(
            attributes['n_in'],
            attributes['n_units_x'],
            ctx.input_bits(layer, 0),
            ctx.type_bits(layer, 'codebook_x'),
            ctx.type_bits(layer, 'accum_x'),
            distance,
        ),
        MapShape(
            attributes['n_in_y'],
            attributes['n_units_y'],
            ctx.input_bits(layer, 1),
            ctx.type_bits(layer, 'codebook_y'),
            ctx.type_bits(layer, 'accum_y'),
            distance,
        ),
    )


def lateral_stage(cost: Cost, ctx: RuleContext, layer: Layer, activity_bits: int) -> Range:
    """resom_lateral for both maps in one round. 'all': H act_y and H^T act_x, two constant products
    per entry of H (zeros cost nothing, powers of two are shifts) and one lateral_accum add each;
    'bmu': every unit selects its entry of the other winner's row or column (a multiplexer)."""
    x_units, y_units = layer.attributes['n_units_x'], layer.attributes['n_units_y']
    lateral_bits = ctx.type_bits(layer, 'lateral_accum')
    if layer.attributes['source'] == 'bmu':
        cost.logic_bits += ctx.type_bits(layer, 'lateral') * (x_units * mux_luts(y_units) + y_units * mux_luts(x_units))
        return ctx.compare_ns(index_bits(max(x_units, y_units)))
    entries = raw_values(layer.weights['lateral'], layer.types.get('lateral'))
    multipliers = constant_multipliers(entries, activity_bits, copies=2)
    cost.add_multipliers(multipliers)
    nonzero = np.asarray(entries, dtype=object).reshape(x_units, y_units) != 0
    cost.adder_bits += 2 * int(nonzero.sum()) * lateral_bits
    widest = max(int(nonzero.sum(axis=1).max(initial=0)), int(nonzero.sum(axis=0).max(initial=0)))
    return ctx.multiply_ns(multipliers) + ctx.add_ns(lateral_bits, tree_levels(widest))


def folded_lateral_stage(cost: Cost, ctx: RuleContext, layer: Layer, activity_bits: int, memory: Memory) -> Range:
    """resom_folded_lateral (Resource, source 'all') for both maps in one round: two folds of
    block = ceil(n_x n_y / RF) general products (activity x H entry) and lateral_accum adds, with the
    multiplexers of `fold_multiplexers`; H is the ROM `memory` (RF words of block entries), read by
    both folds in turn. Returns their cycles."""
    x_units, y_units = layer.attributes['n_units_x'], layer.attributes['n_units_y']
    reuse_factor = int(layer.attributes.get('reuse_factor', 1))
    block = math.ceil(x_units * y_units / reuse_factor)
    lateral_bits = ctx.type_bits(layer, 'lateral_accum')
    multipliers = [Multiplier(2 * block, activity_bits, ctx.type_bits(layer, 'lateral'))]
    cost.add_multipliers(multipliers)
    cost.adder_bits += 2 * block * lateral_bits
    rows, columns = np.divmod(np.arange(x_units * y_units), y_units)
    for targets, sources in ((rows, columns), (columns, rows)):  # the x map's sums, then the y map's
        source_luts, target_luts = fold_multiplexers(targets, sources, block)
        cost.logic_bits += activity_bits * source_luts + lateral_bits * target_luts
    step = ctx.multiply_ns(multipliers) + ctx.add_ns(lateral_bits)
    return fold_cycles(ctx, step, memory, reuse_factor).scale(2)


def combine_stage(cost: Cost, ctx: RuleContext, layer: Layer, units: int, types: ResomTypes) -> Range:
    """resom_combine for one map: the largest lateral value (a scan and a multiplexer), per unit one
    general product (act * lateral, or top * act and an add for 'sum') and the restoring division:
    activity_fraction + 1 compare-subtract stages of remainder_t (a subtractor, a comparator and a
    select each), then the zero select of an inactive map."""
    top = _top_stage(cost, ctx, layer, units)
    return top + _divider_lanes(cost, ctx, layer, units, types)


def folded_combine_stage(cost: Cost, ctx: RuleContext, layer: Layer, units: int, types: ResomTypes) -> Range:
    """resom_combine under Resource: the scan for the largest lateral value as under Latency, then
    block = ceil(units / RF) lanes (a product and a division each, as `combine_stage`) in
    ceil(units / block) steps at II = 1; each lane selects its unit's activity and lateral value among
    the steps. Returns the cycles of the scan and the fold."""
    block = math.ceil(units / int(layer.attributes.get('reuse_factor', 1)))
    steps = math.ceil(units / block)
    top = _top_stage(cost, ctx, layer, units)
    lane_bits = ctx.type_bits(layer, 'activity') + ctx.type_bits(layer, 'lateral_accum')
    cost.logic_bits += block * lane_bits * mux_luts(steps) * (steps > 1)
    step = _divider_lanes(cost, ctx, layer, block, types)
    return ctx.cycles(top) + Range.exact(steps) + ctx.cycles(step) + LOOP_OVERHEAD_CYCLES


def _top_stage(cost: Cost, ctx: RuleContext, layer: Layer, units: int) -> Range:
    """The largest lateral value of a map: a scan and a multiplexer."""
    lateral_bits = ctx.type_bits(layer, 'lateral_accum')
    top = scan_stage(cost, ctx, units, lateral_bits)
    cost.logic_bits += lateral_bits * mux_luts(units)
    return top


def _divider_lanes(cost: Cost, ctx: RuleContext, layer: Layer, lanes: int, types: ResomTypes) -> Range:
    """`lanes` units' product (and add for 'sum'), restoring division and zero select; their delay."""
    activity_bits, lateral_bits = ctx.type_bits(layer, 'activity'), ctx.type_bits(layer, 'lateral_accum')
    stages, remainder_bits = types.activity.fractional + 1, types.remainder.width
    multipliers = [Multiplier(lanes, activity_bits, lateral_bits)]
    cost.add_multipliers(multipliers)
    cost.adder_bits += lanes * remainder_bits * (layer.attributes['combine'] == 'sum')
    cost.adder_bits += lanes * stages * remainder_bits
    cost.logic_bits += lanes * (stages * 2 * remainder_bits + activity_bits)
    division = ctx.compare_ns(remainder_bits, stages)
    return ctx.multiply_ns(multipliers) + ctx.add_ns(remainder_bits) + division


@estimator_rule(Kind.RESOM)
def resom(layer: Layer, ctx: RuleContext) -> LayerModel:
    """Both SOM stages and activities, `iterations` unrolled rounds (lateral products, normalising
    divisions, winner scans), the global winner and the output. Latency: one region pipelined at
    II = RF. Resource: the distance stages, (source 'all') the lateral products and the divisions folded
    by RF, in sequence with the rest; not pipelined as a whole."""
    attributes, reuse_factor = layer.attributes, int(layer.attributes.get('reuse_factor', 1))
    folded, rounds = attributes.get('strategy') == 'resource', int(attributes['iterations'])
    maps, (types, tables) = _map_shapes(layer, ctx), layer_setup(layer, 'ap')
    activity_bits = ctx.type_bits(layer, 'activity')
    cost = Cost(register_bits=Range.exact(ctx.output_size(layer) * ctx.type_bits(layer, 'result')))
    afferent, reads, folds = ZERO, ZERO, ZERO
    for shape, table, side in zip(maps, tables, ('x', 'y'), strict=True):
        delay, fold = _afferent_stage(cost, ctx, layer, shape, table, side)
        afferent, folds = afferent.maximum(delay), folds + fold
        reads = reads.maximum(table_read(ctx, table, activity_bits))
    lateral_memory = _lateral_memory(cost, ctx, layer) if folded and attributes['source'] == 'all' else None
    lateral, combine, winner = ZERO, ZERO, ZERO
    for _ in range(rounds):  # every round is the same hardware again
        if lateral_memory is None:
            lateral = lateral_stage(cost, ctx, layer, activity_bits)
        else:
            folds = folds + folded_lateral_stage(cost, ctx, layer, activity_bits, lateral_memory)
        for shape in maps:
            if folded:  # the maps' folds in sequence
                folds = folds + folded_combine_stage(cost, ctx, layer, shape.n_units, types)
            else:
                combine = combine.maximum(combine_stage(cost, ctx, layer, shape.n_units, types))
    # winner scans whose result is read: the next round's (source 'bmu') and the output's
    scans = (rounds - 1) * (attributes['source'] == 'bmu') + (attributes['output'] != 'activities')
    for _ in range(scans):
        for shape in maps:
            winner = winner.maximum(scan_stage(cost, ctx, shape.n_units, activity_bits))
    output = _output_stage(cost, ctx, layer, maps, activity_bits)
    chain = afferent + (lateral + combine).scale(rounds) + winner.scale(scans) + output
    depth = ctx.cycles(chain, reads)
    if folded:
        latency = interval = depth + folds
    else:
        latency, interval = pipelined(depth, reuse_factor)
    return LayerModel(cost, ctx.vector_latency(latency), interval, depth, _resom_notes(layer, types), coarse=True)


def _afferent_stage(
    cost: Cost, ctx: RuleContext, layer: Layer, shape: MapShape, table: ActivityTable, side: str
) -> tuple[Range, Range]:
    """One map's distances, best unit and activities: (the delay of the unfolded part, the cycles of
    the Resource folds: distances and square roots)."""
    reuse_factor, activity_bits = int(layer.attributes.get('reuse_factor', 1)), ctx.type_bits(layer, 'activity')
    folded = layer.attributes.get('strategy') == 'resource'
    delay, folds = scan_stage(cost, ctx, shape.n_units, shape.accum_bits), ZERO
    if folded:
        folds = folded_distance_stage(cost, ctx, shape, reuse_factor, f'codebook_{side}')
    else:
        codebook = raw_values(layer.weights[f'codebook_{side}'], layer.types.get(f'codebook_{side}'))
        delay = distance_stage(cost, ctx, shape, codebook) + delay
    if folded and table.root_type is not None:
        folds = folds + folded_root_stage(ctx, cost, shape, table.root_type.width, reuse_factor)
    return delay + activity_stage(cost, ctx, shape, table, activity_bits, roots_folded=folded), folds


def _lateral_memory(cost: Cost, ctx: RuleContext, layer: Layer) -> Memory:
    """H of a Resource ReSOM: a ROM of RF words of ceil(n_x n_y / RF) entries (one wide word a step)."""
    reuse_factor = int(layer.attributes.get('reuse_factor', 1))
    block = math.ceil(layer.attributes['n_units_x'] * layer.attributes['n_units_y'] / reuse_factor)
    memory = Memory('rom', reuse_factor, block * ctx.type_bits(layer, 'lateral'), label='lateral')
    cost.memories.append(memory)
    return memory


def _resom_notes(layer: Layer, types: ResomTypes) -> list[str]:
    attributes = layer.attributes
    units = attributes['n_units_x'] + attributes['n_units_y']
    notes = [
        f'{attributes["iterations"]} unrolled round(s): lateral products, {units} divisions of '
        f'{types.activity.fractional + 1} compare-subtract stages; scans: a chain (high) or a tree (low)'
    ]
    if attributes.get('strategy') == 'resource':
        notes.append(
            f'Resource: distances, lateral products and divisions folded by {attributes.get("reuse_factor", 1)}'
        )
    return notes


def _output_stage(cost: Cost, ctx: RuleContext, layer: Layer, maps: tuple[MapShape, ...], activity_bits: int) -> Range:
    """The global winner (the two winners' activities through multiplexers, one compare-select: x's
    unless y's is strictly larger) and the label read."""
    output, units = layer.attributes['output'], sum(shape.n_units for shape in maps)
    if output in ('winners', 'activities'):
        return ZERO
    cost.logic_bits += sum(activity_bits * mux_luts(shape.n_units) for shape in maps)
    cost.logic_bits += 2 * activity_bits + index_bits(units)
    if output == 'label':
        cost.logic_bits += ctx.type_bits(layer, 'label') * mux_luts(units)
    return ctx.compare_ns(activity_bits)
