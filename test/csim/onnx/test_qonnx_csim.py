"""QONNX models through the whole path in both io types: predict() equals qonnx's reference execution
(`execute_onnx`) and the reference interpreter bit for bit. Quantizers use power-of-two scales and
few bits, so qonnx's float32 arithmetic is exact too."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx_graphs import OnnxGraph, channels_last, run_qonnx

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('ignore::DeprecationWarning')]
IO_TYPES = ['io_parallel', 'io_stream']
N = 48


def convert(model: onnx.ModelProto, tmp_path, io_type: str):
    config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    return hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def check(model: onnx.ModelProto, x: np.ndarray, tmp_path, io_type: str) -> None:
    hls_model = convert(model, tmp_path, io_type)
    predicted = hls_model.predict(x)
    (reference,), _ = interpret(hls_model, x)
    (expected,) = run_qonnx(model, {model.graph.input[0].name: x})
    np.testing.assert_array_equal(predicted, channels_last(expected))
    np.testing.assert_array_equal(predicted, reference.to_double())


def inputs(shape: tuple[int, ...], seed: int = 0, scale: float = 3.0) -> np.ndarray:
    """Values on a 1/64 grid, so that quantizers see ties."""
    values = np.random.default_rng(seed).uniform(-scale, scale, (N, *shape))
    return (np.round(values * 64) / 64).astype(np.float32)


def rounding_mlp() -> onnx.ModelProto:
    """Gemm / MatMul+Add layers with weights quantized per tensor and per channel, and activation
    quantizers of every supported rounding mode, narrow and unsigned ranges."""
    g = OnnxGraph(seed=1)
    weights = g.quant(g.weights(6, 8), 2**-3, 4, narrow=1)
    y = g.node('Gemm', [g.quant('x', 2**-3, 6), weights, g.quant(g.weights(6), 2**-4, 6)], transB=1)
    y = g.quant(g.node('Relu', [y]), 2**-2, 5, signed=0, rounding='FLOOR')
    per_channel = np.array([[2**-2, 2**-3, 2**-1, 2**-2, 2**-3, 2**-2]], dtype=np.float32)
    y = g.node('Add', [g.node('MatMul', [y, g.quant(g.weights(6, 6), per_channel, 4)]), g.constant([0.25, -0.5] * 3)])
    y = g.quant(y, 2**-2, 6, narrow=1)
    y = g.quant(g.node('MatMul', [y, g.quant(g.weights(6, 6), 2**-2, 3)]), 2**-1, 5, rounding='DOWN')
    y = g.quant(g.node('MatMul', [y, g.quant(g.weights(6, 5), 2**-2, 3)]), 2**-1, 6, rounding='HALF_UP')
    y = g.quant(g.node('MatMul', [y, g.quant(g.weights(5, 3), 2**-2, 4)]), 2**-2, 7, rounding='HALF_DOWN')
    return g.model({'x': (8,)}, [y], N)


def cnn_with_trunc() -> onnx.ModelProto:
    """Quantized conv + ReLU, Brevitas' TruncAvgPool pattern (an average pool, then a Trunc) with a
    window and a global pool, dense head."""
    g = OnnxGraph(seed=2)
    y = g.node('Conv', [g.quant('x', 2**-3, 5), g.quant(g.weights(3, 2, 3, 3), 2**-2, 4), g.weights(3)], pads=[1] * 4)
    y = g.quant(g.node('Relu', [y]), 2**-2, 4, signed=0)
    y = g.node('AveragePool', [y], kernel_shape=[2, 2], strides=[2, 2])
    y = g.trunc(y, 2**-4, 6, 2**-3, 5, rounding='FLOOR', signed=0)
    y = g.node('GlobalAveragePool', [g.node('Concat', [y, g.node('Relu', [y])], axis=1)])
    y = g.node('Flatten', [g.trunc(y, 2**-5, 7, 2**-4, 7, rounding='ROUND', signed=0)])
    return g.model({'x': (2, 4, 4)}, [g.quant(g.node('Gemm', [y, g.quant(g.weights(6, 4), 2**-2, 4)]), 2**-3, 8)], N)


def skip_and_bipolar() -> onnx.ModelProto:
    """Two quantized branches added and multiplied, a binarized layer (BipolarQuant weights and
    activations), and a quantized output."""
    g = OnnxGraph(seed=3)
    x = g.quant('x', 2**-2, 5)
    left = g.quant(g.node('MatMul', [x, g.quant(g.weights(6, 6), 2**-2, 4)]), 2**-2, 6)
    right = g.quant(g.node('Relu', [g.node('MatMul', [x, g.quant(g.weights(6, 6), 2**-3, 4)])]), 2**-3, 6, signed=0)
    y = g.quant(g.node('Add', [left, right]), 2**-2, 6)
    y = g.bipolar(g.node('MatMul', [g.quant(g.node('Mul', [y, right]), 2**-2, 8), g.bipolar(g.weights(6, 8))]))
    return g.model({'x': (6,)}, [g.quant(g.node('MatMul', [y, g.quant(g.weights(8, 3), 2**-2, 4)]), 2**-1, 7)], N)


CASES = {'rounding_mlp': (rounding_mlp, (8,)), 'cnn_with_trunc': (cnn_with_trunc, (2, 4, 4))}
CASES['skip_and_bipolar'] = (skip_and_bipolar, (6,))


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('case', sorted(CASES))
def test_qonnx_model_is_bit_exact(case: str, io_type: str, tmp_path) -> None:
    make, shape = CASES[case]
    check(make(), inputs(shape), tmp_path, io_type)


@pytest.mark.filterwarnings('ignore:fast_hadamard_transform')
@pytest.mark.parametrize('io_type', IO_TYPES)
def test_brevitas_export_is_bit_exact(io_type: str, tmp_path) -> None:
    """A Brevitas model with fixed-point (power-of-two scale) quantizers, trained a few steps and exported
    to QONNX."""
    torch = pytest.importorskip('torch')
    pytest.importorskip('brevitas')
    pytest.importorskip('onnxoptimizer')  # brevitas' exporter needs it
    from brevitas import nn as qnn
    from brevitas.export import export_qonnx
    from brevitas.quant import Int8ActPerTensorFixedPoint, Int8WeightPerTensorFixedPoint, Uint8ActPerTensorFixedPoint

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            act, weight = Int8ActPerTensorFixedPoint, Int8WeightPerTensorFixedPoint
            self.source = qnn.QuantIdentity(act_quant=act, bit_width=6, return_quant_tensor=True)
            self.conv = qnn.QuantConv2d(2, 3, 3, padding=1, weight_quant=weight, weight_bit_width=4, bias=False)
            self.relu = qnn.QuantReLU(act_quant=Uint8ActPerTensorFixedPoint, bit_width=4, return_quant_tensor=True)
            self.pool = qnn.TruncAvgPool2d(kernel_size=2, return_quant_tensor=True)
            self.fc = qnn.QuantLinear(12, 4, bias=False, weight_quant=weight, weight_bit_width=5)
            self.out = qnn.QuantIdentity(act_quant=act, bit_width=8)

        def forward(self, x):
            x = self.pool(self.relu(self.conv(self.source(x))))
            return self.out(self.fc(torch.flatten(x, 1)))

    torch.manual_seed(4)
    net = Net()
    x = inputs((2, 4, 4), scale=1.5)
    targets = torch.tensor(np.random.default_rng(5).integers(0, 4, N))
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(20):  # quantization-aware training: a few steps through the quantizers
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(torch.tensor(x)), targets).backward()
        optimizer.step()
    net.eval()
    path = tmp_path / 'brevitas.onnx'
    export_qonnx(net, torch.tensor(x[:1]), str(path))
    check(onnx.load(str(path)), x, tmp_path, io_type)
