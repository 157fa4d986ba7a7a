"""Dilated, grouped and transposed convolutions from Keras, PyTorch and ONNX: rewritten as plain
convolutions (`converters/conv_kernels.py`), the emulator computes what the framework computes."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import torch
from onnx_graphs import OnnxGraph, run_onnxruntime

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.keras import parse_keras_model
from hls4ml.converters.pytorch import parse_pytorch_model
from hls4ml.model.interpreter import interpret

L = keras.layers
WIDE = 'ap_fixed<24,8>'  # 16 fraction bits for the weights
ATOL = 1e-3  # a few dozen weights rounded to 2^-17 each, inputs in [-2, 2]
pytestmark = pytest.mark.filterwarnings("ignore:'auto' precision is capped")


def emulated(hls_model, x: np.ndarray) -> np.ndarray:
    (result,), _ = interpret(hls_model, x)
    return result.to_double().reshape(len(x), -1)


KERAS_CASES = {
    'conv2d_dilated_same': ([L.Conv2D(3, 3, dilation_rate=2, padding='same')], (7, 6, 2)),
    'conv1d_grouped_dilated': ([L.Conv1D(4, 2, groups=2, dilation_rate=3)], (9, 4)),
    'depthwise_dilated': ([L.DepthwiseConv2D((2, 3), dilation_rate=(2, 1))], (6, 6, 3)),
    'separable_dilated': ([L.SeparableConv1D(2, 3, dilation_rate=2, padding='same')], (8, 3)),
    'conv2d_transpose_same': ([L.Conv2DTranspose(3, 3, strides=2, padding='same')], (3, 4, 2)),
    'conv2d_transpose_valid': ([L.Conv2DTranspose(2, (2, 3), strides=(1, 2), activation='relu')], (3, 3, 2)),
    'conv1d_transpose_small_window': ([L.Conv1DTranspose(2, 1, strides=3, padding='same')], (4, 3)),
    'conv1d_transpose_dilated': ([L.Conv1DTranspose(3, 3, dilation_rate=2)], (5, 2)),
}


@pytest.mark.parametrize('case', sorted(KERAS_CASES))
def test_keras_convolutions_compute_what_keras_computes(case: str, tmp_path) -> None:
    layers, shape = KERAS_CASES[case]
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input(shape), *layers, L.Flatten()])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=WIDE)
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = np.random.default_rng(1).uniform(-2, 2, (8, *shape)).astype(np.float32)
    np.testing.assert_allclose(emulated(hls_model, x), model.predict(x, verbose=0), atol=ATOL)


TORCH_CASES = {
    'conv2d_dilated_grouped': (lambda: torch.nn.Conv2d(4, 6, 3, dilation=(2, 1), groups=2, padding=1), (4, 7, 6)),
    'conv1d_dilated_same': (lambda: torch.nn.Conv1d(2, 3, 3, dilation=2, padding='same'), (2, 9)),
    'depthwise_dilated': (lambda: torch.nn.Conv1d(3, 3, 2, dilation=3, groups=3), (3, 8)),
    'transpose2d': (lambda: torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1), (2, 3, 4)),
    'transpose2d_grouped': (lambda: torch.nn.ConvTranspose2d(4, 2, (2, 3), stride=(2, 1), groups=2), (4, 3, 3)),
    'transpose1d_dilated': (lambda: torch.nn.ConvTranspose1d(2, 2, 3, stride=3, padding=2, dilation=2), (2, 5)),
}


@pytest.mark.parametrize('case', sorted(TORCH_CASES))
def test_torch_convolutions_compute_what_torch_computes(case: str, tmp_path) -> None:
    make, shape = TORCH_CASES[case]
    torch.manual_seed(2)
    model = torch.nn.Sequential(make(), torch.nn.Flatten())
    config = hls4ml.utils.config_from_pytorch_model(model, shape, default_precision=WIDE)
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = np.random.default_rng(2).uniform(-2, 2, (8, *shape)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(emulated(hls_model, x), expected, atol=ATOL)


def test_onnx_dilated_grouped_and_transposed_convolutions_match_onnxruntime(tmp_path) -> None:
    g = OnnxGraph(opset=13, seed=3)
    y = g.node('Conv', ['x', g.weights(4, 1, 2, 2), g.weights(4)], dilations=[2, 1], group=2, pads=[1, 0, 1, 1])
    y = g.node('ConvTranspose', [y, g.weights(4, 1, 3, 2)], strides=[2, 1], pads=[1, 0, 1, 0], group=2)
    y = g.node('ConvTranspose', [y, g.weights(2, 3, 2, 2), g.weights(3)], strides=[1, 2], output_padding=[0, 1])
    model = g.model({'x': (2, 5, 4)}, [g.node('Flatten', [g.node('Transpose', [y], perm=[0, 2, 3, 1])])])
    x = np.random.default_rng(4).uniform(-2, 2, (8, 2, 5, 4)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {'x': x})
    hls_model = hls4ml.converters.convert_from_onnx_model(
        model, hls_config={'Model': {'Precision': WIDE}}, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    np.testing.assert_allclose(emulated(hls_model, x), expected, atol=ATOL)


def test_a_transposed_padding_beyond_the_window_is_refused() -> None:
    model = torch.nn.Sequential(torch.nn.ConvTranspose1d(2, 2, 2, padding=2))
    with pytest.raises(ConversionError, match='padding .* larger than the window'):
        parse_pytorch_model(model, (2, 6))


def test_a_grouped_keras_kernel_is_block_diagonal() -> None:
    model = keras.Sequential([keras.Input((5, 5, 4)), L.Conv2D(2, 3, groups=2, name='grouped')])
    graph, _ = parse_keras_model(model)
    kernel = graph.layers['grouped'].weights['weight']  # (*window, in, out)
    assert kernel.shape == (3, 3, 4, 2) and not kernel[:, :, 2:, 0].any() and not kernel[:, :, :2, 1].any()
