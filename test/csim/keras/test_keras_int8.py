"""Keras weight-only quantization (int8 with `activation_quantizer=None`, int4 per group with zero points)
through the C-simulation of every backend and IO type: predict() equals the emulator bit for bit, and
differs from Keras' own quantized inference by no more than the documented bound (docs/quantization.md):
per output, sum_i |h_i| * |w'_ij - w_ij|, where h is the quantized Dense's input and w' the
dequantized kernel w written into the Dense's weight type (plus float32 round-off of Keras).

100,000 inputs per model through predict() and Keras; 2,000 through the emulator."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from keras.quantizers import Int8QuantizationConfig  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.fixed import quantize  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
IO_TYPES = ('io_parallel', 'io_stream')
SAMPLES = 100_000
EMULATED = 2_000
FLOAT32_SLACK = 2.0**-18  # relative: Keras computes x @ q / scale + bias in float32


def train(model: keras.Model, x: np.ndarray) -> keras.Model:
    """A few steps on a fixed-seed regression target, so that the kernels are not their initial values."""
    target = np.sin(x.reshape(len(x), -1)[:, : model.output_shape[-1]] * 3)
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss='mse')
    model.fit(x, target, epochs=3, batch_size=64, verbose=0)
    return model


def grid_inputs(shape: tuple[int, ...], count: int, seed: int) -> np.ndarray:
    """Multiples of 1/16 in [-4, 4): exact in float32 and in the default input type fixed<16,6>."""
    return (np.random.default_rng(seed).integers(-64, 64, (count, *shape)) / 16).astype(np.float32)


def dense_model() -> tuple[keras.Model, str]:
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(6, name='fc')])
    train(model, grid_inputs((12,), 512, 1))
    model.quantize('int8', config=Int8QuantizationConfig(activation_quantizer=None))
    return model, 'fc'


def conv_model() -> tuple[keras.Model, str]:
    """The convolution stays float (Keras quantizes Dense layers only); its weights are set to multiples
    of 1/4 so that it is exact in fixed point and the only error is the quantized Dense's."""
    keras.utils.set_random_seed(6)
    conv = keras.layers.Conv1D(3, 3, name='conv')
    model = keras.Sequential([keras.Input((8, 2)), conv, keras.layers.Flatten(), keras.layers.Dense(4, name='fc')])
    train(model, grid_inputs((8, 2), 512, 2))
    conv.kernel.assign(np.round(np.asarray(conv.kernel) * 4) / 4)
    conv.bias.assign(np.round(np.asarray(conv.bias) * 4) / 4)
    model.quantize('int4')  # per group of 128 inputs (here one group) with zero points: the default
    return model, 'fc'


class Case:
    """One quantized model, its inputs, Keras' outputs and the input h of its quantized Dense."""

    def __init__(self, model: keras.Model, dense: str, seed: int) -> None:
        self.model, self.dense = model, dense
        self.x = grid_inputs(model.input_shape[1:], SAMPLES, seed)
        self.expected = model.predict(self.x, batch_size=4096, verbose=0).astype(np.float64)
        layer = model.get_layer(dense)
        feeder = keras.Model(model.inputs, layer.input)
        self.dense_input = feeder.predict(self.x, batch_size=4096, verbose=0).astype(np.float64)
        eye = np.eye(layer.kernel.shape[0], dtype=np.float32)
        self.kernel = (np.asarray(layer(eye)) - np.asarray(layer.bias)).astype(np.float64)  # what Keras multiplies


@pytest.fixture(scope='module', params=['dense int8', 'conv int4'])
def case(request) -> Case:
    model, dense = dense_model() if request.param == 'dense int8' else conv_model()
    return Case(model, dense, seed=11)


def convert(case: Case, backend: str, io_type: str, directory) -> object:
    config = hls4ml.utils.config_from_keras_model(case.model, granularity='name', max_precision='fixed<64,24>')
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no precision cap, no guard warning
        warnings.filterwarnings('ignore', category=DeprecationWarning)
        return hls4ml.converters.convert_from_keras_model(
            case.model, hls_config=config, output_dir=str(directory), backend=backend, io_type=io_type
        )


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', BACKENDS)
def test_weight_only_quantized_dense_is_within_the_bound(case: Case, backend: str, io_type: str, tmp_path) -> None:
    if io_type in dict(hls4ml.backends.get_backend(backend).unsupported_io):
        pytest.skip(f'{backend} has no {io_type}')
    hls_model = convert(case, backend, io_type, tmp_path / 'prj')
    predicted = np.asarray(hls_model.predict(case.x), dtype=np.float64)
    emulated, _ = interpret(hls_model, case.x[:EMULATED])
    np.testing.assert_array_equal(predicted[:EMULATED], emulated[0].to_double())
    dense = hls_model.graph.layers[case.dense]
    written = quantize(dense.weights['weight'], dense.types['weight']).value
    bound = np.abs(case.dense_input) @ np.abs(written - case.kernel)
    slack = FLOAT32_SLACK * (1 + np.abs(case.expected))
    error = np.abs(predicted - case.expected)
    assert (error <= bound + slack).all(), f'largest excess {np.max(error - bound - slack):.3g}'
    assert np.mean(predicted.argmax(axis=1) == case.expected.argmax(axis=1)) >= 0.999
    assert error.max() > 0  # the bound is not vacuous: the scales make the kernel inexact
