"""ONNX models (exported by torch.onnx, or written with onnx.helper) through the whole path in both io
types: predict() bit for bit against the reference interpreter, and within precision of onnxruntime."""

from __future__ import annotations

import io

import numpy as np
import onnx
import pytest
import torch
from onnx_graphs import OnnxGraph, channels_last, run_onnxruntime

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore::DeprecationWarning')]
IO_TYPES = ['io_parallel', 'io_stream']


def convert(model: onnx.ModelProto, tmp_path, io_type: str):
    config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    return hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def check(model: onnx.ModelProto, x: np.ndarray, tmp_path, io_type: str, atol: float = 0.05) -> None:
    hls_model = convert(model, tmp_path, io_type)
    predicted = hls_model.predict(x)
    (reference,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, reference.to_double().astype(predicted.dtype))
    (expected,) = run_onnxruntime(model, {model.graph.input[0].name: x})
    np.testing.assert_allclose(predicted, channels_last(expected), atol=atol)


def exported(module: torch.nn.Module, shape: tuple[int, ...], opset: int) -> onnx.ModelProto:
    buffer = io.BytesIO()
    example = torch.zeros(1, *shape)
    dynamic = {'x': {0: 'N'}, 'y': {0: 'N'}}
    torch.onnx.export(
        module.eval(),
        (example,),
        buffer,
        input_names=['x'],
        output_names=['y'],
        dynamic_axes=dynamic,
        dynamo=False,
        opset_version=opset,
    )
    return onnx.load_from_string(buffer.getvalue())


def inputs(shape: tuple[int, ...], n: int = 24, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2, 2, (n, *shape)).astype(np.float32)


class Cnn(torch.nn.Module):
    """Conv + batch norm + ReLU, max pool, depthwise conv, average pool, flatten, linear, softmax."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.conv = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(4)
        self.depthwise = torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.fc = torch.nn.Linear(4 * 2 * 2, 5)
        with torch.no_grad():
            self.norm.running_mean.uniform_(-0.5, 0.5)
            self.norm.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.max_pool2d(torch.relu(self.norm(self.conv(x))), 2)
        x = torch.nn.functional.avg_pool2d(torch.nn.functional.leaky_relu(self.depthwise(x), 0.1), 2)
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


class Branches(torch.nn.Module):
    """A vector model with a skip connection, a concatenation, constants and table activations."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(2)
        self.first, self.second, self.last = torch.nn.Linear(6, 8), torch.nn.Linear(8, 8), torch.nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.first(x))
        skip = torch.sigmoid(self.second(hidden)) * 2.0 + hidden
        joined = torch.cat([skip, torch.tanh(hidden - 0.5)], dim=1)
        return self.last(joined)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('opset', [13, 17])
def test_torch_cnn(opset: int, io_type: str, tmp_path) -> None:
    check(exported(Cnn(), (2, 8, 8), opset), inputs((2, 8, 8)), tmp_path, io_type)


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_torch_branches(io_type: str, tmp_path) -> None:
    check(exported(Branches(), (6,), 13), inputs((6,)), tmp_path, io_type)


def _conv1d_net() -> onnx.ModelProto:
    """Conv1D with SAME_UPPER padding and a stride, PRelu, a constant per channel, global pooling."""
    g = OnnxGraph(seed=5)
    y = g.node('Conv', ['x', g.weights(4, 3, 3), g.weights(4)], auto_pad='SAME_UPPER', strides=[2])
    y = g.node('PRelu', [y, g.constant(g.rng.uniform(0, 0.5, (4, 1)))])
    y = g.node('Add', [g.node('Mul', [y, g.constant(g.rng.uniform(0.5, 1.5, (1, 4, 1)))]), g.constant(0.25)])
    pooled = g.node('GlobalAveragePool', [y])
    maximum = g.node('GlobalMaxPool', [y])
    joined = g.node('Flatten', [g.node('Concat', [pooled, maximum], axis=1)])
    return g.model({'x': (3, 9)}, [g.node('Gemm', [joined, g.weights(2, 8), g.weights(2)], transB=1)])


def _transposed_net() -> onnx.ModelProto:
    """A Transpose feeding a convolution (no data moves for the transpose itself) and a 4-D output."""
    g = OnnxGraph(seed=6)
    y = g.node('Transpose', ['x'], perm=[0, 1, 3, 2])
    y = g.node('Conv', [y, g.weights(3, 2, 2, 2)], pads=[1, 0, 0, 1])
    y = g.node('BatchNormalization', [y, *(g.constant(g.rng.uniform(0.5, 1.5, 3)) for _ in range(4))])
    return g.model({'x': (2, 4, 5)}, [g.node('MaxPool', [g.node('Relu', [y])], kernel_shape=[2, 2], strides=[2, 2])])


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('make', [_conv1d_net, _transposed_net], ids=['conv1d', 'transposed'])
def test_helper_built_models(make, io_type: str, tmp_path) -> None:
    model = make()
    shape = tuple(dim.dim_value for dim in model.graph.input[0].type.tensor_type.shape.dim[1:])
    check(model, inputs(shape), tmp_path, io_type)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.filterwarnings('ignore:The GemmToMatMul transformation:UserWarning')
def test_hls4ml_documented_channels_last_cleanup_gives_the_same_firmware(io_type: str, tmp_path) -> None:
    """hls4ml 1.x asks users to run qonnx's ConvertToChannelsLastAndClean (and GemmToMatMul) first: its
    channels-last Conv/MaxPool/BatchNormalization wrappers convert to the same IR, bit for bit."""
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.transformation.channels_last import ConvertToChannelsLastAndClean
    from qonnx.transformation.gemm_to_matmul import GemmToMatMul
    from qonnx.util.cleanup import cleanup_model

    model = exported(Cnn(), (2, 8, 8), 13)
    wrapper = cleanup_model(ModelWrapper(model))
    wrapper = cleanup_model(wrapper.transform(ConvertToChannelsLastAndClean()).transform(GemmToMatMul()))
    assert any(node.domain == 'qonnx.custom_op.channels_last' for node in wrapper.graph.node)
    x = inputs((2, 8, 8), n=16)
    plain = convert(model, tmp_path / 'plain', io_type).predict(x)
    np.testing.assert_array_equal(convert(wrapper.model, tmp_path / 'cleaned', io_type).predict(x), plain)


@pytest.mark.filterwarnings('ignore')
def test_torch_dynamo_exporter(tmp_path) -> None:
    """The torch.export-based exporter (the default since PyTorch 2.9) writes other graphs (opset 18,
    shape constants for the flatten, batch norm folded): they convert as well."""
    module = Cnn().eval()
    program = torch.onnx.export(module, (torch.zeros(1, 2, 8, 8),), dynamo=True, opset_version=18, verbose=False)
    model = program.model_proto
    x = inputs((2, 8, 8), n=1)  # the exported graph has a batch of one
    check(model, x, tmp_path, 'io_parallel')
    with torch.no_grad():
        np.testing.assert_allclose(
            convert(model, tmp_path / 'again', 'io_parallel').predict(x), module(torch.tensor(x)).numpy(), atol=0.05
        )
