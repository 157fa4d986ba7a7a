"""The oneAPI backend end to end without icpx: real Keras models (an MLP with softmax, a CNN with
pooling, a two-input model with merges) converted with backend='oneAPI' predict bit for bit what the
reference interpreter computes in ac_fixed, and what the Vitis backend predicts (with these default
types ac_fixed and ap_fixed agree), in io_parallel and io_stream.

Two further checks, labelled as what they are:
- FAKE SYCL: the generated kernel wrapper and host testbench compiled by g++ against a fake SYCL
  (`sycl_shim/`, host pipes as FIFOs, kernels run in order) and run on tb_data: proves they are
  well-formed and move the right values through the pipes, not that icpx or a device accepts them.
- vendor: with a real icpx (2024.1 to 2025.0) on PATH, `build(build_type='fpga_emu', run=True)`; skipped
  when it is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends.oneapi.build import compiler_version  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
L = keras.layers
SHIM = Path(__file__).parent / 'sycl_shim'
IO_TYPES = ('io_parallel', 'io_stream')


def mlp() -> keras.Model:
    return keras.Sequential(
        [
            keras.Input((10,), name='features'),
            L.Dense(16, activation='relu', name='fc1'),
            L.Dense(8, activation='tanh', name='fc2'),
            L.Dense(5, activation='softmax', name='fc3'),
        ]
    )


def cnn() -> keras.Model:
    return keras.Sequential(
        [
            keras.Input((10, 10, 2), name='image'),
            L.Conv2D(4, (3, 3), activation='relu', name='conv1'),
            L.MaxPooling2D(2, name='pool1'),
            L.Conv2D(3, (2, 2), padding='same', name='conv2'),
            L.AveragePooling2D(2, name='pool2'),
            L.Flatten(name='flatten'),
            L.Dense(3, activation='softmax', name='out'),
        ]
    )


def merged() -> keras.Model:
    first, second = keras.Input((8,), name='first'), keras.Input((8,), name='second')
    hidden = L.Dense(8, activation='relu', name='hidden')(first)
    joined = L.Concatenate(name='joined')(
        [L.Add(name='sum')([hidden, second]), L.Multiply(name='product')([hidden, second])]
    )
    return keras.Model(
        [first, second], [L.Dense(4, name='out')(joined), L.Subtract(name='difference')([hidden, second])]
    )


def ranked() -> keras.Model:
    """A layer with two outputs (top-k values and indices): in io_stream, one task writing two pipes."""
    features = keras.Input((6,), name='features')
    values, indices = keras.ops.top_k(L.Dense(8, name='scores')(features), 3)
    return keras.Model(features, [values, indices])


MODELS = {'mlp': mlp, 'cnn': cnn, 'merge': merged, 'topk': ranked}
LAYER_SETTINGS = {'fc1': {'Strategy': 'Resource', 'ReuseFactor': 5}}  # the MLP's first layer: the Resource loops


def build_model(name: str) -> keras.Model:
    keras.utils.set_random_seed(5)
    return MODELS[name]()


def inputs_for(model: keras.Model, samples: int = 30) -> Any:
    rng = np.random.default_rng(9)
    arrays = [rng.uniform(-2, 2, (samples, *tensor.shape[1:])).astype(np.float32) for tensor in model.inputs]
    return arrays[0] if len(arrays) == 1 else arrays


def convert(model: keras.Model, folder: Path, backend: str, io_type: str) -> Any:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    for layer, settings in LAYER_SETTINGS.items():
        if layer in config['LayerName']:
            config['LayerName'][layer].update(settings)
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder / backend), backend=backend, io_type=io_type
    )


def as_list(outputs: Any) -> list[np.ndarray]:
    return outputs if isinstance(outputs, list) else [outputs]


@pytest.fixture(scope='module', params=[(name, io) for name in MODELS for io in IO_TYPES], ids='-'.join)
def case(request, tmp_path_factory) -> tuple[Any, Any, keras.Model]:
    """(oneAPI model, Vitis model, Keras model) of one model and IO type, both compiled."""
    name, io_type = request.param
    model = build_model(name)
    folder = tmp_path_factory.mktemp(f'{name}_{io_type}')
    oneapi, vitis = convert(model, folder, 'oneAPI', io_type), convert(model, folder, 'Vitis', io_type)
    oneapi.compile()
    vitis.compile()
    return oneapi, vitis, model


def test_predict_is_the_reference_and_matches_vitis(case) -> None:
    oneapi, vitis, model = case
    x = inputs_for(model)
    predicted = as_list(oneapi.predict(x))
    reference, _ = interpret(oneapi, x)
    for mine, expected, theirs in zip(predicted, reference, as_list(vitis.predict(x)), strict=True):
        np.testing.assert_array_equal(mine, expected.to_double().astype(mine.dtype))
        np.testing.assert_array_equal(mine, theirs)


def test_trace_is_the_reference_layer_by_layer(case) -> None:
    oneapi, _, model = case
    x = inputs_for(model, samples=5)
    _, traced = oneapi.trace(x)
    _, reference = interpret(oneapi, x)
    assert traced
    for layer, values in traced.items():
        np.testing.assert_array_equal(
            values.reshape(len(values), -1), reference[layer].to_double().astype(values.dtype)
        )


def test_the_bridge_compiles_warning_free(case) -> None:
    oneapi, _, _ = case
    source = Path(oneapi.output_dir) / 'src' / 'myproject_bridge.cpp'
    command = ['g++', '-std=c++17', '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-DHLS4ML_DIALECT_ONEAPI']
    result = subprocess.run(
        [*command, '-Isrc/firmware/ap_types', str(source)], cwd=oneapi.output_dir, text=True, capture_output=True
    )
    assert result.returncode == 0, result.stderr[:3000]


# ---- FAKE SYCL: the kernel wrapper and the host testbench under g++ ---------------------------------


def write_inputs(project: Path, x: Any) -> None:
    arrays = [np.asarray(array, dtype=np.float64) for array in (x if isinstance(x, list) else [x])]
    rows = np.concatenate([array.reshape(len(array), -1) for array in arrays], axis=1)
    (project / 'tb_data').mkdir(exist_ok=True)
    np.savetxt(project / 'tb_data' / 'tb_input_features.dat', rows, fmt='%.17g')


def run_fake_sycl_testbench(project: Path) -> list[str]:
    """g++ builds the kernel and the testbench as a CMake fpga_emu target would (same defines), with the
    fake SYCL headers in place of the toolkit's; the binary runs in the project folder."""
    binary = project / 'fake_sycl.fpga_emu'
    command = ['g++', '-std=c++17', '-O1', '-Wno-attributes', '-Wno-unknown-pragmas', f'-I{SHIM}']
    command += ['-Isrc', '-Isrc/firmware', '-Isrc/firmware/ap_types']
    command += ['-DHLS4ML_DIALECT_ONEAPI', '-D__SYNTHESIS__', '-DFPGA_EMULATOR']
    sources = ['src/firmware/myproject_kernel.cpp', 'src/myproject_test.cpp']
    built = subprocess.run([*command, *sources, '-o', str(binary)], cwd=project, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[:3000]
    subprocess.run([str(binary)], cwd=project, check=True, capture_output=True, text=True)
    return (project / 'tb_data' / 'results.log').read_text().splitlines()


@pytest.mark.parametrize('name', sorted(MODELS))
@pytest.mark.parametrize('io_type', IO_TYPES)
def test_fake_sycl_testbench_writes_what_predict_computes(name: str, io_type: str, tmp_path) -> None:
    model = build_model(name)
    oneapi = convert(model, tmp_path, 'oneAPI', io_type)
    x = inputs_for(model, samples=4)
    oneapi.write()
    project = Path(oneapi.output_dir)
    write_inputs(project, x)
    logged = run_fake_sycl_testbench(project)
    predicted = np.concatenate([output.astype(np.float64) for output in as_list(oneapi.predict(x))], axis=1)
    # The testbench prints with the stream default, six significant digits: %g.
    assert logged == [' '.join(f'{value:g}' for value in row) + ' ' for row in predicted]


# ---- vendor: a real icpx ----------------------------------------------------------------------------


@pytest.mark.vendor
def test_fpga_emu_with_a_real_icpx_writes_what_predict_computes(tmp_path) -> None:
    compiler = shutil.which('icpx')
    version = compiler_version(compiler) if compiler else None
    if version is None or not (2024, 1) <= version <= (2025, 0):
        pytest.skip('needs icpx 2024.1 to 2025.0 with the FPGA support package on PATH')
    model = build_model('merge')
    oneapi = convert(model, tmp_path, 'oneAPI', 'io_parallel')
    x = inputs_for(model, samples=4)
    oneapi.write()
    write_inputs(Path(oneapi.output_dir), x)
    oneapi.build(build_type='fpga_emu', run=True)
    logged = (Path(oneapi.output_dir) / 'tb_data' / 'results.log').read_text().splitlines()
    predicted = np.concatenate([output.astype(np.float64) for output in as_list(oneapi.predict(x))], axis=1)
    assert logged == [' '.join(f'{value:g}' for value in row) + ' ' for row in predicted]
