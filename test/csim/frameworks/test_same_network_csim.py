"""The same network built in Keras, PyTorch and ONNX, with the same weights and precision config,
gives bit-identical predict() outputs: the three frontends meet in one IR, and everything after it
is shared. Flatten orders differ (Keras flattens (H, W, C), PyTorch and ONNX (C, H, W)); the dense
layer after it gets its rows permuted to match, so the float models compute the same function."""

from __future__ import annotations

import io
import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import hls4ml  # noqa: E402

pytestmark = pytest.mark.csim
L = keras.layers
PRECISION = 'ap_fixed<18,8>'


def torch_mlp() -> torch.nn.Module:
    torch.manual_seed(5)
    model = torch.nn.Sequential(
        torch.nn.Linear(6, 8),
        torch.nn.BatchNorm1d(8, eps=1e-3),
        torch.nn.ReLU(),
        torch.nn.Linear(8, 4),
        torch.nn.Softmax(dim=1),
    )
    with torch.no_grad():  # trained-looking statistics, so the batch norm is not an identity
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
        model[1].weight.uniform_(0.5, 1.5)
        model[1].bias.uniform_(-0.2, 0.2)
    return model.eval()


def keras_mlp(twin: torch.nn.Module) -> keras.Model:
    linear1, norm, _, linear2, _ = twin
    model = keras.Sequential(
        [
            keras.Input((6,)),
            L.Dense(8),
            L.BatchNormalization(epsilon=1e-3),
            L.Activation('relu'),
            L.Dense(4),
            L.Activation('softmax'),
        ]
    )
    numpy = {name: value.detach().numpy() for name, value in twin.state_dict().items()}
    model.layers[0].set_weights([numpy['0.weight'].T, numpy['0.bias']])
    model.layers[1].set_weights([numpy['1.weight'], numpy['1.bias'], numpy['1.running_mean'], numpy['1.running_var']])
    model.layers[3].set_weights([numpy['3.weight'].T, numpy['3.bias']])
    return model


class TorchCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(6)
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(3 * 3 * 3, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))


def keras_cnn(twin: TorchCnn) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            L.Conv2D(3, 3, padding='same'),
            L.Activation('relu'),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(5),
        ]
    )
    conv_weight = twin.conv.weight.detach().numpy().transpose(2, 3, 1, 0)
    model.layers[0].set_weights([conv_weight, twin.conv.bias.detach().numpy()])
    # torch flattens (C, H, W), Keras (H, W, C): row (h, w, c) of the Keras kernel is torch's (c, h, w)
    fc = twin.fc.weight.detach().numpy().T.reshape(3, 3, 3, 5).transpose(1, 2, 0, 3).reshape(27, 5)
    model.layers[4].set_weights([fc, twin.fc.bias.detach().numpy()])
    return model


def onnx_of(model: torch.nn.Module, example: torch.Tensor) -> onnx.ModelProto:
    buffer = io.BytesIO()
    torch.onnx.export(model, (example,), buffer, input_names=['x'], output_names=['y'], dynamo=False, opset_version=13)
    return onnx.load_from_string(buffer.getvalue())


def predictions(tmp_path, io_type: str, twin: torch.nn.Module, keras_model: keras.Model, x_first: np.ndarray):
    common = {'backend': 'Vitis', 'io_type': io_type}
    x_last = np.moveaxis(x_first, 1, -1).copy() if x_first.ndim > 2 else x_first
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='model', default_precision=PRECISION)
    from_keras = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path / 'keras'), **common
    )
    config = hls4ml.utils.config_from_pytorch_model(twin, x_first.shape[1:], default_precision=PRECISION)
    from_torch = hls4ml.converters.convert_from_pytorch_model(
        twin, hls_config=config, output_dir=str(tmp_path / 'torch'), **common
    )
    exported = onnx_of(twin, torch.tensor(x_first[:1]))
    config = hls4ml.utils.config_from_onnx_model(exported, granularity='model', default_precision=PRECISION)
    from_onnx = hls4ml.converters.convert_from_onnx_model(
        exported, hls_config=config, output_dir=str(tmp_path / 'onnx'), **common
    )
    return from_keras.predict(x_last), from_torch.predict(x_first), from_onnx.predict(x_first)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_mlp_is_bit_identical_across_frameworks(tmp_path, io_type):
    twin = torch_mlp()
    x = np.random.default_rng(0).uniform(-2, 2, (64, 6)).astype(np.float32)
    from_keras, from_torch, from_onnx = predictions(tmp_path, io_type, twin, keras_mlp(twin), x)
    np.testing.assert_array_equal(from_torch, from_keras)
    np.testing.assert_array_equal(from_onnx, from_keras)
    with torch.no_grad():
        np.testing.assert_allclose(from_torch, twin(torch.tensor(x)).numpy(), atol=0.03)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_cnn_is_bit_identical_across_frameworks(tmp_path, io_type):
    twin = TorchCnn().eval()
    x = np.random.default_rng(1).uniform(-1, 1, (32, 2, 6, 6)).astype(np.float32)
    from_keras, from_torch, from_onnx = predictions(tmp_path, io_type, twin, keras_cnn(twin), x)
    np.testing.assert_array_equal(from_torch, from_keras)
    np.testing.assert_array_equal(from_onnx, from_keras)
    with torch.no_grad():
        np.testing.assert_allclose(from_torch, twin(torch.tensor(x)).numpy(), atol=0.05)
