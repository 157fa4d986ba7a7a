"""What the C-simulation compiles of a written project: the bridge and firmware/ as written, the weights as
data, the precompiled header's prelude and, for a split build, the compile units (`csim_units.py`). Loaded
with the first `compile()`, so that converting and writing a model does not load the C-simulation."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from hls4ml.backends import get_backend
from hls4ml.backends.base import Backend
from hls4ml.backends.common.project import ProjectContext
from hls4ml.csim.compiler import CompileUnit, SourceTree, precompile_header
from hls4ml.csim.simulation import CSimInterface
from hls4ml.writer import STATIC_LIBRARIES, in_sources, static_library_files
from hls4ml.writer.csim_units import split_units, splittable
from hls4ml.writer.csim_weights import weights_as_data
from hls4ml.writer.templates import template_environment

CSIM_PRELUDE, CSIM_PRELUDE_TEMPLATE = 'csim_prelude.h', 'common/csim_prelude.h.j2'  # precompiled (csim/precompiled.py)


def _simulation_files(files: dict[str, bytes], project: ProjectContext, backend: Backend) -> dict[str, bytes]:
    """What the C-simulation compiles: the bridge and firmware/ as written, its weights as data."""
    firmware = in_sources(backend, 'firmware')
    bridge = in_sources(backend, f'{project.project_name}_bridge.cpp')
    sources = {path: content for path, content in files.items() if path == bridge or path.startswith(f'{firmware}/')}
    environment = template_environment(backend.template_dir)
    sources[f'{firmware}/{CSIM_PRELUDE}'] = csim_prelude(backend.template_dir)
    return weights_as_data(sources, project.arrays, environment, firmware)


@functools.cache
def csim_prelude(template_dir: str) -> bytes:
    """The precompiled header's source of a dialect: its fixed-point headers and every kernel header, so
    that one header serves every model (an extra declaration is only parsed: each kernel is a template that
    a model instantiates or not)."""
    headers = sorted(
        path.removeprefix('nnet_utils/')
        for path in static_library_files()
        if path.startswith('nnet_utils/nnet_') and path.count('/') == 1 and path.endswith('.h')
    )
    template = template_environment(template_dir).get_template(CSIM_PRELUDE_TEMPLATE)
    return template.render(headers=headers).encode()


def include_dirs(firmware: str) -> tuple[tuple[str, ...], tuple[Path, ...]]:
    """(folders of the project, folders elsewhere) on the include path: our fixed-point headers, or
    the vendor's when the user points to them (HLS4ML_AP_TYPES or XILINX_HLS)."""
    explicit = os.environ.get('HLS4ML_AP_TYPES')
    if explicit:
        return (), (Path(explicit),)
    vitis = os.environ.get('XILINX_HLS')
    if vitis and (Path(vitis) / 'include' / 'ap_fixed.h').exists():
        return (f'{firmware}/ap_types',), (Path(vitis) / 'include',)
    return (f'{firmware}/ap_types',), ()


def _source_tree(backend: Backend, files: dict[str, bytes], translation_unit: str, units: tuple = ()) -> SourceTree:
    firmware = in_sources(backend, 'firmware')
    internal, external = include_dirs(firmware)
    return SourceTree(
        files,
        translation_unit,
        internal,
        external,
        backend.csim_defines,
        prelude=f'{firmware}/{CSIM_PRELUDE}',
        library_dirs=tuple(sorted({f'{firmware}/{destination}' for _, destination in STATIC_LIBRARIES})),
        units=units,
    )


def precompile_headers(backend_names: tuple[str, ...] = ('Vitis', 'oneAPI', 'Catapult')) -> list[Path]:
    """Build each backend's precompiled header of the kernel library now (an install step, as
    `precompile_templates`; hls4ml/csim/precompiled.py); the folders they are in (a header g++ could not
    build is marked there and never used)."""
    built = []
    for name in backend_names:
        backend = get_backend(name)
        firmware = in_sources(backend, 'firmware')
        files = {f'{firmware}/{path}': content for path, content in static_library_files().items()}
        prelude = f'{firmware}/{CSIM_PRELUDE}'
        files[prelude] = csim_prelude(backend.template_dir)
        folder = precompile_header(_source_tree(backend, files, prelude))
        if folder is not None:
            built.append(folder)
    return built


def _split(simulation: dict[str, bytes], project: ProjectContext, backend: Backend) -> tuple:
    """The compile units of a split simulation build (hls4ml/writer/csim_units.py), the bridge last, with
    their sources added to `simulation`; none when the model stays one translation unit."""
    firmware = in_sources(backend, 'firmware')
    split = split_units(project, template_environment(backend.template_dir), firmware)
    if split is None:
        return ()
    simulation.update(split[0])
    bridge = in_sources(backend, f'{project.project_name}_bridge.cpp')
    return (*split[1], CompileUnit(bridge, (bridge, f'{firmware}/{project.project_name}.cpp'), ()))


def csim_interface(files: dict[str, bytes], project: ProjectContext, backend: Backend) -> CSimInterface:
    def ports(items: list) -> tuple:
        return tuple((port.layer, port.shape) for port in items)

    bridge = in_sources(backend, f'{project.project_name}_bridge.cpp')
    _, external = include_dirs(in_sources(backend, 'firmware'))
    simulation = _simulation_files(files, project, backend)
    units = _split(simulation, project, backend) if splittable(project, backend.template_dir, external) else ()
    sources = _source_tree(backend, simulation, bridge, units)
    return CSimInterface(
        project.project_name, sources, ports(project.inputs), ports(project.outputs), ports(project.traces)
    )
