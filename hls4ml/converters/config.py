"""The hls4ml 1.x configuration dictionaries every frontend starts from: `create_config` (the project: names
and the backend's settings) and `config_from_graph` (the HLSConfig of a converted graph, at the granularity
asked for). The framework entry points `config_from_<framework>_model` are in `hls4ml.utils.config`.
"""

from __future__ import annotations

import warnings
from typing import Any

from hls4ml.backends import get_backend, script_values
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import IMPLEMENTATIONS, LAYER_KINDS
from hls4ml.model.names import check_project_name
from hls4ml.model.types import parse_precision

GRANULARITIES = ('model', 'type', 'name')
BRAM_FACTOR = 1_000_000_000


def create_config(
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    backend: str = 'Vivado',
    version: str = '1.0.0',
    **kwargs: Any,
) -> dict[str, Any]:
    """The top-level project dictionary: names, then the backend's own settings (part, clock, IO type).
    Every value that reaches a build script or the file system is checked here (backends/script_values.py)."""
    chosen = get_backend(backend)
    config: dict[str, Any] = {
        'OutputDir': script_values.check_output_dir(output_dir),
        'ProjectName': check_project_name(project_name),
        'Backend': chosen.name,
        'Version': version,
    }
    settings, unknown = chosen.create_initial_config(**kwargs)
    if unknown:
        warnings.warn(
            f'{chosen.name} backend: ignoring unknown keyword argument(s) {", ".join(sorted(unknown))}',
            UserWarning,
            stacklevel=3,
        )
    config.update(settings)
    return config


def _model_entry(default_precision: str, default_reuse_factor: int, max_precision: str | None) -> dict[str, Any]:
    parse_precision(default_precision, 'default_precision')
    precision: dict[str, str] = {'default': default_precision}
    if max_precision is not None:
        parse_precision(max_precision, 'max_precision')
        precision['maximum'] = max_precision
    return {
        'Precision': precision,
        'ReuseFactor': default_reuse_factor,
        'Strategy': 'Latency',
        'BramFactor': BRAM_FACTOR,
        'TraceOutput': False,
    }


def layer_entry(kind_name: str, default_reuse_factor: int) -> dict[str, Any]:
    """What `granularity='type'|'name'` lists for one layer kind: every knob with its default."""
    kind = LAYER_KINDS[kind_name]
    entry: dict[str, Any] = {'Trace': False, 'Precision': dict(kind.type_defaults)}
    if 'ReuseFactor' in kind.config_keys:
        entry['ReuseFactor'] = default_reuse_factor
    if 'TableSize' in kind.config_keys:
        entry['TableSize'] = 1024
    if 'Implementation' in kind.config_keys:
        entry['Implementation'] = IMPLEMENTATIONS[kind_name][0]
    if 'Skip' in kind.config_keys:
        entry['Skip'] = False
    if 'RecurrentReuseFactor' in kind.config_keys:  # recurrent layers, as hls4ml 1.x lists them
        entry['RecurrentReuseFactor'] = default_reuse_factor
        entry['Static'] = True
    return entry


def _named_entry(layer: Layer, default_reuse_factor: int) -> dict[str, Any]:
    """`layer_entry`, listing the types a frontend preset (quantized models: exact types, HGQ2's tables)
    instead of the kind's defaults: a listed type wins over a preset one, so the defaults would replace them."""
    entry = layer_entry(layer.kind, default_reuse_factor)
    for var, precision in layer.types.items():
        if var in entry['Precision']:
            entry['Precision'][var] = str(precision)
    return entry


def config_from_graph(
    graph: Graph,
    granularity: str,
    default_precision: str,
    default_reuse_factor: int,
    max_precision: str | None,
) -> dict[str, Any]:
    granularity = granularity.lower() if isinstance(granularity, str) else granularity  # tutorials write 'Model'
    if granularity not in GRANULARITIES:
        raise ValueError(f'granularity must be one of {", ".join(GRANULARITIES)}, got {granularity!r}')
    config: dict[str, Any] = {'Model': _model_entry(default_precision, default_reuse_factor, max_precision)}
    if granularity == 'type':
        config['LayerType'] = {
            layer.kind: layer_entry(layer.kind, default_reuse_factor) for layer in graph.layers.values()
        }
    elif granularity == 'name':
        config['LayerName'] = {layer.name: _named_entry(layer, default_reuse_factor) for layer in graph.layers.values()}
    return config
