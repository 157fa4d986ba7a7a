"""Hard top-k variants from the frontends: `largest=False` (PyTorch, ONNX), top-k of `x.abs()` (ranked
by magnitude, indices only) and the refusals, compiled with g++: predict() equals the reference
interpreter bit for bit and the framework's outputs (exact where the fixed-point values are exact)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim
N_IN, N_OUT, K = 4, 8, 3


class Variants(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(N_IN, N_OUT)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = self.fc(x)
        smallest = torch.topk(h, K, largest=False)
        by_magnitude = h.abs().topk(2)
        return smallest.values, smallest.indices, by_magnitude.indices, by_magnitude.values


def _grid_module() -> Variants:
    module = Variants().eval()
    rng = np.random.default_rng(0)
    with torch.no_grad():  # multiples of 1/8: exact hidden values, so ties are real and agree
        module.fc.weight.copy_(torch.tensor(rng.integers(-8, 9, (N_OUT, N_IN)) / 8))
        module.fc.bias.copy_(torch.tensor(rng.integers(-4, 5, N_OUT) / 8))
    return module


def _inputs() -> np.ndarray:
    return np.random.default_rng(1).integers(-16, 17, (50, N_IN)) / 8


def _check(model, x: np.ndarray) -> list[np.ndarray]:
    predicted = model.predict(x)
    predicted = predicted if isinstance(predicted, list) else [predicted]
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    return predicted


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_pytorch_smallest_and_magnitude(tmp_path, backend: str, io_type: str) -> None:
    module = _grid_module()
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (N_IN,)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = _inputs()
    values, indices, by_magnitude, magnitudes = _check(model, x)
    with torch.no_grad():
        hidden = module.fc(torch.tensor(x, dtype=torch.float32)).double().numpy()
    smallest = np.argsort(hidden, axis=1, kind='stable')[:, :K]
    np.testing.assert_array_equal(indices, smallest)  # stable: ties to the lower index
    np.testing.assert_array_equal(values, np.take_along_axis(hidden, smallest, axis=1))
    largest_magnitudes = np.argsort(-np.abs(hidden), axis=1, kind='stable')[:, :2]
    np.testing.assert_array_equal(by_magnitude, largest_magnitudes)
    np.testing.assert_array_equal(magnitudes, np.take_along_axis(np.abs(hidden), largest_magnitudes, axis=1))
    with torch.no_grad():
        torch_values, _, _, _ = module(torch.tensor(x, dtype=torch.float32))
    np.testing.assert_array_equal(values, torch_values.double().numpy())


def test_onnx_smallest(tmp_path) -> None:
    import onnxruntime

    rng = np.random.default_rng(2)
    weights = [
        numpy_helper.from_array((rng.integers(-8, 9, (N_IN, N_OUT)) / 8).astype(np.float32), 'w'),
        numpy_helper.from_array(np.array([K], dtype=np.int64), 'k'),
    ]
    nodes = [
        helper.make_node('MatMul', ['x', 'w'], ['h'], name='matmul'),
        helper.make_node('TopK', ['h', 'k'], ['values', 'indices'], name='topk', axis=-1, largest=0),
    ]
    outputs = [
        helper.make_tensor_value_info('values', TensorProto.FLOAT, ['n', K]),
        helper.make_tensor_value_info('indices', TensorProto.INT64, ['n', K]),
    ]
    graph = helper.make_graph(
        nodes, 'smallest', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['n', N_IN])], outputs, weights
    )
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    model = hls4ml.converters.convert_from_onnx_model(
        onnx_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type='io_parallel'
    )
    x = _inputs()
    values, indices = _check(model, x)
    expected = onnxruntime.InferenceSession(onnx_model.SerializeToString()).run(None, {'x': x.astype(np.float32)})
    np.testing.assert_array_equal(values, expected[0])
    np.testing.assert_array_equal(indices, expected[1])  # ONNX: ties to the lower index too


class OtherAxis(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.topk(2, dim=1).values


@pytest.mark.parametrize(
    'module, shape, message', [(OtherAxis(), (3, N_IN), r'top-k along dim 1 of a tensor of shape \(3, 4\)')]
)
def test_refusals_name_the_node(tmp_path, module: torch.nn.Module, shape: tuple, message: str) -> None:
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': shape}
    with pytest.raises(ConversionError, match=message):
        hls4ml.converters.convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
