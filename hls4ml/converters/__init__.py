"""Entry points with hls4ml 1.x names and defaults: framework model -> `ModelGraph`."""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hls4ml.api import ModelGraph
from hls4ml.converters import guard
from hls4ml.converters.config import create_config
from hls4ml.model.config import HLSConfig, check_sections
from hls4ml.model.ir import Graph
from hls4ml.model.lazy import lazy_exports

if TYPE_CHECKING:
    from hls4ml.converters.resom import convert_from_resom as convert_from_resom
    from hls4ml.converters.som import config_from_minisom as config_from_minisom
    from hls4ml.converters.som import convert_from_minisom as convert_from_minisom

# the self-organising maps' entry points load with their first use
__getattr__ = lazy_exports(
    __name__,
    {'convert_from_resom': 'resom', 'config_from_minisom': 'som', 'convert_from_minisom': 'som'},
)

HLS_CONFIG_KEYS = ('Model', 'LayerType', 'LayerName')
FRAMEWORK_KEYS = ('InputShape', 'PytorchModel', 'OnnxModel')  # what config_from_<framework>_model adds


def _hls_section(hls_config: dict[str, Any] | None) -> dict[str, Any]:
    """The HLSConfig part with the Model defaults filled in (only filled: given values stay), without
    the keys `config_from_<framework>_model` adds for the converter (the model itself is never copied).
    Every value is checked here, before a frontend reads the layout options."""
    check_sections(hls_config)
    hls_config = {key: value for key, value in (hls_config or {}).items() if key not in FRAMEWORK_KEYS}
    hls_config = copy.deepcopy(hls_config)
    top_strategy = hls_config.pop('Strategy', None)  # where some 1.x scripts put it (1.x reads it nowhere)
    unknown = sorted(set(hls_config) - set(HLS_CONFIG_KEYS) - {'Flows', 'Optimizers', 'SkipOptimizers'})
    if unknown:
        raise ValueError(f'hls_config: unknown key {unknown[0]!r}; expected {", ".join(HLS_CONFIG_KEYS)}')
    for key in ('Flows', 'Optimizers', 'SkipOptimizers'):
        if hls_config.get(key):
            raise ValueError(f'hls_config[{key!r}] is not supported: the conversion flow is fixed in this version')
        hls_config.pop(key, None)
    model = hls_config['Model'] = hls_config.get('Model') or {}
    model.setdefault('Precision', 'fixed<16,6>')
    model.setdefault('ReuseFactor', 1)
    if top_strategy is not None:
        model.setdefault('Strategy', top_strategy)  # what its writer meant; Model's own Strategy wins
    HLSConfig(hls_config)
    return hls_config


def _project_config(
    model_key: str,
    model: Any,
    hls_config: dict[str, Any] | None,
    names: tuple[str, str, str],
    testbench: tuple[str | None, str | None],
    kwargs: dict,
) -> dict[str, Any]:
    """The project dictionary: names and backend settings, the framework model under `model_key`, the
    testbench data files and the HLSConfig section."""
    config = create_config(*names, **kwargs)
    config[model_key] = model
    config['InputData'], config['OutputPredictions'] = testbench
    config['HLSConfig'] = _hls_section(hls_config)
    return config


def convert_from_keras_model(
    model: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    input_data_tb: str | None = None,
    output_data_tb: str | None = None,
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    bit_exact: bool | None = None,
    check_conversion: bool = True,
    **kwargs: Any,
) -> ModelGraph:
    """Convert a Keras 3 model (Sequential or functional). Nothing is written until write()/compile().
    `check_conversion` runs the guard against silent misconversion (`hls4ml.converters.guard`)."""
    from hls4ml.converters.keras import parse_keras_model

    if bit_exact:
        raise ValueError('bit_exact=True is not supported yet (it needs quantized models)')
    config = _project_config(
        'KerasModel', model, hls_config, (output_dir, project_name, backend), (input_data_tb, output_data_tb), kwargs
    )
    graph, origin = parse_keras_model(model)
    return _guarded(config, graph, origin, guard.keras_runner(model) if check_conversion else None)


def _guarded(
    config: dict[str, Any],
    graph: Graph,
    origin: dict[str, str],
    runner: guard.FrameworkRunner | None,
    layouts: guard.Layouts | None = None,
) -> ModelGraph:
    """The ModelGraph of `graph`, checked against the framework model by the guard unless `runner` is None."""
    presets = guard.Presets.of(graph)  # before the config and the passes change the graph
    hls_model = ModelGraph(config, graph, origin)
    if runner is not None:
        guard.check_conversion(hls_model, runner, presets, layouts or guard.Layouts())
    return hls_model


def _layout_options(hls_section: dict[str, Any]) -> tuple[str, bool]:
    model = hls_section.get('Model', {})
    return model.get('ChannelsLastConversion', 'full'), bool(model.get('TransposeOutputs', False))


def _guard_layouts(channels_last_conversion: str, transpose_outputs: bool) -> guard.Layouts:
    """Where the IR layout differs from PyTorch's / ONNX's (see `hls4ml.converters.builder`)."""
    outputs_moved = channels_last_conversion != 'off' and not transpose_outputs
    return guard.Layouts(channels_last_conversion == 'internal', outputs_moved)


def convert_from_pytorch_model(
    model: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    input_data_tb: str | None = None,
    output_data_tb: str | None = None,
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    check_conversion: bool = True,
    **kwargs: Any,
) -> ModelGraph:
    """Convert a `torch.nn.Module` traced with torch.fx. The input shape (without the batch axis)
    comes from `hls_config['InputShape']`, which `config_from_pytorch_model` fills in; a list of
    tuples for several inputs. The layout options are `hls_config['Model']['ChannelsLastConversion']`
    ('full', 'internal', 'off') and `['TransposeOutputs']`. `check_conversion`: as for Keras."""
    from hls4ml.converters.pytorch import parse_pytorch_model

    input_shape = (hls_config or {}).get('InputShape')
    if input_shape is None:
        raise ValueError(
            "hls_config['InputShape'] is missing: PyTorch models do not record their input shape; "
            'create the config with hls4ml.utils.config_from_pytorch_model(model, input_shape=...)'
        )
    config = _project_config(
        'PytorchModel', model, hls_config, (output_dir, project_name, backend), (input_data_tb, output_data_tb), kwargs
    )
    config['InputShape'] = input_shape
    options = _layout_options(config['HLSConfig'])
    graph, origin = parse_pytorch_model(model, input_shape, *options)
    runner = guard.pytorch_runner(model) if check_conversion else None
    return _guarded(config, graph, origin, runner, _guard_layouts(*options))


def convert_from_onnx_model(
    model: Any,
    output_dir: str = 'my-hls-test',
    project_name: str = 'myproject',
    input_data_tb: str | None = None,
    output_data_tb: str | None = None,
    backend: str = 'Vivado',
    hls_config: dict[str, Any] | None = None,
    bit_exact: bool | None = None,
    check_conversion: bool = True,
    **kwargs: Any,
) -> ModelGraph:
    """Convert an ONNX or QONNX model (a `ModelProto`, a qonnx `ModelWrapper` or a file path). The
    qonnx clean-up (shape inference, constant folding) runs here; QONNX quantizers become exact
    fixed-point types, so `bit_exact` (hls4ml 1.x) changes nothing. Layout options as for PyTorch
    (`hls_config['Model']['ChannelsLastConversion']`). `check_conversion`: as for Keras."""
    from hls4ml.converters.onnx import parse_onnx_model

    config = _project_config(
        'OnnxModel', model, hls_config, (output_dir, project_name, backend), (input_data_tb, output_data_tb), kwargs
    )
    options = _layout_options(config['HLSConfig'])
    graph, origin = parse_onnx_model(model, *options)
    runner = guard.onnx_runner(model) if check_conversion and not _carries_nn_ops(model) else None
    return _guarded(config, graph, origin, runner, _guard_layouts(*options))


def _carries_nn_ops(model: Any) -> bool:
    """hls4ml.nn layers (custom ops) in an ONNX model: onnxruntime cannot run them, so nothing checks the
    conversion against it (docs/frontends.md)."""
    from hls4ml.converters.onnx.custom_ops import carries_custom_ops
    from hls4ml.converters.onnx.model import load_model

    return carries_custom_ops(load_model(model).graph)


def parse_yaml_config(path: str | Path) -> dict[str, Any]:
    import yaml

    with open(path) as handle:
        loaded = yaml.safe_load(handle)
    if not isinstance(loaded, dict):
        raise ValueError(f'{path}: a YAML mapping of config keys is expected')
    return loaded


# The top-level YAML keys of the backends (hls4ml 1.x names) and their create_initial_config keywords;
# a key the chosen backend does not take is refused by it, as the keyword would be.
BACKEND_KEYS = (
    ('Part', 'part'),
    ('ClockPeriod', 'clock_period'),
    ('ClockUncertainty', 'clock_uncertainty'),
    ('IOType', 'io_type'),
    ('HyperoptHandshake', 'hyperopt_handshake'),  # oneAPI
    ('Technology', 'tech'),  # Catapult
    ('ASICLibs', 'asiclibs'),
    ('FIFO', 'fifo'),
)
WRITER_KEYS = (
    ('Namespace', 'namespace'),
    ('WriteWeightsTxt', 'write_weights_txt'),
    ('WriteTar', 'write_tar'),
    ('TBOutputStream', 'tb_output_stream'),
    ('WriteEmulationConstants', 'write_emulation_constants'),  # Vitis
)
NAME_KEYS = (
    ('OutputDir', 'output_dir'),
    ('ProjectName', 'project_name'),
    ('Backend', 'backend'),
    ('Version', 'version'),
    ('InputData', 'input_data_tb'),
    ('OutputPredictions', 'output_data_tb'),
    ('HLSConfig', 'hls_config'),
)
# Top-level keys hls4ml 1.x reads or writes that change nothing here: a warning names them.
IGNORED_KEYS = ('ProjectDir', 'MaximumSize', 'Stamp', 'InputShapes', 'OutputShapes', 'AcceleratorConfig')
KNOWN_KEYS = (
    *(key for key, _ in NAME_KEYS),
    *(key for key, _ in BACKEND_KEYS),
    'WriterConfig',
    'KerasModel',
    'KerasH5',
    *FRAMEWORK_KEYS,
)


def check_top_level_keys(settings: dict[str, Any]) -> None:
    """An unknown top-level key is an error naming the known ones (a typo such as `ClockPeriode` would
    otherwise be dropped); the keys hls4ml 1.x has that change nothing here are warned about."""
    if 'KerasJson' in settings:
        raise ValueError(
            'KerasJson (a Keras 2 JSON architecture with KerasH5 weights) is not supported: save the model as '
            'one .keras file and name it with KerasModel'
        )
    unknown = [key for key in settings if key not in KNOWN_KEYS and key not in IGNORED_KEYS]
    if unknown:
        raise ValueError(
            f'config: unknown top-level key(s) {", ".join(map(repr, unknown))}; the keys are {", ".join(KNOWN_KEYS)}'
        )
    ignored = [key for key in settings if key in IGNORED_KEYS]
    if ignored:
        warnings.warn(f'config: ignoring the hls4ml 1.x key(s) {", ".join(ignored)}', UserWarning, stacklevel=3)
    writer = settings.get('WriterConfig') or {}
    if not isinstance(writer, dict):
        raise ValueError(f'config: WriterConfig must be a mapping of {", ".join(k for k, _ in WRITER_KEYS)}')
    unknown = [key for key in writer if key not in dict(WRITER_KEYS)]
    if unknown:
        raise ValueError(
            f'config: unknown WriterConfig key(s) {", ".join(map(repr, unknown))}; '
            f'the keys are {", ".join(key for key, _ in WRITER_KEYS)}'
        )


def _config_keywords(settings: dict[str, Any]) -> dict[str, Any]:
    """The convert_from_* keywords of a checked config: names, backend settings, WriterConfig."""
    keywords = {'output_dir': 'my-hls-test', 'project_name': 'myproject', 'backend': 'Vivado'}
    keywords.update({keyword: settings[key] for key, keyword in NAME_KEYS + BACKEND_KEYS if key in settings})
    writer = settings.get('WriterConfig') or {}
    keywords.update({keyword: writer[key] for key, keyword in WRITER_KEYS if key in writer})
    return keywords


def convert_from_config(config: str | Path | dict[str, Any], allow_pickle: bool = False) -> ModelGraph:
    """Convert from a YAML file or dict: `KerasModel` (a model or a `.keras`/`.h5` path), `OnnxModel`
    (a model or an `.onnx` path) or `PytorchModel` (a module or a `torch.save` path, with `InputShape`), OutputDir,
    ProjectName, Backend, the backend's keys (Part, ClockPeriod, IOType, ...; Technology, ASICLibs and FIFO for
    Catapult), WriterConfig, HLSConfig, InputData, OutputPredictions. An unknown key is an error.

    A `PytorchModel` path is a pickle, and unpickling runs code from the file: it is loaded only with
    `allow_pickle=True`, which only the caller can give (no config key does; SECURITY.md)."""
    settings = parse_yaml_config(config) if isinstance(config, (str, Path)) else dict(config)
    check_top_level_keys(settings)
    keywords = _config_keywords(settings)
    if settings.get('OnnxModel') is not None:
        return convert_from_onnx_model(settings['OnnxModel'], **keywords)
    if settings.get('PytorchModel') is not None:
        model = settings['PytorchModel']
        if isinstance(model, (str, Path)):
            model = load_torch_module(model, allow_pickle)
        hls = dict(keywords.get('hls_config') or {})
        if 'InputShape' in settings:
            hls['InputShape'] = settings['InputShape']
        keywords['hls_config'] = hls
        return convert_from_pytorch_model(model, **keywords)
    model = settings.get('KerasModel') or settings.get('KerasH5')
    if model is None:
        raise ValueError('the config names no model; expected KerasModel, KerasH5, PytorchModel or OnnxModel')
    if isinstance(model, (str, Path)):
        import keras

        model = keras.models.load_model(model, safe_mode=True)  # safe_mode: no Lambda bytecode is run
    return convert_from_keras_model(model, **keywords)


def load_torch_module(path: str | Path, allow_pickle: bool = False) -> Any:
    """The `torch.nn.Module` saved whole in `path` (`torch.save(model, path)`). Such a file is a pickle:
    loading it runs code from the file, so it is refused unless `allow_pickle` (SECURITY.md). torch's
    safe loader (`weights_only=True`) is tried first, for the files it can read."""
    import pickle

    import torch

    try:
        model = torch.load(path, weights_only=True)
    except pickle.UnpicklingError as error:
        if not allow_pickle:
            raise ValueError(
                f'{str(path)!r} is a pickled PyTorch model: loading it runs code from the file, so it is not '
                'loaded by default. Only if you trust the file (you made it, or you would run it as a '
                'script), opt in: convert_from_config(config, allow_pickle=True), or `hls4ml ... '
                "--allow-pickle` (torch's weights_only loader could not read it)"
            ) from error
        model = torch.load(path, weights_only=False)
    if not isinstance(model, torch.nn.Module):
        raise ValueError(
            f'{str(path)!r} holds an object of type {type(model).__name__}, not a torch.nn.Module: save the whole '
            'module, torch.save(model, path) (a state_dict has no architecture to convert)'
        )
    return model


def parse_pytorch_model(model: Any, input_shape: Any, channels_last_conversion: str = 'full') -> Any:
    """(IR graph, {IR layer: module or node name}) of a PyTorch model, as `convert_from_pytorch_model` builds it."""
    from hls4ml.converters.pytorch import parse_pytorch_model as parse

    return parse(model, input_shape, channels_last_conversion)


def parse_onnx_model(model: Any, channels_last_conversion: str = 'full') -> Any:
    """(IR graph, {IR layer: node name}) of an ONNX / QONNX model, as `convert_from_onnx_model` builds it."""
    from hls4ml.converters.onnx import parse_onnx_model as parse

    return parse(model, channels_last_conversion)


def parse_keras_model(model: Any) -> Any:
    """(IR graph, {IR layer: Keras layer name}) of a Keras 3 model, as `convert_from_keras_model` builds it."""
    from hls4ml.converters.keras import parse_keras_model as parse

    return parse(model)


def get_supported_keras_layers() -> list[str]:
    from hls4ml.converters.keras.handlers import HANDLERS, REMOVED, register_all

    register_all()
    return sorted({*HANDLERS, *REMOVED})


def get_supported_pytorch_layers() -> list[str]:
    """torch.nn module classes, then function and tensor-method names."""
    from hls4ml.converters.pytorch import FUNCTIONS, METHODS, MODULES

    names = {getattr(function, '__name__', str(function)) for function in FUNCTIONS}
    return sorted(MODULES) + sorted(names | set(METHODS))


def get_supported_onnx_layers() -> list[str]:
    from hls4ml.converters.onnx.parser import HANDLERS

    return sorted(HANDLERS)
