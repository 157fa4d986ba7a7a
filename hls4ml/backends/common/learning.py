"""The learning top functions of a project (docs/som.md, "On-chip learning"): one per SOM layer (a
Kohonen step of its codebook, spec A.8), one per ReSOM layer (a Hebbian step of its lateral matrix,
spec A.9) and one per ReSOMMaps layer (a Hebbian step of every pair matrix H_ij from the M maps'
afferent activities), and for each map of a ReSOM or ReSOMMaps layer a Kohonen step of its codebook
(the SOM's top, reading that map's input), as data for `common/firmware/learn.cpp.j2` and the bridge.

The learned state (codebook, lateral matrix) is an in-out argument of the top function, so hardware
holds it in a memory it reads and writes; the rates and neighbourhood tables are inputs (their
schedules stay on the host). A ReSOM step reads the layer's own codebooks and activity tables (the
constant arrays of the inference) to compute the afferent activities.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.learning_types import (
    LEARNED_DISTANCES,
    KohonenTypes,
    hebbian_types,
    kohonen_types,
    learnable,
    map_kohonen_types,
    map_parts,
)
from hls4ml.model.reference.resom_maps import offsets, pairs


@dataclass(frozen=True)
class PairStep:
    """One pair (i, j) of a ReSOMMaps learning step: its sizes and where its units and its matrix start."""

    i: int
    j: int
    n_x: int
    n_y: int
    unit_offset_x: int  # first unit of map i in the concatenated activities
    unit_offset_y: int
    state_offset: int  # first value of H_ij in the concatenated pair matrices


@dataclass
class LearnTop:
    """One learning top function: its name, its config struct and what the bridge converts."""

    kind: str  # 'kohonen' (SOM), 'hebbian' (ReSOM) or 'hebbian_maps' (ReSOMMaps)
    layer: str
    function: str  # <project>_learn_<layer>
    struct: str  # learn_config<index>
    base: str  # the nnet config it extends
    statics: list[tuple[str, str, str]] = field(default_factory=list)
    typedefs: list[tuple[str, str]] = field(default_factory=list)
    inputs: list[tuple[str, int]] = field(default_factory=list)  # (type name, size) of x (and y)
    state_size: int = 0  # values of the codebook or lateral matrix
    grid: tuple[int, int] = (1, 1)  # Kohonen: the neighbourhood tables' sizes
    resom_struct: str = ''  # Hebbian: the layer's inference config and arrays (wx, wy, ax, ay)
    resom_arrays: tuple[str, ...] = ()
    pairs: list[PairStep] = field(default_factory=list)  # ReSOMMaps: every pair matrix, in storage order
    input_offsets: list[int] = field(default_factory=list)  # ReSOMMaps: each map's input in a bridge sample
    summary: str = ''  # what one step does (a comment of the header)
    solution: str = ''  # the synthesis solution's name (the layer's, or <layer>_map<m> for a map's Kohonen top)

    def __post_init__(self) -> None:
        self.solution = self.solution or self.layer


def learning_tops(project_name: str, context: LoweringContext, impls: list[LayerImpl]) -> list[LearnTop]:
    """A learning top function for each learnable SOM and each ReSOM layer, in graph order."""
    lowered = {impl.name: impl for impl in impls}
    tops = []
    for layer in context.graph.layers.values():
        if layer.kind == Kind.SOM and learnable(context.graph, layer):
            tops.append(_kohonen_top(project_name, context, layer))
        elif layer.kind == Kind.RESOM:
            tops.append(_hebbian_top(project_name, context, layer, lowered[layer.name]))
            tops += _map_kohonen_tops(project_name, context, layer)
        elif layer.kind == Kind.RESOM_MAPS:
            tops.append(_hebbian_maps_top(project_name, context, layer, lowered[layer.name]))
            tops += _map_kohonen_tops(project_name, context, layer)
    return tops


def _kohonen_top(project_name: str, context: LoweringContext, layer: Layer) -> LearnTop:
    rows, cols = layer.attributes['grid']
    top = LearnTop(
        'kohonen', layer.name, f'{project_name}_learn_{layer.name}', f'learn_config{context.index[layer.name]}', ''
    )
    return _fill_kohonen(top, context, layer, kohonen_types(context.graph, layer), (rows, cols), 0)


def _map_kohonen_tops(project_name: str, context: LoweringContext, layer: Layer) -> list[LearnTop]:
    """A Kohonen top per map of a ReSOM or ReSOMMaps layer (none when its distance cannot learn)."""
    if layer.attributes['distance'] not in LEARNED_DISTANCES:
        return []
    tops, index = [], context.index[layer.name]
    for part, view in enumerate(map_parts(layer)):
        name = f'{layer.name}_map{part}'
        top = LearnTop('kohonen', layer.name, f'{project_name}_learn_{name}', f'learn_config{index}_map{part}', '')
        top.solution = name
        types = map_kohonen_types(context.graph, layer, part)
        tops.append(_fill_kohonen(top, context, layer, types, view.grid, part))
    return tops


def _fill_kohonen(
    top: LearnTop, context: LoweringContext, layer: Layer, types: KohonenTypes, grid: tuple[int, int], part: int
) -> LearnTop:
    """The config of a Kohonen step over `grid` reading input `part` of the layer."""
    rows, cols = grid
    n_in = context.graph.tensors[layer.inputs[part]].size
    top.base = 'nnet::kohonen_config'
    top.statics = [
        ('unsigned', 'n_in', str(n_in)),
        ('unsigned', 'n_units', str(rows * cols)),
        ('unsigned', 'n_rows', str(rows)),
        ('unsigned', 'n_cols', str(cols)),
        ('unsigned', 'distance', f'nnet::som_{layer.attributes["distance"]}'),
    ]
    top.typedefs = [
        (f'{var}_t', getattr(types, var).spelling(context.family))
        for var in ('accum', 'codebook', 'neighbourhood', 'rate', 'factor')
    ]
    top.inputs = [(context.input_type_name(layer, part), n_in)]
    top.state_size, top.grid = rows * cols * n_in, (rows, cols)
    top.summary = 'a Kohonen step of its codebook' if top.solution == layer.name else f'a Kohonen step of map {part}'
    return top


def _hebbian_top(project_name: str, context: LoweringContext, layer: Layer, impl: LayerImpl) -> LearnTop:
    types, attributes = hebbian_types(layer), layer.attributes
    index = context.index[layer.name]
    top = LearnTop(
        'hebbian', layer.name, f'{project_name}_learn_{layer.name}', f'learn_config{index}', 'nnet::hebbian_config'
    )
    n_x, n_y = attributes['n_units_x'], attributes['n_units_y']
    top.statics = [('unsigned', 'n_units_x', str(n_x)), ('unsigned', 'n_units_y', str(n_y))]
    top.typedefs = [
        (f'{var}_t', getattr(types, var).spelling(context.family)) for var in ('lateral', 'activity', 'rate')
    ]
    top.inputs = [
        (context.input_type_name(layer, side), context.graph.tensors[layer.inputs[side]].size) for side in (0, 1)
    ]
    top.state_size, top.summary = n_x * n_y, 'a Hebbian step of its lateral matrix'
    top.resom_struct = impl.struct
    top.resom_arrays = tuple(f'{prefix}{index}' for prefix in ('wx', 'wy', 'ax', 'ay'))
    missing = [name for name in top.resom_arrays if name not in impl.arguments]
    if missing:  # the ReSOM lowering renamed its arrays: say so rather than write a project that does not compile
        raise ValueError(f'{layer.describe()}: the learning top function cannot find the arrays {missing}')
    return top


def _hebbian_maps_top(project_name: str, context: LoweringContext, layer: Layer, impl: LayerImpl) -> LearnTop:
    """The Hebbian step of every pair matrix of a ReSOMMaps layer, reading the layer's codebooks and
    activity tables (wm, am) for the M maps' afferent activities."""
    types, units = hebbian_types(layer), tuple(layer.attributes['map_units'])
    index = context.index[layer.name]
    top = LearnTop(
        'hebbian_maps', layer.name, f'{project_name}_learn_{layer.name}', f'learn_config{index}', 'nnet::hebbian_config'
    )
    top.statics = [('unsigned', 'n_maps', str(len(units))), ('unsigned', 'n_units', str(sum(units)))]
    top.typedefs = [
        (f'{var}_t', getattr(types, var).spelling(context.family)) for var in ('lateral', 'activity', 'rate')
    ]
    top.inputs = [
        (context.input_type_name(layer, side), context.graph.tensors[name].size)
        for side, name in enumerate(layer.inputs)
    ]
    top.input_offsets = offsets(tuple(size for _, size in top.inputs))
    starts, state = offsets(units), 0
    for i, j in pairs(len(units)):
        top.pairs.append(PairStep(i, j, units[i], units[j], starts[i], starts[j], state))
        state += units[i] * units[j]
    top.state_size, top.summary = state, 'a Hebbian step of every pair matrix'
    top.resom_struct = impl.struct
    top.resom_arrays = (f'wm{index}', f'am{index}')
    missing = [name for name in top.resom_arrays if name not in impl.arguments]
    if missing:  # the ReSOMMaps lowering renamed its arrays: say so rather than write a project that does not compile
        raise ValueError(f'{layer.describe()}: the learning top function cannot find the arrays {missing}')
    return top
