"""The Catapult backend through g++: real Keras models in both IO types compute, with ac_fixed and our
ac_channel model, exactly what the reference interpreter computes in the 'ac' family and what the
Vitis backend computes; the generated testbench builds against our headers (the SCVerify macros
defined plainly) and writes what predict() returns; our ac_channel behaves as documented."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from csim.nnet.nnet_harness import TEMPLATES, compile_source, compiler  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends import get_backend  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
L = keras.layers
IO_TYPES = ['io_parallel', 'io_stream']
# as the C-simulation bridge is compiled (csim/compiler.py): the firmware's pragmas are for the HLS tool
STRICT = ['-std=c++17', '-Wall', '-Wextra', '-Werror', '-Wno-unknown-pragmas']


def mlp() -> keras.Model:
    keras.utils.set_random_seed(31)
    return keras.Sequential(
        [keras.Input((10,)), L.Dense(16, activation='relu'), L.Dense(8, activation='relu'), L.Dense(5)]
        + [L.Activation('softmax')]
    )


def cnn() -> keras.Model:
    keras.utils.set_random_seed(32)
    return keras.Sequential(
        [
            keras.Input((10, 10, 2)),
            L.Conv2D(4, 3, activation='relu'),
            L.MaxPooling2D(2),
            L.Conv2D(3, 2, padding='same'),
            L.AveragePooling2D(2),
            L.Flatten(),
            L.Dense(4, activation='softmax'),
        ]
    )


def merge() -> keras.Model:
    keras.utils.set_random_seed(33)
    first, second = keras.Input((6,), name='first'), keras.Input((4,), name='second')
    hidden = L.Dense(4, activation='relu')(first)
    joined = L.Concatenate()([L.Add()([hidden, second]), L.Dense(3, activation='tanh')(first)])
    return keras.Model([first, second], [L.Dense(3, activation='sigmoid')(joined), L.Multiply()([hidden, second])])


MODELS = {'mlp': mlp, 'cnn': cnn, 'merge': merge}


def inputs_for(model: keras.Model, n: int = 60) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.uniform(-2, 2, (n, *tensor.shape[1:])).astype(np.float32) for tensor in model.inputs]


def convert(model: keras.Model, folder: Path, backend: str, io_type: str, **kwargs) -> hls4ml.model.ModelGraph:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend=backend, io_type=io_type, **kwargs
    )


def as_list(outputs) -> list[np.ndarray]:
    return outputs if isinstance(outputs, list) else [outputs]


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('name', sorted(MODELS))
def test_catapult_equals_the_ac_interpreter_and_vitis(name: str, io_type: str, tmp_path: Path) -> None:
    model = MODELS[name]()
    x = inputs_for(model)
    feed = x[0] if len(x) == 1 else x
    catapult = convert(model, tmp_path / 'catapult', 'Catapult', io_type)
    predicted = as_list(catapult.predict(feed))
    reference, _ = interpret(catapult, feed)
    assert get_backend('Catapult').family == 'ac' and reference[0].family == 'ac'
    vitis = as_list(convert(model, tmp_path / 'vitis', 'Vitis', io_type).predict(feed))
    for mine, expected, theirs in zip(predicted, reference, vitis, strict=True):
        np.testing.assert_array_equal(mine, expected.to_double().astype(mine.dtype))
        np.testing.assert_array_equal(mine, theirs)
    keras_out = as_list(model.predict(feed, verbose=0))
    for mine, float_out in zip(predicted, keras_out, strict=True):
        np.testing.assert_allclose(mine, float_out.reshape(len(mine), -1), atol=0.1)


def test_trace_reads_the_channels_and_puts_them_back(tmp_path: Path) -> None:
    model = cnn()
    x = inputs_for(model, 8)[0]
    catapult = convert(model, tmp_path / 'prj', 'Catapult', 'io_stream')
    predicted, traces = catapult.trace(x)
    np.testing.assert_array_equal(predicted, catapult.predict(x))
    _, expected = interpret(catapult, x)
    assert set(traces) == set(expected) - {catapult.graph.inputs[0]}
    for layer, values in traces.items():
        np.testing.assert_array_equal(values, expected[layer].to_double().astype(values.dtype).reshape(values.shape))


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_the_testbench_builds_with_the_fallback_macros_and_writes_predict(io_type: str, tmp_path: Path) -> None:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    model = mlp()
    x = inputs_for(model, 12)[0]
    np.save(tmp_path / 'x.npy', x)
    catapult = convert(model, tmp_path / 'prj', 'Catapult', io_type, input_data_tb=str(tmp_path / 'x.npy'))
    catapult.write()
    project = Path(catapult.output_dir)
    flags = [*STRICT, *get_backend('Catapult').csim_defines, '-Ifirmware/ap_types']
    sources = ['myproject_test.cpp', 'firmware/myproject.cpp']
    built = subprocess.run(
        [compiler(), *flags, *sources, '-o', str(tmp_path / 'tb')], cwd=project, capture_output=True, text=True
    )
    assert built.returncode == 0 and not built.stderr, built.stderr[:3000]
    elsewhere = tmp_path / 'elsewhere'  # as SCVerify does: started in another folder, the project in argv[1]
    elsewhere.mkdir()
    run = subprocess.run([str(tmp_path / 'tb'), str(project)], cwd=elsewhere, capture_output=True, text=True)
    assert run.returncode == 0 and '12 samples written' in run.stdout, run.stdout + run.stderr
    logged = (project / 'tb_data' / 'csim_results.log').read_text().splitlines()
    printed = [' '.join(f'{value:g}' for value in row) + ' ' for row in catapult.predict(x.astype(np.float64))]
    assert logged == printed  # the testbench prints with the stream's default 6 digits (C's %g)
    missing = subprocess.run([str(tmp_path / 'tb'), str(tmp_path / 'none')], capture_output=True, text=True)
    assert missing.returncode == 1 and 'cannot enter the project folder' in missing.stderr


def test_the_bridge_is_warning_free(tmp_path: Path) -> None:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    catapult = convert(merge(), tmp_path / 'prj', 'Catapult', 'io_stream')
    catapult.write()
    flags = [*STRICT, '-fsyntax-only', *get_backend('Catapult').csim_defines, '-Ifirmware/ap_types']
    checked = subprocess.run(
        [compiler(), *flags, 'myproject_bridge.cpp'], cwd=catapult.output_dir, capture_output=True, text=True
    )
    assert checked.returncode == 0 and not checked.stderr, checked.stderr[:3000]


CHANNEL_PROGRAM = r"""
#include <cstdio>
#include <stdexcept>
#include "ac_channel.h"
int main(int argc, char **) {
    ac_channel<int> channel;
    channel.write(1);
    channel.write(2);
    std::printf("%d %u %d %d\n", int(channel.empty()), channel.size(), int(channel.available(2)),
                int(channel.available(3)));
    int value = 0;
    channel.read(value);
    const int second = channel.read();
    const bool read_from_empty = channel.nb_read(value);
    std::printf("%d %d %d\n", value, second, int(read_from_empty));
    int seven = 7;
    const bool written = channel.nb_write(seven);
    const bool read_seven = channel.nb_read(value);
    std::printf("%d %d %d %d\n", int(written), int(read_seven), value, int(channel.empty()));
    ac_channel<int> primed(3, 5);
    primed.write(6);
    const unsigned primed_size = primed.debug_size();
    const int first_primed = primed.read();
    std::printf("%u %d %d\n", primed_size, first_primed, ac_channel<int>(2).read());
    primed.reset();
    std::printf("%d\n", int(primed.empty()));
#ifdef AC_ASSERT_THROW_EXCEPTION
    try {
        primed.read();
    } catch (const std::runtime_error &error) {
        std::printf("%s\n", error.what());
    }
#endif
    if (argc > 1)
        channel.read(); // empty: must abort with a message
    return 0;
}
"""


@pytest.mark.parametrize('throwing', [False, True])
def test_ac_channel_model(throwing: bool) -> None:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    flags = ['-std=c++14', '-Wall', '-Wextra', '-Werror', f'-I{TEMPLATES / "stream"}']
    flags += ['-DAC_ASSERT_THROW_EXCEPTION'] if throwing else []
    executable = compile_source(CHANNEL_PROGRAM, flags, [TEMPLATES / 'stream'], 'ac-channel')
    normal = subprocess.run([str(executable)], capture_output=True, text=True)
    assert normal.returncode == 0
    lines = normal.stdout.splitlines()
    assert lines[:5] == ['0 2 1 0', '1 2 0', '1 1 7 1', '4 5 0', '1']
    message = 'ac_channel: read from an empty channel (a deadlock in hardware)'
    assert (lines[5:] == [message]) == throwing
    failing = subprocess.run([str(executable), 'read-empty'], capture_output=True, text=True)
    assert failing.returncode != 0 and message in failing.stderr + failing.stdout


# ---- where ap and ac differ (docs/backends.md, Catapult) --------------------------------------------


def identity(precision: dict[str, str]) -> tuple[keras.Model, dict]:
    """Dense(4) with identity weights, so its outputs are its (quantized) inputs."""
    model = keras.Sequential([keras.Input((4,), name='x'), L.Dense(4, name='fc')])
    model.get_layer('fc').set_weights([np.eye(4), np.zeros(4)])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    for layer, result in precision.items():
        config['LayerName'][layer]['Precision']['result'] = result
    return model, config


def predict_both(model: keras.Model, config: dict, x: np.ndarray, folder: Path) -> dict[str, np.ndarray]:
    results = {}
    for backend in ('Vitis', 'Catapult'):
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(folder / backend), backend=backend
        )
        results[backend] = hls_model.predict(x)
        (reference,), _ = interpret(hls_model, x)
        np.testing.assert_array_equal(results[backend], reference.to_double().astype(results[backend].dtype))
    return results


def test_integer_inputs_truncate_in_vitis_and_floor_in_catapult(tmp_path: Path) -> None:
    model, config = identity({'x': 'int<8>'})
    x = np.array([[2.5, -2.5, -0.25, 3.0], [-3.75, 1.75, 0.5, -1.0]])
    results = predict_both(model, config, x, tmp_path)
    np.testing.assert_array_equal(results['Vitis'], np.trunc(x))
    np.testing.assert_array_equal(results['Catapult'], np.floor(x))


def test_an_integer_result_of_fixed_values_needs_fixed_w_w_with_ac(tmp_path: Path) -> None:
    model, config = identity({'fc': 'int<8>'})
    with pytest.raises(ValueError, match=r"'fc'.*integer type.*Catapult backend; use 'fixed<8,8>'"):
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / 'int'), backend='Catapult'
        )
    assert not (tmp_path / 'int').exists()  # refused before anything is written
    model, config = identity({'fc': 'fixed<8,8>'})
    x = np.array([[2.5, -2.5, -0.25, 3.0], [-3.75, 1.75, 0.5, -1.0]])
    results = predict_both(model, config, x, tmp_path / 'fixed')
    np.testing.assert_array_equal(results['Catapult'], np.floor(x))
    np.testing.assert_array_equal(results['Vitis'], results['Catapult'])
