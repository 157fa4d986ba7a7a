"""Hard top-k through whole models: PyTorch, Keras and ONNX (Linear -> topk) and the GraphBuilder
(magnitude, mask), compiled with g++; predict() equals the reference interpreter bit for bit and the
framework's values and indices, with ties (from a coarse input type) resolved to the lower index."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.converters.builder import GraphBuilder, Origin  # noqa: E402
from hls4ml.model.graph import ModelGraph  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
N_IN, N_OUT, K = 6, 8, 3
PRECISION = 'ap_fixed<16,6>'
IO_TYPES = ('io_parallel', 'io_stream')


def _inputs() -> np.ndarray:
    return np.random.default_rng(0).normal(0, 1, (40, N_IN))


def _check(model: ModelGraph, x: np.ndarray) -> list[np.ndarray]:
    """predict() == the interpreter, bit for bit; returns the predictions."""
    predicted = model.predict(x)
    predicted = predicted if isinstance(predicted, list) else [predicted]
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    return predicted


def _separated(hidden: np.ndarray, k: int) -> np.ndarray:
    """Rows whose k + 1 largest float values are far apart: no ties after quantization there."""
    largest = -np.sort(-hidden, axis=1)[:, : k + 1]
    return (-np.diff(largest, axis=1) > 0.01).all(axis=1)


class TorchTopK(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(N_IN, N_OUT)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        values, indices = torch.topk(self.fc(x), K)
        return values, indices, self.fc(x).topk(1).indices


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_pytorch_topk(tmp_path, io_type: str, backend: str) -> None:
    torch.manual_seed(0)
    module = TorchTopK().eval()
    config = {'Model': {'Precision': PRECISION, 'ReuseFactor': 1}, 'InputShape': (N_IN,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = _inputs()
    values, indices, first = _check(model, x)
    with torch.no_grad():
        torch_values, torch_indices, torch_first = module(torch.tensor(x, dtype=torch.float32))
    with torch.no_grad():
        rows = _separated(module.fc(torch.tensor(x, dtype=torch.float32)).numpy(), K)
    np.testing.assert_allclose(values, torch_values.numpy(), atol=0.02)
    np.testing.assert_array_equal(indices[rows], torch_indices.numpy()[rows])
    np.testing.assert_array_equal(first[rows], torch_first.numpy()[rows])


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_keras_topk(tmp_path, io_type: str) -> None:
    inputs = keras.Input((N_IN,))
    hidden = keras.layers.Dense(N_OUT)(inputs)
    values, indices = keras.ops.top_k(hidden, K)
    _, only_indices = keras.ops.top_k(hidden, 2)  # its values layer is dropped
    keras_model = keras.Model(inputs, [values, indices, only_indices])
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision=PRECISION)
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    assert [layer.kind for layer in model.graph.layers.values()].count('TopK') == 3
    x = _inputs()
    predicted = _check(model, x)
    expected = [np.asarray(tensor) for tensor in keras_model(x.astype(np.float32))]
    rows = _separated(np.asarray(keras_model.layers[1](x.astype(np.float32))), K)
    np.testing.assert_allclose(predicted[0], expected[0], atol=0.02)
    np.testing.assert_array_equal(predicted[1][rows], expected[1][rows])
    np.testing.assert_array_equal(predicted[2][rows], expected[2][rows])


def _onnx_model(read_values: bool) -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(rng.normal(0, 0.5, (N_IN, N_OUT)).astype(np.float32), 'w')]
    weights.append(numpy_helper.from_array(np.array([K], dtype=np.int64), 'k'))
    nodes = [
        helper.make_node('MatMul', ['x', 'w'], ['h'], name='matmul'),
        helper.make_node('TopK', ['h', 'k'], ['values', 'indices'], name='topk', axis=-1),
    ]
    outputs = [helper.make_tensor_value_info('indices', TensorProto.INT64, ['n', K])]
    if read_values:
        outputs.insert(0, helper.make_tensor_value_info('values', TensorProto.FLOAT, ['n', K]))
    graph = helper.make_graph(
        nodes, 'topk', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['n', N_IN])], outputs, weights
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])


@pytest.mark.parametrize('io_type, read_values', [('io_parallel', True), ('io_stream', False)])
def test_onnx_topk(tmp_path, io_type: str, read_values: bool) -> None:
    import onnxruntime

    onnx_model = _onnx_model(read_values)
    config = {'Model': {'Precision': PRECISION, 'ReuseFactor': 1}}
    model = hls4ml.converters.convert_from_onnx_model(
        onnx_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    assert [layer.kind for layer in model.graph.layers.values()].count('TopK') == 1 + read_values
    x = _inputs()
    predicted = _check(model, x)
    expected = onnxruntime.InferenceSession(onnx_model.SerializeToString()).run(None, {'x': x.astype(np.float32)})
    rows = _separated(x @ numpy_helper.to_array(onnx_model.graph.initializer[0]), K)
    np.testing.assert_array_equal(predicted[-1][rows], expected[-1][rows])
    if read_values:
        np.testing.assert_allclose(predicted[0], expected[0], atol=0.02)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI'])
def test_builder_topk_with_ties_and_magnitude(tmp_path, io_type: str, backend: str) -> None:
    """Every output kind, by value and by magnitude, on integer inputs full of ties (and of +-v)."""
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (N_OUT,))
    for magnitude in (False, True):
        for output in ('values', 'indices', 'mask', 'masked'):
            name = f'{output}_{"magnitude" if magnitude else "value"}'
            builder.output(builder.topk(Origin(name, 'TopK'), x, K, output, magnitude), Origin(name, 'output'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<4,4>', 'ReuseFactor': 1}}
    model = ModelGraph(config, graph, origin)
    inputs = np.random.default_rng(2).integers(-8, 8, (60, N_OUT)).astype(np.float64)
    predicted = _check(model, inputs)
    for magnitude, outputs in ((False, predicted[:4]), (True, predicted[4:])):
        keys = np.abs(inputs) if magnitude else inputs
        order = np.argsort(-keys, axis=1, kind='stable')[:, :K]
        mask = np.zeros_like(inputs)
        np.put_along_axis(mask, order, 1.0, axis=1)
        np.testing.assert_array_equal(outputs[0], np.take_along_axis(inputs, order, axis=1))
        np.testing.assert_array_equal(outputs[1], order)
        np.testing.assert_array_equal(outputs[2], mask)
        np.testing.assert_array_equal(outputs[3], inputs * mask)
