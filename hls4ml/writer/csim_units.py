"""The C-simulation build split into compile units that g++ compiles in parallel and the cache keeps apart.

One translation unit per model made g++'s time grow with the model on one core, and any change
(one layer's precision, weights or reuse factor) recompiled everything. Here the simulation's source
tree (never the HLS project: the vendor tools see the files as written) gets, instead of the whole
`firmware/<project>.cpp`:

- `firmware/<project>_unit<k>.cpp`, k = 0, 1, ...: a layer with weights or tables with the layers
  around it that have none (`_partition`) as one function
  `<project>_unit<k>(ports..., trace_buffers)` holding the same kernel calls and trace hooks. Each
  declares only what its layers use (their typedefs, config structs, weight arrays and kernel
  headers, found by following identifiers), so its bytes, and its cached object, change only when
  one of its layers does;
- `firmware/<project>.cpp`: the top function calling the units in layer order, with the tensors
  that pass between units as its locals (arrays, or streams passed by reference).

The bridge is unchanged and includes the new top. What does not fit this shape stays one translation
unit (`split_units` returns None): other dialects than Vitis (oneAPI and Catapult differ in streams
and tasks), learning top functions (the learners' bridge includes the whole firmware), vendor
fixed-point headers, a single layer or a single core, the precompiled header turned off, or an array
that two units would both embed.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field

import jinja2

from hls4ml.backends.common.project import Port, ProjectContext, kernel_headers
from hls4ml.backends.common.records import LayerImpl
from hls4ml.csim.compiler import CompileUnit
from hls4ml.csim.precompiled import PCH_ENV

UNIT_TEMPLATE, TOP_TEMPLATE = 'common/csim_unit.cpp.j2', 'common/csim_top.cpp.j2'
LAYER_CONFIG_TEMPLATE = 'common/firmware/layer_config.j2'
IDENTIFIER = re.compile(r'[A-Za-z_]\w*')
# Units besides the bridge, at most: past this the cheapest neighbours merge. With the precompiled header
# (hls4ml/csim/precompiled.py) a unit still costs g++ about 0.1 s of its own: loading the header, the stream
# glue and the kernels' helpers of its types, compiled again in every unit. On cnn6_32x32x3_stream (7 units
# at 8) 5 units took g++ 1.43 s of CPU instead of 1.63-1.78 s and a cold compile 0.80 s instead of 0.91-1.03
# s on 2 cores (4: 1.31 s, 0.77 s), while a one-layer change compiles a unit of ~0.27 s instead of ~0.2 s.
MAX_UNITS = 5


@dataclass
class UnitContext:
    """What common/csim_unit.cpp.j2 prints for one unit (and the top declares)."""

    function: str
    layers: list[LayerImpl]
    parameters: list[tuple[Port, bool]] = field(default_factory=list)  # (port, is a model input: const)
    locals: list[Port] = field(default_factory=list)  # tensors made and used only inside the unit
    headers: list[str] = field(default_factory=list)
    typedefs: list[tuple[str, str]] = field(default_factory=list)
    structs: list[LayerImpl] = field(default_factory=list)
    arrays: list[str] = field(default_factory=list)
    # (helper, type name): the helpers of the model's most common type (`_share_helpers`), compiled once in
    # the top (`extern template` here)
    shared: list[tuple[str, str]] = field(default_factory=list)


def jobs() -> int:
    """The parallel compiles this process may run: the cores it may use (one core gains nothing from a split
    but cheaper changes, and pays for every unit)."""
    return max(1, len(os.sched_getaffinity(0)))


def splittable(project: ProjectContext, template_dir: str, external_includes: tuple) -> bool:
    """Whether the model's simulation is split: when it fits (see the module's docstring), there is more than
    one core, the precompiled header is on (each unit would otherwise parse every header again) and the model
    has at least two units' worth of layers; HLS4ML_CSIM_SPLIT=0 keeps every model one unit, =1 splits every
    model that fits."""
    choice = os.environ.get('HLS4ML_CSIM_SPLIT', '')
    simple = template_dir == 'vitis' and not project.learners and not external_includes
    if choice == '0' or not simple or len(project.layers) < 2:
        return False
    header = os.environ.get(PCH_ENV, '1') != '0'
    return choice == '1' or (jobs() > 1 and header and len(_partition(project.layers)) > 1)


def split_units(
    project: ProjectContext, environment: jinja2.Environment, firmware: str
) -> tuple[dict[str, bytes], list[CompileUnit]] | None:
    """(files that replace or join the simulation tree, the units besides the bridge), or None when the
    model stays one translation unit."""
    structs = {
        layer.struct: _identifiers(environment.get_template(LAYER_CONFIG_TEMPLATE).render(layer=layer))
        for layer in project.layers
    }
    groups = _partition(project.layers)
    if len(groups) < 2:  # HLS4ML_CSIM_SPLIT=1 on a model of one weighted layer: one layer per unit
        groups = [[layer] for layer in project.layers]
    units = [_unit(project, group, index, structs) for index, group in enumerate(groups)]
    embedded = [array for unit in units for array in unit.arrays]
    if len(embedded) != len(set(embedded)):
        return None
    instantiated = _share_helpers(project, units)
    files: dict[str, bytes] = {}
    compile_units = []
    for index, unit in enumerate(units):
        path = f'{firmware}/{project.project_name}_unit{index}.cpp'
        files[path] = environment.get_template(UNIT_TEMPLATE).render(p=project, unit=unit).encode()
        weights = [f'{firmware}/weights/{name}{suffix}' for name in unit.arrays for suffix in ('.h', '.bin')]
        compile_units.append(CompileUnit(path, (path, *weights), tuple(layer.name for layer in unit.layers)))
    top = _top_ports(project, units, instantiated)
    rendered = environment.get_template(TOP_TEMPLATE).render(p=project, units=units, **top)
    files[f'{firmware}/{project.project_name}.cpp'] = rendered.encode()
    return files, compile_units


def _identifiers(text: str) -> set[str]:
    return set(IDENTIFIER.findall(text))


def _costs(layers: list[LayerImpl]) -> list[int]:
    """A layer's share of g++'s time, roughly: one with weights or tables counts double."""
    return [2 if layer.arrays else 1 for layer in layers]


def _partition(layers: list[LayerImpl]) -> list[list[LayerImpl]]:
    """Consecutive layers in units: a unit holds one layer with weights or tables, the layers without that
    lead up to it and the one right after it (its activation, which reads its output type). A change to one
    layer's precision, weights or reuse factor then compiles its own unit again, not half the model. Past
    MAX_UNITS the neighbours of least cost merge."""
    groups: list[list[LayerImpl]] = [[]]
    after: int | None = None  # layers since the unit's layer with weights (None: it has none yet)
    for layer in layers:
        if after is not None and (layer.arrays or after >= 1):
            groups.append([])
            after = None
        groups[-1].append(layer)
        if layer.arrays:
            after = 0
        elif after is not None:
            after += 1
    while len(groups) > MAX_UNITS:
        costs = [sum(_costs(group)) for group in groups]
        pair = min(range(len(groups) - 1), key=lambda index: costs[index] + costs[index + 1])
        groups[pair : pair + 2] = [groups[pair] + groups[pair + 1]]
    return groups


def _unit(project: ProjectContext, layers: list[LayerImpl], index: int, structs: dict[str, set[str]]) -> UnitContext:
    unit = UnitContext(f'{project.project_name}_unit{index}', layers)
    members = {id(layer) for layer in layers}
    tasks = [task for task in project.tasks if id(task.layer) in members]
    made = {port.name: port for task in tasks for port in task.outputs}
    read = {port.name: port for task in tasks for port in task.inputs}
    used_later = _read_outside(project, members) | {port.name for port in project.outputs}
    inputs = {port.name for port in project.inputs}
    unit.parameters = [(port, port.name in inputs) for name, port in read.items() if name not in made]
    unit.parameters += [(port, False) for name, port in made.items() if name in used_later]
    unit.locals = [port for name, port in made.items() if name not in used_later]
    _declarations(project, unit, structs)
    return unit


def _read_outside(project: ProjectContext, members: set[int]) -> set[str]:
    return {port.name for task in project.tasks if id(task.layer) not in members for port in task.inputs}


def _declarations(project: ProjectContext, unit: UnitContext, structs: dict[str, set[str]]) -> None:
    """The typedefs, config structs, arrays and kernel headers the unit's code names, followed through
    what each of those names in turn."""
    typedefs = dict(project.typedefs)
    by_struct = {layer.struct: layer for layer in project.layers}
    arrays = {array.name: array for array in project.arrays}
    pending = set()
    for layer in unit.layers:
        pending |= _identifiers(' '.join([layer.struct, *layer.template_args, *layer.arguments]))
    for port, _ in unit.parameters:
        pending |= _identifiers(f'{port.type_name} {port.element}')
    for port in unit.locals:
        pending |= _identifiers(f'{port.type_name} {port.element}')
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in typedefs:
            pending |= _identifiers(typedefs[name])
        elif name in by_struct:
            pending |= structs[name]
        elif name in arrays:
            pending |= _identifiers(arrays[name].type_name)
    unit.typedefs = [(name, spelling) for name, spelling in project.typedefs if name in seen]
    unit.structs = [layer for layer in project.layers if layer.struct in seen]
    unit.arrays = [array.name for array in project.arrays if array.name in seen]
    unit.headers = kernel_headers(unit.structs, project.io_type)


def _share_helpers(project: ProjectContext, units: list[UnitContext]) -> list[tuple[str, str]]:
    """The out-of-line helpers of nnet_helpers.h made once per value type, `trace_values` and `load_constants`:
    each unit would compile those of its types again (they were a third of a CNN unit's g++ time). Sets each
    unit's `shared` helpers and returns them as (helper, type name) for the top to instantiate: the helpers
    of the model's most common type (by spelling: two typedef names may be one type), counted
    over all its typedefs. Not the types two units happen to share: one layer's new precision then leaves
    the other units' files, and their cached objects, as they were."""
    spellings = dict(project.typedefs)
    counts = Counter(spellings.values())
    common = max(sorted(counts), key=counts.__getitem__, default=None)
    if common is None or counts[common] < 2:
        return []
    by_name = {array.name: array for array in project.arrays}
    traced = {port.layer: port for port in project.traces}
    instantiated: dict[str, tuple[str, str]] = {}
    for unit in units:
        uses = [('load_constants', by_name[name].type_name) for name in unit.arrays]
        uses += [('trace_values', traced[layer.name].type_name) for layer in unit.layers if layer.name in traced]
        shared = {helper: (helper, name) for helper, name in sorted(uses) if spellings.get(name, name) == common}
        unit.shared = sorted(shared.values())
        for helper, use in shared.items():
            instantiated.setdefault(helper, use)
    return [instantiated[helper] for helper in sorted(instantiated)]


def _top_ports(project: ProjectContext, units: list[UnitContext], instantiated: list[tuple[str, str]]) -> dict:
    """The tensors the top declares (passed between units), the typedefs the top needs and the shared
    helpers it instantiates."""
    local_names = {port.name for unit in units for port in unit.locals}
    crossing = [port for port in project.intermediates if port.name not in local_names]
    names: set[str] = set()
    for port in [*project.inputs, *project.outputs, *crossing]:
        names |= _identifiers(f'{port.type_name} {port.element}')
    names |= {name for _, name in instantiated}  # typedefs of spelled fixed-point types: they name no others
    typedefs = [(name, spelling) for name, spelling in project.typedefs if name in names]
    return {'crossing': crossing, 'top_typedefs': typedefs, 'instantiated': instantiated}
