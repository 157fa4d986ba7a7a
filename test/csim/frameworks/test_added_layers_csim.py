"""The activations, joins and preprocessing layers added for hls4ml 1.x scripts (clipped relu / relu6,
hard swish, merges and concatenations of N inputs, Rescaling, Normalization), compiled with g++ on
every backend and both IO types: predict() equals the emulator bit for bit, the three backends agree,
and the result is close to the framework's float output."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from onnx_graphs import OnnxGraph, run_onnxruntime  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
L = keras.layers
# fixed<16,6> everywhere, truncating: inputs and weights lose up to 2^-10 each, so a Dense of 6 inputs in
# [-3, 3] errs by up to ~(6 * 3 + 6 * 0.5) * 2^-10 = 0.02; a sum of three such tensors triples that
ATOL = 0.06


def keras_model() -> keras.Model:
    keras.utils.set_random_seed(4)
    inputs = keras.Input((6,), name='x')
    scaled = L.Rescaling(0.5, offset=-0.25, name='scaled')(inputs)
    normalized = L.Normalization(mean=[0.5] * 6, variance=[2.0] * 6, name='normalized')(scaled)
    parts = [L.Dense(6, name=f'branch{index}')(normalized) for index in range(3)]
    capped = L.ReLU(max_value=1.5, name='capped')(parts[0])
    swish = L.Activation('hard_silu', name='swish')(parts[1])
    relu6 = L.Activation('relu6', name='relu6')(parts[2])
    total = L.Add(name='total')([capped, swish, relu6])
    mean = L.Average(name='mean')([capped, swish, relu6])
    return keras.Model(inputs, L.Concatenate(name='joined')([total, mean, swish]))


def check_backends(convert, expected: np.ndarray, x: np.ndarray, io_types: tuple[str, ...], tmp_path) -> None:
    for io_type in io_types:
        results = {}
        for backend in BACKENDS:
            if io_type in dict(hls4ml.backends.get_backend(backend).unsupported_io):
                continue
            hls_model = convert(backend, io_type, str(tmp_path / f'{backend}_{io_type}'))
            results[backend] = hls_model.predict(x)
            (reference,), _ = interpret(hls_model, x)
            np.testing.assert_array_equal(results[backend], reference.to_double().astype(results[backend].dtype))
            np.testing.assert_allclose(results[backend].reshape(expected.shape), expected, atol=ATOL)
        assert len(results) >= 2
        for backend, result in results.items():
            np.testing.assert_array_equal(result, results['Vitis'], err_msg=f'{backend} differs from Vitis')


def test_keras_layers_on_every_backend_and_io_type(tmp_path) -> None:
    model = keras_model()
    x = np.random.default_rng(5).uniform(-3, 3, (200, 6)).astype(np.float32)

    def convert(backend: str, io_type: str, output_dir: str):
        config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
        return hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )

    check_backends(convert, model.predict(x, verbose=0), x, ('io_parallel', 'io_stream'), tmp_path)


class TorchModel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.linear = torch.nn.Linear(6, 6)
        self.swish, self.relu6 = torch.nn.Hardswish(), torch.nn.ReLU6()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        clipped = torch.nn.functional.hardtanh(y, 0.0, 0.75)
        return torch.cat([self.swish(y), self.relu6(2 * y), clipped], dim=1)


def test_torch_relu6_hardswish_and_a_cat_of_three(tmp_path) -> None:
    model = TorchModel().eval()
    x = np.random.default_rng(6).uniform(-3, 3, (200, 6)).astype(np.float32)

    def convert(backend: str, io_type: str, output_dir: str):
        config = hls4ml.utils.config_from_pytorch_model(model, (6,), default_precision='ap_fixed<16,6>')
        return hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )

    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    check_backends(convert, expected, x, ('io_stream',), tmp_path)


def test_onnx_hard_swish_clip_sum_and_mean(tmp_path) -> None:
    g = OnnxGraph(opset=14, seed=2)
    y = g.node('Gemm', ['x', g.weights(6, 6), g.weights(6)])
    swish = g.node('HardSwish', [y])
    clipped = g.node('Clip', [y, g.constant(0.0), g.constant(6.0)])
    joined = g.node('Concat', [g.node('Sum', [y, swish, clipped]), g.node('Mean', [y, swish, clipped])], axis=1)
    model = g.model({'x': (6,)}, [joined])
    x = np.random.default_rng(7).uniform(-3, 3, (200, 6)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {'x': x})

    def convert(backend: str, io_type: str, output_dir: str):
        config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
        return hls4ml.converters.convert_from_onnx_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )

    check_backends(convert, expected, x, ('io_parallel',), tmp_path)


class Gathers(torch.nn.Module):
    """Slices (steps, negative bounds, an integer index), reductions and upsampling (linear, nearest) of a
    (4, 6) tensor."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [
            x[:, 1:3, ::2].flatten(1),
            x[:, -1, 1:-1],
            x.sum(dim=2),
            torch.amax(x, dim=1),
            x.mean(dim=1),
            torch.amin(x, dim=(1, 2), keepdim=True).flatten(1),
            torch.nn.functional.interpolate(x, size=9, mode='linear', align_corners=True).flatten(1),
            torch.nn.functional.interpolate(x, scale_factor=2).flatten(1),
        ]
        return torch.cat(parts, dim=1)


def test_torch_slices_and_reductions_on_every_backend_and_io_type(tmp_path) -> None:
    model = Gathers()
    x = np.random.default_rng(8).uniform(-3, 3, (100, 4, 6)).astype(np.float32)

    def convert(backend: str, io_type: str, output_dir: str):
        config = hls4ml.utils.config_from_pytorch_model(model, (4, 6), default_precision='ap_fixed<16,6>')
        return hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )

    expected = model(torch.from_numpy(x)).numpy()
    check_backends(convert, expected, x, ('io_parallel', 'io_stream'), tmp_path)


class Convolutions(torch.nn.Module):
    """A dilated grouped convolution, a transposed one (stride 2, output padding) and a grouped transposed one."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(5)
        self.dilated = torch.nn.Conv2d(2, 4, 2, dilation=2, groups=2, padding=1)
        self.up = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
        self.grouped_up = torch.nn.ConvTranspose1d(2, 2, 2, stride=2, groups=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.up(torch.relu(self.dilated(x)))
        return self.grouped_up(y.flatten(2)).flatten(1)


def test_torch_dilated_grouped_and_transposed_convolutions_on_every_backend(tmp_path) -> None:
    model = Convolutions()
    x = np.random.default_rng(10).uniform(-2, 2, (50, 2, 4, 3)).astype(np.float32)

    def convert(backend: str, io_type: str, output_dir: str):
        config = hls4ml.utils.config_from_pytorch_model(model, (2, 4, 3), default_precision='ap_fixed<16,6>')
        return hls4ml.converters.convert_from_pytorch_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )

    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    check_backends(convert, expected, x, ('io_stream',), tmp_path)  # io_parallel Gather: the test above
