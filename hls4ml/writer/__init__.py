"""Write a lowered project to disk: render the backend's Jinja2 templates, copy the C++ libraries.

Everything is computed and rendered in memory first, so a model that cannot be lowered leaves the
output directory untouched; then the files are written under the folder's lock, atomically and never
through a link (`files.py`). The output is deterministic: the same model and config give
byte-identical files. The C-simulation is compiled from the same in-memory files (`CSimInterface`),
not read back from the folder, so what is compiled is exactly what was rendered.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hls4ml.backends.base import WEIGHTS_TEMPLATE, Backend, Design
from hls4ml.backends.common.project import ProjectContext, lower_project
from hls4ml.backends.script_values import check_output_dir
from hls4ml.model.lazy import lazy_exports
from hls4ml.model.names import check_project_name
from hls4ml.writer.config_yaml import config_yaml
from hls4ml.writer.files import project_lock, remove_stale, write_files
from hls4ml.writer.templates import TEMPLATES, template_environment

if TYPE_CHECKING:
    from hls4ml.csim.simulation import CSimInterface
    from hls4ml.writer.csim_sources import precompile_headers as precompile_headers

STATIC_LIBRARIES = (  # (source folder under templates/, destination under firmware/)
    ('fixed', 'ap_types'),
    ('stream', 'ap_types'),
    ('nnet', 'nnet_utils'),
)


def render_project(design: Design, project: ProjectContext) -> dict[str, str]:
    """Relative path -> file content for every generated file."""
    backend = design.backend
    environment = template_environment(backend.template_dir)
    name = project.project_name
    templates = {**backend.project_files(), **(backend.learn_files() if project.learners else {})}
    files = {path.format(name=name): template for path, template in templates.items()}
    rendered = {
        in_sources(backend, path): environment.get_template(template).render(p=project)
        for path, template in files.items()
    }
    array_template = environment.get_template(WEIGHTS_TEMPLATE)
    for array in project.arrays:
        rendered[in_sources(backend, f'firmware/weights/{array.name}.h')] = array_template.render(a=array)
    rendered['hls4ml_config.yml'] = _config_yaml(design.config)
    return rendered


def in_sources(backend: Backend, path: str) -> str:
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
    return config_yaml(serialisable)


def _plain(shape: Any) -> Any:
    """Tuples (possibly nested in a list) as lists, which the YAML holds."""
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
        from hls4ml.writer.csim_sources import csim_interface

        return csim_interface(self.files, self.project, self.backend)


def write_project(design: Design) -> WrittenProject:
    """Lower, render and write the project of a converted model; returns where it is and what the
    C-simulation compiles."""
    output_dir = check_project_names(design)
    project = lower_project(design)
    files = {path: content.encode() for path, content in render_project(design, project).items()}
    files.update({path: content.encode() for path, content in _testbench_data(design.config, project).items()})
    firmware = in_sources(design.backend, 'firmware')
    files.update({f'{firmware}/{path}': content for path, content in static_library_files().items()})
    weights = {path.rsplit('/', 1)[1] for path in files if path.startswith(f'{firmware}/weights/')}
    with project_lock(output_dir):
        write_files(output_dir, files)
        remove_stale(output_dir / firmware / 'weights', weights)
    return WrittenProject(output_dir, files, project, design.backend)


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


__getattr__ = lazy_exports(
    __name__, {'precompile_headers': 'csim_sources'}
)  # the C-simulation's part loads on first use
