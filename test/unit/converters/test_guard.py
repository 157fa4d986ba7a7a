"""The guard against silent misconversion (hls4ml.converters.guard): silent on correct conversions, even
narrow or reconfigured ones, and loud on wrong ones. The wrong conversions are made by test doubles of
the frontends (a handler that drops the bias, the int8 kernel read as the weights as before the fix)."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.converters import guard  # noqa: E402
from hls4ml.converters.builder import GraphBuilder  # noqa: E402
from hls4ml.converters.guard import ConversionMismatchWarning  # noqa: E402
from hls4ml.converters.keras import handlers as keras_handlers  # noqa: E402
from hls4ml.converters.keras import parser as keras_parser  # noqa: E402


def mlp(seed: int = 4) -> keras.Model:
    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation='relu', name='fc1', bias_initializer='uniform'),
            keras.layers.Dense(4, activation='softmax', name='out', bias_initializer='uniform'),
        ]
    )
    for layer in model.layers:
        layer.bias.assign(np.random.default_rng(seed).uniform(0.5, 1.5, layer.bias.shape).astype(np.float32))
    return model


def convert_keras(model: keras.Model, precision: str = 'fixed<16,6>', **options) -> object:
    config = {'Model': {'Precision': precision}, **options.pop('hls_config', {})}
    return hls4ml.converters.convert_from_keras_model(model, hls_config=config, backend='Vitis', **options)


def silently(convert, *args, **kwargs) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter('error', ConversionMismatchWarning)
        return convert(*args, **kwargs)


def test_a_correct_keras_conversion_passes_the_check() -> None:
    hls_model = silently(convert_keras, mlp())
    report = guard.check_conversion(hls_model, guard.keras_runner(mlp()), guard.Presets({}, {}))
    assert report.skipped == '' and len(report.outputs) == 1
    assert report.outputs[0].disagreeing == 0 and report.outputs[0].largest_error < 1e-3


@pytest.mark.parametrize('precision', ['fixed<6,2>', 'fixed<8,1,RND,SAT>'])
def test_a_narrow_precision_is_not_a_misconversion(precision: str) -> None:
    silently(convert_keras, mlp(), precision)


@pytest.mark.parametrize('softmax', [{'Implementation': 'argmax'}, {'Skip': True}])
def test_reconfigured_softmax_is_not_a_misconversion(softmax: dict) -> None:
    silently(convert_keras, mlp(), hls_config={'LayerName': {'out_softmax': softmax}})


def drop_bias(handler):
    def dropped(source):
        layers = handler(source)
        layers[0].weights['bias'] = np.zeros_like(layers[0].weights['bias'])
        return layers

    return dropped


def test_a_keras_handler_that_drops_the_bias_is_caught(monkeypatch) -> None:
    monkeypatch.setitem(keras_handlers.HANDLERS, 'Dense', drop_bias(keras_handlers.HANDLERS['Dense']))
    with pytest.warns(ConversionMismatchWarning, match=r"output 'out_softmax': \d+ of 16 random samples differ"):
        convert_keras(mlp())


def test_the_int8_kernel_read_as_the_weights_is_caught(monkeypatch) -> None:
    """What the frontend did before int8 was refused: the int8 kernel taken as the weights, the scale lost."""
    monkeypatch.setattr(keras_parser, 'refusal', lambda layer: None)
    monkeypatch.setattr(keras_handlers, 'quantization_mode', lambda layer: None)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, name='fc')])
    model.quantize('int8')
    with pytest.warns(ConversionMismatchWarning, match="output 'fc'"):
        convert_keras(model, 'fixed<32,20>')


def test_check_conversion_false_skips_the_check(monkeypatch) -> None:
    monkeypatch.setitem(keras_handlers.HANDLERS, 'Dense', drop_bias(keras_handlers.HANDLERS['Dense']))
    silently(convert_keras, mlp(), check_conversion=False)


def test_a_framework_that_cannot_run_skips_the_check_without_a_warning() -> None:
    def broken(inputs):
        raise RuntimeError('no runtime here')

    hls_model = silently(convert_keras, mlp(), check_conversion=False)
    report = silently(guard.check_conversion, hls_model, broken, guard.Presets({}, {}))
    assert report.skipped == 'RuntimeError: no runtime here' and report.outputs == []


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)
        self.norm = nn.BatchNorm2d(3)
        self.fc = nn.Linear(3 * 4 * 4, 5)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.norm(self.conv(x)))
        return y, self.fc(torch.flatten(y, 1))


def convert_torch(model: nn.Module, **model_options) -> object:
    config = hls4ml.utils.config_from_pytorch_model(model, (2, 6, 6), default_precision='fixed<24,10>')
    config['Model'].update(model_options)
    return hls4ml.converters.convert_from_pytorch_model(model, hls_config=config, backend='Vitis')


@pytest.mark.parametrize('layout', [{}, {'TransposeOutputs': True}, {'ChannelsLastConversion': 'internal'}])
def test_pytorch_layouts_are_compared_in_the_ir_layout_and_the_module_is_not_changed(layout: dict) -> None:
    torch.manual_seed(0)
    model = ConvNet().train()
    state = {name: value.clone() for name, value in model.state_dict().items()}
    silently(convert_torch, model, **layout)
    assert all(torch.equal(state[name], value) for name, value in model.state_dict().items())  # no BN update


def test_a_builder_that_drops_the_bias_is_caught_for_pytorch_and_onnx(monkeypatch, tmp_path) -> None:
    dense = GraphBuilder.dense
    monkeypatch.setattr(
        GraphBuilder,
        'dense',
        lambda self, origin, x, kernel, biases, **types: dense(self, origin, x, kernel, None, **types),
    )
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    with torch.no_grad():
        for layer in (model[0], model[2]):
            layer.bias.uniform_(1.0, 2.0)
    with pytest.warns(ConversionMismatchWarning):
        config = hls4ml.utils.config_from_pytorch_model(model, (6,))
        hls4ml.converters.convert_from_pytorch_model(model, hls_config=config, backend='Vitis')
    path = tmp_path / 'mlp.onnx'
    torch.onnx.export(model, (torch.zeros(1, 6),), str(path), dynamo=False, input_names=['x'])
    with pytest.warns(ConversionMismatchWarning):
        hls4ml.converters.convert_from_onnx_model(str(path), backend='Vitis')


def test_a_correct_onnx_conversion_passes_the_check(tmp_path) -> None:
    torch.manual_seed(1)
    path = tmp_path / 'conv.onnx'
    torch.onnx.export(ConvNet().eval(), (torch.zeros(1, 2, 6, 6),), str(path), dynamo=False, input_names=['x'])
    hls_model = silently(hls4ml.converters.convert_from_onnx_model, str(path), backend='Vitis')
    presets = guard.Presets({}, {})
    report = guard.check_conversion(hls_model, guard.onnx_runner(str(path)), presets, guard.Layouts(False, True))
    assert report.skipped == '' and [check.disagreeing for check in report.outputs] == [0, 0]


def test_an_input_with_a_preset_type_is_sampled_on_its_grid_and_passes_the_check() -> None:
    """A QONNX quantizer on the input: the samples are values of its type (6 bits, step 0.5), so the
    framework's quantizer leaves them as they are and the emulator's input type holds them exactly."""
    from onnx_graphs import OnnxGraph

    from hls4ml.converters.onnx import parse_onnx_model

    g = OnnxGraph()
    model = g.model({'x': (8,)}, [g.node('Relu', [g.quant('x', 0.5, 6)], name='relu')])
    graph, _ = parse_onnx_model(model)
    samples = guard._random_input(graph, 'x', guard.Presets.of(graph))
    assert samples.shape == (guard.SAMPLES, 8) and np.array_equal(samples, np.round(samples * 2) / 2)
    assert samples.min() >= -16 and samples.max() <= 15.5 and len(np.unique(samples)) > 20
    hls_model = silently(hls4ml.converters.convert_from_onnx_model, model, backend='Vitis')
    report = guard.check_conversion(hls_model, guard.onnx_runner(model), guard.Presets.of(graph))
    assert report.skipped == '' and report.outputs[0].largest_error == 0


def test_large_models_get_fewer_samples_and_the_largest_none(monkeypatch) -> None:
    hls_model = silently(convert_keras, mlp(), check_conversion=False)
    work = 6 + 6 * 8 + 8 + 8 * 4 + 4  # one per input and activation output, a weight column per Dense output
    monkeypatch.setattr(guard, 'WORK_BUDGET', 5 * work)
    report = guard.check_conversion(hls_model, guard.keras_runner(mlp()), guard.Presets({}, {}))
    assert report.outputs[0].samples == 5 and report.outputs[0].disagreeing == 0
    monkeypatch.setattr(guard, 'MAX_WORK', 4 * work - 1)
    report = guard.check_conversion(hls_model, guard.keras_runner(mlp()), guard.Presets({}, {}))
    assert report.skipped == f'too large for the quick check: {work} multiply-accumulates per sample'
