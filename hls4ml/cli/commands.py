"""What each `hls4ml` sub-command does, over the Python API; `hls4ml.cli` holds the command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

MODEL_KEYS = ('KerasModel', 'KerasH5', 'PytorchModel', 'OnnxModel')
KERAS_SUFFIXES = ('.keras', '.h5', '.hdf5')
TORCH_SUFFIXES = ('.pt', '.pth')
BUILD_OPTIONS = {  # build() keyword -> help; which a backend takes is in BACKEND_BUILD_OPTIONS
    'reset': 'remove the previous vendor project first',
    'csim': 'C simulation in the vendor tool',
    'synth': 'high-level synthesis',
    'cosim': 'C/RTL co-simulation',
    'validation': 'compare the co-simulation with the C simulation',
    'export': 'export the IP',
    'vsynth': 'Vivado logic synthesis after HLS',
    'fifo_opt': 'FIFO depth optimisation (io_stream)',
    'vhdl': 'Catapult: write VHDL',
    'verilog': 'Catapult: write Verilog',
    'power': 'Catapult: power estimation',
    'da': 'Catapult: Design Analyzer database',
    'run': 'oneAPI: run the built emulator/simulator binary',
}
VITIS_OPTIONS = ('reset', 'csim', 'synth', 'cosim', 'validation', 'export', 'vsynth', 'fifo_opt')
BACKEND_BUILD_OPTIONS = {
    'Vitis': VITIS_OPTIONS,
    'Vivado': VITIS_OPTIONS,
    'Catapult': ('reset', 'csim', 'synth', 'cosim', 'validation', 'vhdl', 'verilog', 'vsynth', 'power', 'da'),
    'oneAPI': ('build_type', 'run'),
}


class CommandError(Exception):
    """A mistake in the command line or its files, reported as one line."""


@contextlib.contextmanager
def step(message: str) -> Iterator[None]:
    """Say on stderr what is being done, then how long it took (stdout keeps the results)."""
    progress(f'{message} ...')
    start = time.perf_counter()
    yield
    progress(f'{message}: done in {time.perf_counter() - start:.1f} s')


def progress(message: str) -> None:
    print(f'[hls4ml] {message}', file=sys.stderr, flush=True)


# ---- loading models and configs ------------------------------------------------------------------
def _existing(path: str, what: str) -> Path:
    found = Path(path)
    if not found.exists():
        raise CommandError(f'{what} {path!r} does not exist')
    return found


def read_settings(config: str) -> tuple[dict[str, Any], Path]:
    """The YAML settings of a config file or project folder, and the folder relative paths start from."""
    path = _existing(config, 'config')
    if path.is_dir():
        yaml_path = path / 'hls4ml_config.yml'
        if not yaml_path.is_file():
            raise CommandError(
                f'{config!r} is a folder without hls4ml_config.yml; pass a project folder or a YAML file'
            )
        settings = _load_yaml(yaml_path)
        settings['OutputDir'] = str(path)  # the project is where it is now
        return settings, path
    return _load_yaml(path), path.parent


def _load_yaml(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise CommandError(f'{str(path)!r} is not valid YAML: {error}') from error
    if not isinstance(loaded, dict):
        raise CommandError(f'{str(path)!r}: expected a YAML mapping of config keys (KerasModel, OutputDir, ...)')
    return loaded


def _model_file(settings: dict[str, Any], base: Path) -> tuple[str, Path]:
    """The model key and the model file it names (relative paths: from the config's folder, else the cwd)."""
    for key in MODEL_KEYS:
        value = settings.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or value.startswith('<'):
            raise CommandError(
                f'{key} is {value!r}, not a model file: this project was converted from a model in memory; '
                'convert it with `hls4ml convert -c <config.yml>` (a config naming the model file)'
            )
        candidate = Path(value) if Path(value).is_absolute() or not (base / value).exists() else base / value
        return key, _existing(str(candidate), f'{key} file').resolve()
    raise CommandError(f'the config names no model: expected one of {", ".join(MODEL_KEYS)}')


def load_model(config: str, allow_pickle: bool = False) -> Any:
    """Convert the model a config (or project folder) names; the project records the model file's path.
    A PyTorch model file (a pickle) is loaded only with `allow_pickle` (--allow-pickle), never because a
    config or project folder says so."""
    import hls4ml

    settings, base = read_settings(config)
    key, model_path = _model_file(settings, base)
    settings = {**settings, key: str(model_path)}
    with step(f'converting {model_path.name} ({settings.get("Backend", "Vivado")} backend)'):
        hls_model = hls4ml.converters.convert_from_config(settings, allow_pickle=allow_pickle)
    hls_model.config['KerasModel' if key == 'KerasH5' else key] = str(model_path)
    return hls_model


# ---- sub-commands --------------------------------------------------------------------------------
def command_config(args: argparse.Namespace) -> None:
    import hls4ml

    model_path = _existing(args.model, 'model').resolve()
    suffix = model_path.suffix.lower()
    settings = _project_settings(args)  # a bad backend, part or clock fails before the model is read
    with step(f'reading {model_path.name}'):
        if suffix in KERAS_SUFFIXES:
            import keras

            key = 'KerasModel'
            hls_config = hls4ml.utils.config_from_keras_model(
                keras.models.load_model(model_path, safe_mode=True), args.granularity, default_precision=args.precision,
                default_reuse_factor=args.reuse_factor,
            )  # fmt: skip
        elif suffix == '.onnx':
            key = 'OnnxModel'
            hls_config = hls4ml.utils.config_from_onnx_model(
                str(model_path), args.granularity, default_precision=args.precision,
                default_reuse_factor=args.reuse_factor,
            )  # fmt: skip
        elif suffix in TORCH_SUFFIXES:
            key, hls_config = 'PytorchModel', _torch_config(model_path, args)
        else:
            raise CommandError(f'{args.model!r}: unknown model file type; expected .keras/.h5 (Keras), .onnx or .pt')
    settings[key] = str(model_path)
    if 'InputShape' in hls_config:
        settings['InputShape'] = [int(dim) for dim in hls_config.pop('InputShape')]
    settings['HLSConfig'] = hls_config
    text = yaml.safe_dump(settings, sort_keys=False, default_flow_style=False)
    if args.output:
        Path(args.output).write_text(text)
        progress(f'config written to {args.output}')
    else:
        print(text, end='')


def _torch_config(model_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    import hls4ml

    if not args.input_shape:
        raise CommandError('a PyTorch model needs --input-shape (one sample, without the batch axis), e.g. 16')
    model = hls4ml.converters.load_torch_module(model_path, args.allow_pickle)
    return hls4ml.utils.config_from_pytorch_model(
        model, tuple(args.input_shape), args.granularity, default_precision=args.precision,
        default_reuse_factor=args.reuse_factor,
    )  # fmt: skip


def _project_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The top-level keys, checked by the backend (unknown backend, bad part or clock fail here)."""
    from hls4ml.utils.config import create_config

    keywords: dict[str, Any] = {'io_type': args.io_type, 'clock_period': args.clock}
    if args.part:
        keywords['part'] = args.part
    created = create_config(args.dir, args.project, args.backend, **keywords)
    settings = {key: created[key] for key in ('OutputDir', 'ProjectName', 'Backend')}
    settings.update({key: created[key] for key in ('Part', 'ClockPeriod', 'IOType') if key in created})
    return settings


def command_convert(args: argparse.Namespace) -> None:
    hls_model = load_model(args.config, args.allow_pickle)
    with step(f'writing the project to {hls_model.output_dir}'):
        hls_model.write()


def command_compile(args: argparse.Namespace) -> None:
    hls_model = load_model(args.config, args.allow_pickle)
    with step('writing the project and compiling the C simulation (g++)'):
        hls_model.compile()
    print(f'C-simulation library: {getattr(hls_model._simulation, "library_path", "?")}')


def command_predict(args: argparse.Namespace) -> None:
    import numpy as np

    arrays = load_inputs(args.input)
    hls_model = load_model(args.config, args.allow_pickle)
    inputs = order_inputs(arrays, input_layer_names(hls_model))
    with step('compiling the C simulation'):
        hls_model.compile()
    with step(f'predicting {len(inputs[0])} samples'):
        x = inputs[0] if len(inputs) == 1 else inputs
        if args.trace:
            outputs, traces = hls_model.trace(x)
        else:
            outputs = hls_model.predict(x)
    outputs = outputs if isinstance(outputs, list) else [outputs]
    _save_outputs(args.output, outputs)
    if args.trace:
        np.savez(args.trace, **traces)
        progress(f'per-layer outputs ({len(traces)} layers) written to {args.trace}')


def load_inputs(paths: list[str]) -> list[Any] | dict[str, Any]:
    """The arrays of the -i files: one .npy per input (a list), or ONE .npz holding every input (a
    dict by the names in the file: the model's input names, or arr_0, arr_1, ... as np.savez writes)."""
    import numpy as np

    if not any(path.lower().endswith('.npz') for path in paths):
        return [_load_array(path) for path in paths]
    if len(paths) > 1:
        raise CommandError(f'an .npz holds every input: give it as the only -i, not with {len(paths) - 1} more')
    try:
        with np.load(_existing(paths[0], 'input'), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError) as error:
        raise CommandError(f'{paths[0]!r} is not an .npz of numeric arrays: {error}') from error


def input_layer_names(hls_model: Any) -> list[str]:
    """The model's inputs in order, by the name of their Input layer."""
    return [hls_model.graph.tensors[name].producer for name in hls_model.graph.inputs]


def order_inputs(arrays: list[Any] | dict[str, Any], names: list[str]) -> list[Any]:
    """The input arrays in the model's input order: a list as given, an .npz's by name or by position."""
    if isinstance(arrays, list):
        return arrays
    positional = [f'arr_{index}' for index in range(len(names))]
    for keys in (names, positional):
        if sorted(arrays) == sorted(keys):
            return [arrays[key] for key in keys]
    raise CommandError(
        f'the .npz holds {", ".join(sorted(arrays)) or "no arrays"}; the model has {len(names)} input(s): '
        f'name the arrays {", ".join(names)} (its Input layers) or {", ".join(positional)} (np.savez order)'
    )


def _load_array(path: str) -> Any:
    import numpy as np

    try:
        return np.load(_existing(path, 'input'), allow_pickle=False)
    except ValueError as error:
        raise CommandError(f'{path!r} is not a .npy array file: {error}') from error


def _save_outputs(path: str, outputs: list[Any]) -> None:
    import numpy as np

    if path.endswith('.npz'):
        np.savez(path, *outputs)
    elif len(outputs) == 1:
        np.save(path, outputs[0])
    else:
        raise CommandError(f'the model has {len(outputs)} outputs: name an .npz file for -o, not {path!r}')
    progress(f'outputs {", ".join(str(o.shape) for o in outputs)} written to {path}')


def command_build(args: argparse.Namespace) -> None:
    settings, _ = read_settings(args.config)
    backend = str(settings.get('Backend', 'Vivado'))
    chosen = {name: getattr(args, name) for name in (*BUILD_OPTIONS, 'build_type') if getattr(args, name) is not None}
    allowed = BACKEND_BUILD_OPTIONS.get(backend, ())
    refused = sorted(set(chosen) - set(allowed))
    if refused:  # before the model is converted
        flags = ', '.join('--' + name.replace('_', '-') for name in refused)
        options = ' '.join('--' + name.replace('_', '-') for name in allowed)
        raise CommandError(f'the {backend} build has no {flags}; its options: {options}')
    hls_model = load_model(args.config, args.allow_pickle)
    steps = ', '.join(f'{name}={value}' for name, value in chosen.items()) or 'default steps'
    with step(f'building with the {hls_model.backend.name} vendor tool ({steps})'):
        result = hls_model.build(**chosen)
    print(json.dumps(result, indent=2, default=str))


def _report_module() -> Any:
    try:
        import hls4ml.report as report
    except ImportError as error:
        raise CommandError(
            f'the report parsers (hls4ml.report) are not available in this installation: {error}'
        ) from error
    return report


def command_report(args: argparse.Namespace) -> None:
    report = _report_module()
    settings, _ = read_settings(args.project)
    backend = str(settings.get('Backend', 'Vivado'))
    if backend in ('Vitis', 'Vivado'):
        parse, show = report.parse_vivado_report, report.read_vivado_report
    elif backend == 'Catapult':
        parse, show = report.parse_catapult_report, report.read_catapult_report
    elif backend == 'oneAPI':
        parse = report.parse_oneapi_report

        def show(project: str, full_report: bool) -> None:
            report.print_oneapi_report(parse(project))

    else:
        raise CommandError(f'no report parser for the {backend} backend')
    if args.json:
        print(json.dumps(parse(args.project), indent=2, default=str))
    else:
        show(args.project, full_report=args.full)


def command_estimate(args: argparse.Namespace) -> None:
    hls_model = load_model(args.config, args.allow_pickle)
    if not hasattr(hls_model, 'estimate'):
        raise CommandError('the analytic estimator (ModelGraph.estimate, hls4ml.estimate) is not in this installation')
    with step('estimating latency and resources'):
        result = hls_model.estimate()
    print(json.dumps(result.to_dict(), indent=2, default=str) if args.json else str(result))
