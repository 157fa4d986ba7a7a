"""Brevitas' default (float-scale) quantizers through QONNX, on every backend and IO type.

Two tiny models, trained a few steps with a fixed seed and exported with `export_qonnx`:

* dense: QuantIdentity (Int8ActPerTensorFloat) -> QuantLinear (Int8WeightPerTensorFloat, Int32Bias)
  -> QuantReLU (Uint8ActPerTensorFloat) -> QuantLinear (Int8WeightPerChannelFloat, Int16Bias)
  -> QuantIdentity (Int8ActPerTensorFloat);
* conv: QuantIdentity -> QuantConv2d (per-channel weights, Int32Bias) -> QuantReLU -> TruncAvgPool2d
  -> QuantLinear (per-tensor weights, float bias) -> QuantIdentity (ShiftedUint8ActPerTensorFloat: a
  zero point).

For each, 100,000 inputs on a grid the input type holds exactly go through `predict()` and through
qonnx's `execute_onnx`; compared are the output integers (output / scale + zero point): argmax
agreement >= 99.9%, at most 1 LSB apart, and the share of equal integers. The emulator equals the
C-simulation on the first EMULATED inputs, and every rescale's error before rounding, measured on
the emulator's values, is within the bound it printed (rescale.py, docs/quantization.md).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from onnx_graphs import channels_last, run_qonnx

import hls4ml
from hls4ml.converters.onnx.integer_domain import BOUND_ATTRIBUTE, RATIO_ATTRIBUTE
from hls4ml.model.fixed import quantize
from hls4ml.model.interpreter import interpret

pytestmark = [
    pytest.mark.csim,
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
    pytest.mark.filterwarnings('ignore:fast_hadamard_transform'),
]
SAMPLES = 100_000
EMULATED = 20_000  # the emulator takes about 1 s per 10,000 samples of these models
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
IO_TYPES = ('io_parallel', 'io_stream')
INPUT_TYPE = 'fixed<16,6>'  # holds every input below exactly (multiples of 2^-8 in [-8, 8))


@dataclass
class Exported:
    model: onnx.ModelProto
    inputs: np.ndarray  # float64, on the 2^-8 grid
    expected: np.ndarray  # qonnx's output integers (channels last), float64
    scale: float  # the output quantizer's scale and zero point
    zero_point: float
    torch_agreement: float  # share of qonnx's output integers that Brevitas' own forward also gives


def _dense_net(qnn, quant):
    import torch

    class Dense(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.source = qnn.QuantIdentity(return_quant_tensor=True)
            self.fc1 = qnn.QuantLinear(16, 12, bias=True, bias_quant=quant.Int32Bias, return_quant_tensor=True)
            self.relu = qnn.QuantReLU(return_quant_tensor=True)
            weight = quant.Int8WeightPerChannelFloat
            self.fc2 = qnn.QuantLinear(12, 5, bias=True, weight_quant=weight, bias_quant=quant.Int16Bias)
            self.out = qnn.QuantIdentity()

        def forward(self, x):
            return self.out(self.fc2(self.relu(self.fc1(self.source(x)))))

    return Dense(), (16,)


def _conv_net(qnn, quant):
    import torch

    class Conv(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.source = qnn.QuantIdentity(return_quant_tensor=True)
            weight = quant.Int8WeightPerChannelFloat
            self.conv = qnn.QuantConv2d(2, 4, 3, padding=1, weight_quant=weight, bias_quant=quant.Int32Bias)
            self.relu = qnn.QuantReLU(return_quant_tensor=True)
            self.pool = qnn.TruncAvgPool2d(kernel_size=2, return_quant_tensor=True)
            self.fc = qnn.QuantLinear(36, 5, bias=True)
            self.out = qnn.QuantIdentity(act_quant=quant.ShiftedUint8ActPerTensorFloat)

        def forward(self, x):
            x = self.pool(self.relu(self.conv(self.source(x))))
            return self.out(self.fc(torch.flatten(x, 1)))

    return Conv(), (2, 6, 6)


def _grid_inputs(shape: tuple[int, ...], count: int, seed: int) -> np.ndarray:
    values = np.random.default_rng(seed).normal(0, 1.5, (count, *shape))
    return np.clip(np.round(values * 256) / 256, -8, 8 - 2**-8)


def _train(net, shape: tuple[int, ...], seed: int) -> None:
    """A few steps of quantization-aware training on a fixed random task: non-trivial scales."""
    import torch

    torch.manual_seed(seed)
    x = torch.tensor(_grid_inputs(shape, 256, seed), dtype=torch.float32)
    targets = (x.reshape(256, -1)[:, :5] * torch.arange(1, 6)).argmax(dim=1)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(30):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(x), targets).backward()
        optimizer.step()
    net.eval()


def _output_quantizer(model: onnx.ModelProto) -> tuple[float, float]:
    from onnx import numpy_helper

    constants = {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    last = next(node for node in model.graph.node if node.output[0] == model.graph.output[0].name)
    return float(constants[last.input[1]]), float(constants[last.input[2]])


def _export(name: str, tmp_path_factory) -> Exported:
    torch = pytest.importorskip('torch')
    pytest.importorskip('brevitas')
    pytest.importorskip('onnxoptimizer')  # brevitas' exporter needs it
    from brevitas import nn as qnn
    from brevitas import quant
    from brevitas.export import export_qonnx

    net, shape = {'dense': _dense_net, 'conv': _conv_net}[name](qnn, quant)
    _train(net, shape, seed=7)
    path = tmp_path_factory.mktemp(name) / f'{name}.onnx'
    inputs = _grid_inputs(shape, SAMPLES, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        export_qonnx(net, torch.tensor(inputs[:1], dtype=torch.float32), str(path))
        model = onnx.load(str(path))
        (reference,) = run_qonnx(model, {model.graph.input[0].name: inputs.astype(np.float32)})
        with torch.no_grad():
            brevitas = net(torch.tensor(inputs, dtype=torch.float32)).numpy()
    scale, zero_point = _output_quantizer(model)
    expected = np.round(channels_last(reference) / scale) + zero_point
    agreement = float(np.mean(np.round(channels_last(brevitas) / scale) + zero_point == expected))
    return Exported(model, inputs, expected, scale, zero_point, agreement)


@pytest.fixture(scope='module')
def exported(tmp_path_factory) -> dict[str, Exported]:
    return {name: _export(name, tmp_path_factory) for name in ('dense', 'conv')}


@pytest.fixture(scope='module')
def emulated() -> dict:
    return {}  # (model, family) -> (outputs, per-layer values) of the emulator, shared by the IO types


def _convert(model: onnx.ModelProto, backend: str, io_type: str, output_dir: str):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the bounded rescales warn; their bounds are checked below
        config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision=INPUT_TYPE)
        return hls4ml.converters.convert_from_onnx_model(
            model, hls_config=config, output_dir=output_dir, backend=backend, io_type=io_type
        )


def _rescale_errors(hls_model, per_layer: dict, inputs: np.ndarray) -> list[tuple[str, float, float]]:
    """(layer, largest |t' - t| within the quantizer's reach, its bound) of every bounded rescale."""
    graph = hls_model.graph
    found = []
    for layer in graph.layers.values():
        if BOUND_ATTRIBUTE not in layer.attributes:
            continue
        source = graph.producer(layer.inputs[0]).name
        values = per_layer[source].to_double().reshape(len(inputs), -1)
        scale = quantize(layer.weights['scale'], layer.types['scale']).value
        written = values * scale + layer.weights['bias']
        exact = values * layer.attributes[RATIO_ATTRIBUTE] + layer.weights['bias']
        result = layer.types['result']
        inside = (exact >= result.min - 1) & (exact <= result.max + 1)
        found.append(
            (layer.name, float(np.abs(written - exact)[inside].max(initial=0)), layer.attributes[BOUND_ATTRIBUTE])
        )
    return found


def _check(name: str, backend: str, io_type: str, exported, emulated, tmp_path) -> None:
    case = exported[name]
    hls_model = _convert(case.model, backend, io_type, str(tmp_path / 'prj'))
    hls_model.compile()
    predicted = hls_model.predict(case.inputs)
    integers = np.round(predicted / case.scale) + case.zero_point
    difference = np.abs(integers - case.expected)
    argmax = float(np.mean(integers.argmax(axis=1) == case.expected.argmax(axis=1)))
    print(
        f'{name} {backend} {io_type}: max error {difference.max():.0f} LSB, argmax agreement {argmax:.5f}, '
        f'{int(np.sum(difference != 0))} of {difference.size} output integers differ; '
        f'Brevitas torch vs qonnx equal {case.torch_agreement:.6f}'
    )
    assert difference.max() <= 1
    assert argmax >= 0.999
    family = 'ap' if backend == 'Vitis' else 'ac'
    if (name, family) not in emulated:
        emulated[name, family] = interpret(hls_model, case.inputs[:EMULATED])
    (reference,), per_layer = emulated[name, family]
    np.testing.assert_array_equal(predicted[:EMULATED], reference.to_double())
    for layer, error, bound in _rescale_errors(hls_model, per_layer, case.inputs[:EMULATED]):
        print(f'  rescale {layer}: measured {error:.3g} <= bound {bound:.3g}')
        assert error <= bound, layer


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', BACKENDS)
def test_dense_model(backend: str, io_type: str, exported, emulated, tmp_path) -> None:
    """Per-tensor and per-channel weight scales, Int32Bias and Int16Bias, QuantReLU, QuantIdentity."""
    _check('dense', backend, io_type, exported, emulated, tmp_path)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('backend', BACKENDS)
def test_conv_model(backend: str, io_type: str, exported, emulated, tmp_path) -> None:
    """Per-channel conv weights, TruncAvgPool2d, a float (unquantized) bias, a shifted (zero point) output."""
    _check('conv', backend, io_type, exported, emulated, tmp_path)


def test_brevitas_forward_agrees_with_qonnx(exported) -> None:
    """The two references of the QONNX model: qonnx's execution and Brevitas' own eval forward."""
    for case in exported.values():
        assert case.torch_agreement >= 0.999
