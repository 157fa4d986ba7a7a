"""Write a lowered project to disk: render the backend's Jinja2 templates, copy the C++ libraries.

Everything is computed and rendered in memory first, so a model that cannot be lowered leaves the
output directory untouched. The output is deterministic: the same model and config give
byte-identical files.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import yaml

from hls4ml.backends.base import WEIGHTS_TEMPLATE
from hls4ml.backends.common.project import ProjectContext, lower_project
from hls4ml.converters.names import CPP_KEYWORDS
from hls4ml.csim.simulation import CSimInterface

TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'
IDENTIFIER = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
RESERVED_NAMESPACES = ('nnet', 'hls', 'std', 'hls4ml_fixed')  # namespaces the generated code uses
STATIC_LIBRARIES = (  # (source folder under templates/, destination under firmware/)
    ('fixed', 'ap_types'),
    ('stream', 'ap_types'),
    ('nnet', 'nnet_utils'),
)


@functools.cache
def _environment(backend_dir: str) -> jinja2.Environment:
    """One environment per backend and process: its own folder first (`dialect.j2`, its project files),
    then templates/ (so `common/...` names the shared templates). Compiled templates are also kept on
    disk between runs."""
    bytecode = Path(os.environ.get('HLS4ML_CACHE_DIR') or Path.home() / '.cache' / 'hls4ml') / 'jinja'
    bytecode.mkdir(parents=True, exist_ok=True)
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES / backend_dir), str(TEMPLATES)]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(bytecode)),
    )


def render_project(model: Any, project: ProjectContext) -> dict[str, str]:
    """Relative path -> file content for every generated file."""
    backend = model.backend
    environment = _environment(backend.template_dir)
    name = project.project_name
    files = {path.format(name=name): template for path, template in backend.project_files().items()}
    rendered = {
        _in_sources(backend, path): environment.get_template(template).render(p=project)
        for path, template in files.items()
    }
    array_template = environment.get_template(WEIGHTS_TEMPLATE)
    for array in project.arrays:
        rendered[_in_sources(backend, f'firmware/weights/{array.name}.h')] = array_template.render(a=array)
    rendered['hls4ml_config.yml'] = _config_yaml(model.config)
    return rendered


def _in_sources(backend: Any, path: str) -> str:
    """Sources (firmware/, the bridge, the testbench) sit in the backend's source folder (oneAPI: src/)."""
    sources = path.startswith('firmware') or path.endswith(('_bridge.cpp', '_test.cpp'))
    return f'{backend.source_dir}/{path}' if backend.source_dir and sources else path


MODEL_KEYS = ('KerasModel', 'PytorchModel', 'OnnxModel')


def _config_yaml(config: dict[str, Any]) -> str:
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


def check_project_names(model: Any) -> Path:
    name = model.project_name
    if not IDENTIFIER.fullmatch(name) or name in CPP_KEYWORDS or name in RESERVED_NAMESPACES:
        raise ValueError(
            f'project_name {name!r} must be a C++ identifier that is neither a keyword nor one of '
            f'the namespaces {", ".join(RESERVED_NAMESPACES)} '
            '(letters, digits and _, not starting with a digit)'
        )
    output_dir = Path(model.output_dir)
    if output_dir.exists() and not output_dir.is_dir():
        raise ValueError(f'output_dir {str(output_dir)!r} exists and is not a directory')
    return output_dir


def write_project(model: Any) -> Path:
    output_dir = check_project_names(model)
    project = lower_project(model)
    rendered = render_project(model, project)
    tb_data = _testbench_data(model.config, project)
    firmware = output_dir / _in_sources(model.backend, 'firmware')
    shutil.rmtree(firmware / 'weights', ignore_errors=True)
    for relative, content in rendered.items():
        _write_if_changed(output_dir / relative, content)
    for relative, content in tb_data.items():
        _write_if_changed(output_dir / relative, content)
    for source, destination in STATIC_LIBRARIES:
        shutil.copytree(TEMPLATES / source, firmware / destination, dirs_exist_ok=True)
    model.csim_interface = _interface(output_dir.resolve(), firmware.resolve(), project, model.backend)
    return output_dir


def _write_if_changed(path: Path, content: str) -> None:
    """Leave identical files alone, so their timestamps (and tools watching them) do not change."""
    if path.exists() and path.read_text() == content:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def _testbench_data(config: dict[str, Any], project: ProjectContext) -> dict[str, str]:
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


def include_dirs(firmware: Path) -> tuple[Path, ...]:
    """Our fixed-point headers, or the vendor's when the user points to them (HLS4ML_AP_TYPES or XILINX_HLS)."""
    explicit = os.environ.get('HLS4ML_AP_TYPES')
    if explicit:
        return (Path(explicit),)
    vitis = os.environ.get('XILINX_HLS')
    if vitis and (Path(vitis) / 'include' / 'ap_fixed.h').exists():
        return (Path(vitis) / 'include', firmware / 'ap_types')
    return (firmware / 'ap_types',)


def _interface(output_dir: Path, firmware: Path, project: ProjectContext, backend: Any) -> CSimInterface:
    def ports(items: list) -> tuple:
        return tuple((port.layer, port.shape) for port in items)

    return CSimInterface(
        project.project_name,
        output_dir / _in_sources(backend, f'{project.project_name}_bridge.cpp'),
        include_dirs(firmware),
        ports(project.inputs),
        ports(project.outputs),
        ports(project.traces),
        hashed_dirs=(firmware,),
        defines=backend.csim_defines,
    )
