"""Entry points with hls4ml 1.x names and defaults: framework model -> `ModelGraph`."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from hls4ml.model.graph import ModelGraph
from hls4ml.utils.config import create_config

HLS_CONFIG_KEYS = ('Model', 'LayerType', 'LayerName')


def _hls_section(hls_config: dict[str, Any] | None) -> dict[str, Any]:
    """The HLSConfig part with the Model defaults filled in (only filled: given values stay)."""
    hls_config = copy.deepcopy(hls_config or {})
    unknown = sorted(set(hls_config) - set(HLS_CONFIG_KEYS) - {'Flows', 'Optimizers', 'SkipOptimizers'})
    if unknown:
        raise ValueError(f'hls_config: unknown key {unknown[0]!r}; expected {", ".join(HLS_CONFIG_KEYS)}')
    for key in ('Flows', 'Optimizers', 'SkipOptimizers'):
        if hls_config.get(key):
            raise ValueError(f'hls_config[{key!r}] is not supported: the conversion flow is fixed in this version')
        hls_config.pop(key, None)
    model = hls_config.setdefault('Model', {})
    model.setdefault('Precision', 'fixed<16,6>')
    model.setdefault('ReuseFactor', 1)
    return hls_config


def convert_from_keras_model(
    model: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    input_data_tb: str | None = None,
    output_data_tb: str | None = None,
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    bit_exact: bool | None = None,
    **kwargs: Any,
) -> ModelGraph:
    """Convert a Keras 3 model (Sequential or functional). Nothing is written until write()/compile()."""
    from hls4ml.converters.keras import parse_keras_model

    if bit_exact:
        raise ValueError('bit_exact=True is not supported yet (it needs quantized models)')
    config = create_config(output_dir, project_name, backend, **kwargs)
    config['KerasModel'] = model
    config['InputData'] = input_data_tb
    config['OutputPredictions'] = output_data_tb
    config['HLSConfig'] = _hls_section(hls_config)
    graph, origin = parse_keras_model(model)
    return ModelGraph(config, graph, origin)


def parse_yaml_config(path: str | Path) -> dict[str, Any]:
    with open(path) as handle:
        loaded = yaml.safe_load(handle)
    if not isinstance(loaded, dict):
        raise ValueError(f'{path}: a YAML mapping of config keys is expected')
    return loaded


def convert_from_config(config: str | Path | dict[str, Any]) -> ModelGraph:
    """Convert from a YAML file or dict: `KerasModel` (a model or a `.keras`/`.h5` path), OutputDir,
    ProjectName, Backend, Part, ClockPeriod, IOType, HLSConfig, InputData, OutputPredictions."""
    import keras

    settings = parse_yaml_config(config) if isinstance(config, (str, Path)) else dict(config)
    model = settings.get('KerasModel') or settings.get('KerasH5')
    if model is None:
        supported = 'KerasModel or KerasH5 (PytorchModel and OnnxModel arrive with their frontends)'
        raise ValueError(f'the config names no model; expected {supported}')
    if isinstance(model, (str, Path)):
        model = keras.models.load_model(model)
    keywords = {
        'output_dir': settings.get('OutputDir', 'my-hls-test'),
        'project_name': settings.get('ProjectName', 'myproject'),
        'backend': settings.get('Backend', 'Vivado'),
        'input_data_tb': settings.get('InputData'),
        'output_data_tb': settings.get('OutputPredictions'),
        'hls_config': settings.get('HLSConfig'),
    }
    for key, keyword in (
        ('Part', 'part'),
        ('ClockPeriod', 'clock_period'),
        ('ClockUncertainty', 'clock_uncertainty'),
        ('IOType', 'io_type'),
    ):
        if key in settings:
            keywords[keyword] = settings[key]
    return convert_from_keras_model(model, **keywords)
