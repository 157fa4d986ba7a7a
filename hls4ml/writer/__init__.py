"""Write a lowered project to disk: render the backend's Jinja2 templates, copy the C++ libraries.

Everything is computed and rendered in memory first, so a model that cannot be lowered leaves the
output directory untouched; then the files are written under the folder's lock, atomically and never
through a link (`files.py`). The output is deterministic: the same model and config give
byte-identical files. The C-simulation is compiled from the same in-memory files (`CSimInterface`),
not read back from the folder, so what is compiled is exactly what was rendered.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from hls4ml.backends import get_backend
from hls4ml.backends.base import WEIGHTS_TEMPLATE, Backend, Design
from hls4ml.backends.common.project import ProjectContext, lower_project
from hls4ml.backends.script_values import check_output_dir
from hls4ml.csim.compiler import CompileUnit, SourceTree, precompile_header
from hls4ml.csim.simulation import CSimInterface
from hls4ml.model.names import check_project_name
from hls4ml.writer.csim_units import split_units, splittable
from hls4ml.writer.csim_weights import weights_as_data
from hls4ml.writer.files import project_lock, remove_stale, write_files
from hls4ml.writer.templates import TEMPLATES, template_environment

STATIC_LIBRARIES = (  # (source folder under templates/, destination under firmware/)
    ('fixed', 'ap_types'),
    ('stream', 'ap_types'),
    ('nnet', 'nnet_utils'),
)
CSIM_PRELUDE, CSIM_PRELUDE_TEMPLATE = 'csim_prelude.h', 'common/csim_prelude.h.j2'  # precompiled (csim/precompiled.py)


def render_project(design: Design, project: ProjectContext) -> dict[str, str]:
    """Relative path -> file content for every generated file."""
    backend = design.backend
    environment = template_environment(backend.template_dir)
    name = project.project_name
    templates = {**backend.project_files(), **(backend.learn_files() if project.learners else {})}
    files = {path.format(name=name): template for path, template in templates.items()}
    rendered = {
        _in_sources(backend, path): environment.get_template(template).render(p=project)
        for path, template in files.items()
    }
    array_template = environment.get_template(WEIGHTS_TEMPLATE)
    for array in project.arrays:
        rendered[_in_sources(backend, f'firmware/weights/{array.name}.h')] = array_template.render(a=array)
    rendered['hls4ml_config.yml'] = _config_yaml(design.config)
    return rendered


def _in_sources(backend: Backend, path: str) -> str:
    """Sources (firmware/, the bridge, the testbench) sit in the backend's source folder (oneAPI: src/)."""
    sources = path.startswith('firmware') or path.endswith(('_bridge.cpp', '_test.cpp'))
    return f'{backend.source_dir}/{path}' if backend.source_dir and sources else path


MODEL_KEYS = ('KerasModel', 'PytorchModel', 'OnnxModel')


def _config_yaml(config: Mapping[str, Any]) -> str:
    """The project configuration, with the framework model replaced by its description (a path stays)."""
    serialisable = dict(config)
    for key in MODEL_KEYS:
        model = config.get(key)
        if model is not None and not isinstance(model, str):
            serialisable[key] = f'<{key} {type(model).__name__} {getattr(model, "name", "") or ""}>'.replace(' >', '>')
    if isinstance(serialisable.get('InputShape'), (tuple, list)):
        serialisable['InputShape'] = _plain(serialisable['InputShape'])
    return yaml.safe_dump(serialisable, sort_keys=True, default_flow_style=False)


def _plain(shape: Any) -> Any:
    """Tuples (possibly nested in a list) as lists, which safe_dump writes."""
    return [_plain(item) for item in shape] if isinstance(shape, (tuple, list)) else shape


def check_project_names(design: Design) -> Path:
    """The output folder, after the project name and the folder are checked (nothing is written yet)."""
    check_project_name(design.project_name)
    output_dir = Path(check_output_dir(design.output_dir))
    if output_dir.exists() and not output_dir.is_dir():
        raise ValueError(f'output_dir {str(output_dir)!r} exists and is not a directory')
    return output_dir


@dataclass(frozen=True)
class WrittenProject:
    """A project on disk and what the C-simulation compiles (the same bytes, kept in memory; made when first
    asked for, as `write()` alone does not compile)."""

    path: Path
    files: dict[str, bytes] = field(repr=False)
    project: ProjectContext = field(repr=False)
    backend: Backend = field(repr=False)

    @functools.cached_property
    def csim(self) -> CSimInterface:
        return _interface(self.files, self.project, self.backend)


def write_project(design: Design) -> WrittenProject:
    """Lower, render and write the project of a converted model; returns where it is and what the
    C-simulation compiles."""
    output_dir = check_project_names(design)
    project = lower_project(design)
    files = {path: content.encode() for path, content in render_project(design, project).items()}
    files.update({path: content.encode() for path, content in _testbench_data(design.config, project).items()})
    firmware = _in_sources(design.backend, 'firmware')
    files.update({f'{firmware}/{path}': content for path, content in static_library_files().items()})
    weights = {path.rsplit('/', 1)[1] for path in files if path.startswith(f'{firmware}/weights/')}
    with project_lock(output_dir):
        write_files(output_dir, files)
        remove_stale(output_dir / firmware / 'weights', weights)
    return WrittenProject(output_dir, files, project, design.backend)


def _simulation_files(files: dict[str, bytes], project: ProjectContext, backend: Backend) -> dict[str, bytes]:
    """What the C-simulation compiles: the bridge and firmware/ as written, its weights as data."""
    firmware = _in_sources(backend, 'firmware')
    bridge = _in_sources(backend, f'{project.project_name}_bridge.cpp')
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


@functools.cache
def static_library_files() -> dict[str, bytes]:
    """The C++ libraries every project carries (path under firmware/ -> content), read once per process."""
    files = {}
    for source, destination in STATIC_LIBRARIES:
        root = TEMPLATES / source
        for path in sorted(root.rglob('*')):
            if path.is_file():
                files[f'{destination}/{path.relative_to(root).as_posix()}'] = path.read_bytes()
    return files


def _testbench_data(config: Mapping[str, Any], project: ProjectContext) -> dict[str, str]:
    files = {}
    for key, name in (
        ('InputData', 'tb_input_features.dat'),
        ('OutputPredictions', 'tb_output_predictions.dat'),
    ):
        source = config.get(key)
        if source is None:
            continue
        values = np.load(source) if str(source).endswith('.npy') else np.loadtxt(source, ndmin=2)
        rows = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
        files[f'tb_data/{name}'] = ''.join(' '.join(repr(float(v)) for v in row) + '\n' for row in rows)
    return files


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
    firmware = _in_sources(backend, 'firmware')
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
        firmware = _in_sources(backend, 'firmware')
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
    firmware = _in_sources(backend, 'firmware')
    split = split_units(project, template_environment(backend.template_dir), firmware)
    if split is None:
        return ()
    simulation.update(split[0])
    bridge = _in_sources(backend, f'{project.project_name}_bridge.cpp')
    return (*split[1], CompileUnit(bridge, (bridge, f'{firmware}/{project.project_name}.cpp'), ()))


def _interface(files: dict[str, bytes], project: ProjectContext, backend: Backend) -> CSimInterface:
    def ports(items: list) -> tuple:
        return tuple((port.layer, port.shape) for port in items)

    bridge = _in_sources(backend, f'{project.project_name}_bridge.cpp')
    _, external = include_dirs(_in_sources(backend, 'firmware'))
    simulation = _simulation_files(files, project, backend)
    units = _split(simulation, project, backend) if splittable(project, backend.template_dir, external) else ()
    sources = _source_tree(backend, simulation, bridge, units)
    return CSimInterface(
        project.project_name, sources, ports(project.inputs), ports(project.outputs), ports(project.traces)
    )
