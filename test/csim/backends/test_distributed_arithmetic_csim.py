"""Strategy 'distributed_arithmetic': the adder graphs in the firmware give, bit for bit, what the Latency
strategy of the same config gives in C-simulation, on Vitis, oneAPI and Catapult; Dense, Conv1D, Conv2D
and DepthwiseConv2D, io_parallel and io_stream; weights with zeros and powers of two; the 'auto' accum,
a narrow wrapping accum (the sums overflow and wrap), and a narrow input type. The C-simulation runs the
graph's raw-integer form; HLS4ML_DA_TYPED compiles the typed form the HLS tool synthesizes instead."""

from __future__ import annotations

import dataclasses
import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytest.importorskip('da4ml', reason="da4ml is not installed (pip install 'hls4ml[da]')")

pytestmark = pytest.mark.csim
L = keras.layers
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')


def set_weights(model: keras.Model, seed: int, scale: int = 8) -> None:
    """Random weights on a grid of 1/scale, about a third zero, one input row all powers of two."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if not layer.weights:
            continue
        values = [w.numpy() for w in layer.weights]
        kernel = rng.integers(-2 * scale, 2 * scale, size=values[0].shape) / scale
        kernel[rng.random(kernel.shape) < 0.35] = 0
        kernel.reshape(-1, kernel.shape[-1])[0] = 2.0 ** rng.integers(-3, 2, size=kernel.shape[-1])
        layer.set_weights([kernel, rng.normal(0, 0.5, values[1].shape)])


def dense_model() -> keras.Model:
    model = keras.Sequential(
        [keras.Input((10,)), L.Dense(7, name='fc1'), L.Activation('relu', name='relu1'), L.Dense(4, name='fc2')]
    )
    set_weights(model, 1)
    return model


def conv1d_model() -> keras.Model:
    model = keras.Sequential([keras.Input((9, 2)), L.Conv1D(3, 3, padding='same', name='conv'), L.Flatten()])
    set_weights(model, 2)
    return model


def conv2d_model() -> keras.Model:
    model = keras.Sequential(
        [keras.Input((6, 5, 2)), L.Conv2D(3, (3, 2), strides=(1, 2), padding='same', name='conv'), L.Flatten()]
    )
    set_weights(model, 3)
    return model


def conv2d_valid_model() -> keras.Model:  # io_stream takes unpadded convolutions (or explicit padding layers)
    model = keras.Sequential([keras.Input((6, 5, 2)), L.Conv2D(3, (3, 2), name='conv'), L.Flatten()])
    set_weights(model, 4)
    return model


def depthwise_model() -> keras.Model:
    model = keras.Sequential(
        [keras.Input((5, 5, 2)), L.DepthwiseConv2D((2, 2), padding='same', name='conv'), L.Flatten()]
    )
    set_weights(model, 5)
    return model


MODELS = {'dense': dense_model, 'conv1d': conv1d_model, 'conv2d': conv2d_model, 'depthwise2d': depthwise_model}
PRECISIONS = {
    'auto_accum': ('ap_fixed<16,6>', {}),
    # 5 + 3 fractional bits of the products fit; 3 integer bits overflow and wrap
    'narrow_wrapping_accum': ('ap_fixed<10,5>', {'accum': 'ap_fixed<11,3>'}),
}


def convert(model: keras.Model, strategy: str, precision: str, types: dict, backend: str, io_type: str, path):
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=precision)
    config['Model']['Strategy'] = strategy
    for layer in model.layers:
        if layer.weights:
            config['LayerName'][layer.name]['Precision'].update({'weight': 'ap_fixed<8,3>', **types})
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(path / f'{backend}_{strategy}'), backend=backend, io_type=io_type
    )


def assert_da_equals_latency(model: keras.Model, precision: str, types: dict, backend: str, io_type: str, path):
    x = np.random.default_rng(7).uniform(-6, 6, (300, *model.inputs[0].shape[1:])).astype(np.float32)
    latency = convert(model, 'Latency', precision, types, backend, io_type, path).predict(x)
    distributed = convert(model, 'distributed_arithmetic', precision, types, backend, io_type, path)
    predicted = distributed.predict(x)
    (parameters,) = (path / f'{backend}_distributed_arithmetic').rglob('parameters.h')
    assert 'static void adder_graph(' in parameters.read_text()  # the adder graph, not a multiplier loop
    np.testing.assert_array_equal(predicted, latency)
    reference, _ = interpret(distributed, x)
    np.testing.assert_array_equal(predicted, reference[0].to_double().astype(predicted.dtype))
    assert np.unique(predicted).size > 20  # the outputs vary: the comparison is not hollow


# Vitis with both accumulators; the ac family (oneAPI, Catapult) with the wrapping one, where the families differ
COMBINATIONS = [('Vitis', precision) for precision in sorted(PRECISIONS)] + [
    (backend, 'narrow_wrapping_accum') for backend in ('oneAPI', 'Catapult')
]


@pytest.mark.parametrize('case', sorted(MODELS))
@pytest.mark.parametrize(('backend', 'precision'), COMBINATIONS)
def test_distributed_arithmetic_equals_latency(backend: str, precision: str, case: str, tmp_path) -> None:
    default, types = PRECISIONS[precision]
    assert_da_equals_latency(MODELS[case](), default, types, backend, 'io_parallel', tmp_path)


@pytest.mark.parametrize('case', ['dense', 'conv2d_valid'])
def test_distributed_arithmetic_equals_latency_io_stream(case: str, tmp_path) -> None:
    model = dense_model() if case == 'dense' else conv2d_valid_model()
    assert_da_equals_latency(model, 'ap_fixed<16,6>', {}, 'Vitis', 'io_stream', tmp_path)


@pytest.mark.parametrize(('backend', 'case'), [(backend, 'dense') for backend in BACKENDS] + [('Vitis', 'conv2d')])
def test_the_typed_form_the_hls_tool_reads_equals_latency(backend: str, case: str, monkeypatch, tmp_path) -> None:
    """The fixed-point form of the graph (what synthesis compiles), built into the C-simulation."""
    key = backend.lower()
    original = hls4ml.backends._BACKENDS[key]
    typed = dataclasses.replace(original, csim_defines=(*original.csim_defines, '-DHLS4ML_DA_TYPED'))
    monkeypatch.setitem(hls4ml.backends._BACKENDS, key, typed)
    default, types = PRECISIONS['narrow_wrapping_accum']
    assert_da_equals_latency(MODELS[case](), default, types, backend, 'io_parallel', tmp_path)


def test_the_jet_tagging_mlp_is_bit_exact_with_latency(tmp_path) -> None:
    """16-64-32-32-5 (ReLU, softmax) at ap_fixed<16,6> with exact accumulators, 20,000 inputs (Vitis)."""
    keras.utils.set_random_seed(1234)
    stack = [L.Dense(units, activation='relu', name=f'fc{i}') for i, units in enumerate((64, 32, 32), 1)]
    model = keras.Sequential([keras.Input((16,)), *stack, L.Dense(5, activation='softmax', name='output')])
    x = np.random.default_rng(0).normal(0, 1, (20000, 16)).astype(np.float32)
    predictions = {}
    for strategy in ('Latency', 'distributed_arithmetic'):
        config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
        config['Model'].update(Strategy=strategy, Precision={'default': 'ap_fixed<16,6>', 'accum': 'auto'})
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / strategy), backend='Vitis'
        )
        predictions[strategy] = hls_model.predict(x)
    np.testing.assert_array_equal(predictions['distributed_arithmetic'], predictions['Latency'])
    assert np.unique(predictions['Latency'].argmax(axis=1)).size >= 3
