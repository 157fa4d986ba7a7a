"""Slicing and reductions from the three frontends (Gather and Reduce layers): the index tables they
build follow the framework's layout, so the emulator computes what the framework computes; what
cannot be converted (the batch axis, indexing with None or tensors) is refused by name."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import torch
from onnx_graphs import OnnxGraph

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.keras import KerasConversionError, parse_keras_model
from hls4ml.converters.onnx import parse_onnx_model
from hls4ml.converters.pytorch import parse_pytorch_model
from hls4ml.model.interpreter import interpret

WIDE = 'ap_fixed<24,8>'  # inputs are exact in it: only the mean's 1/n rounds


class Net(torch.nn.Module):
    def __init__(self, function) -> None:
        super().__init__()
        self.function = function  # a function or a module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


TORCH_CASES = {
    'columns': (lambda x: x[:, 2:5], (8,)),
    'steps_and_negative_bounds': (lambda x: x[:, ::3, -4:-1], (3, 6)),
    'integer_index': (lambda x: x[:, 1], (3, 4)),
    'ellipsis': (lambda x: x[..., 1::2], (2, 3, 4)),
    'sum_over_channels': (lambda x: x.sum(dim=1), (3, 5)),
    'sum_keepdim': (lambda x: torch.sum(x, dim=-1, keepdim=True), (3, 5)),
    'amax_two_axes': (lambda x: torch.amax(x, dim=(1, 3)), (2, 3, 4)),
    'amin_spatial': (lambda x: x.amin(dim=2), (2, 5)),
    'mean_over_channels': (lambda x: x.mean(dim=1), (4, 5)),
    'sum_of_a_vector': (lambda x: x.sum(dim=1, keepdim=True), (7,)),
    'upsample_module': (torch.nn.Upsample(scale_factor=(2, 3)), (2, 3, 2)),
    'interpolate_1d': (lambda x: torch.nn.functional.interpolate(x, scale_factor=3), (2, 4)),
    'interpolate_to_a_size': (lambda x: torch.nn.functional.interpolate(x, size=(5, 7)), (2, 3, 4)),
    'nearest_exact': (lambda x: torch.nn.functional.interpolate(x, scale_factor=1.5, mode='nearest-exact'), (2, 3, 4)),
    'bilinear': (torch.nn.Upsample(scale_factor=2, mode='bilinear'), (2, 3, 4)),
    'bilinear_align_corners': (
        lambda x: torch.nn.functional.interpolate(x, size=(5, 6), mode='bilinear', align_corners=True),
        (2, 3, 4),
    ),
    'linear_to_a_size': (lambda x: torch.nn.functional.interpolate(x, size=7, mode='linear'), (3, 4)),
}
# the interpolation weights (1/3, 2/5, ...) are rounded to 16 fraction bits: four taps of inputs up to 4
INTERPOLATING = {'bilinear': 1e-3, 'bilinear_align_corners': 1e-3, 'linear_to_a_size': 1e-3}


@pytest.mark.parametrize('case', sorted(TORCH_CASES))
def test_torch_slices_and_reductions_compute_what_torch_computes(case: str, tmp_path) -> None:
    function, shape = TORCH_CASES[case]
    model = Net(function)
    config = hls4ml.utils.config_from_pytorch_model(model, shape, default_precision=WIDE)
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = np.round(np.random.default_rng(3).uniform(-4, 4, (16, *shape)) * 64) / 64
    (result,), _ = interpret(hls_model, x.astype(np.float32))
    expected = model(torch.from_numpy(x).float()).numpy()
    if expected.ndim >= 3:  # outputs of two axes or more are channels last
        expected = np.moveaxis(expected, 1, -1)
    atol = INTERPOLATING.get(case, 1e-4)
    np.testing.assert_allclose(result.to_double().reshape(expected.shape), expected, atol=atol)


def test_a_slice_that_takes_everything_is_no_layer() -> None:
    graph, _ = parse_pytorch_model(Net(lambda x: x[:, :] + 1), (4,))
    assert 'Gather' not in [layer.kind for layer in graph.layers.values()]


@pytest.mark.parametrize(
    ('function', 'words'),
    [
        (lambda x: x[:, torch.tensor([0, 2])], 'indexing with'),
        (lambda x: x[0], 'along the batch axis'),
        (lambda x: x[:, 5:9], 'the selection is empty'),
        (lambda x: torch.amax(x), 'reduce the batch too'),
        (lambda x: x.sum(dim=0), 'batch axis'),
    ],
)
def test_torch_indexing_that_cannot_be_converted_is_refused(function, words: str) -> None:
    with pytest.raises(ConversionError, match=words):
        parse_pytorch_model(Net(function), (4,))


@pytest.mark.parametrize('mode', ['bicubic', 'area'])
def test_other_upsampling_modes_are_refused_by_name(mode: str) -> None:
    shape = (2, 3, 4)
    model = Net(lambda x: torch.nn.functional.interpolate(x, scale_factor=2, mode=mode))
    with pytest.raises(ConversionError, match=f"mode '{mode}' is not supported"):
        parse_pytorch_model(model, shape)


def _onnx(node_of) -> object:
    g = OnnxGraph(opset=13, seed=1)
    return g.model({'x': (3, 4)}, [node_of(g)])


@pytest.mark.parametrize(
    ('node_of', 'words'),
    [
        (lambda g: g.node('Slice', ['x', g.ints([1]), g.ints([2]), g.ints([0])]), 'slicing the batch axis'),
        (lambda g: g.node('ReduceMax', ['x']), 'reduce the batch too'),
        (lambda g: g.node('ReduceSum', ['x', g.ints([0])]), 'batch axis'),
    ],
)
def test_onnx_slices_and_reductions_of_the_batch_are_refused(node_of, words: str) -> None:
    with pytest.raises(ConversionError, match=words):
        parse_onnx_model(_onnx(node_of))


def test_onnx_reduce_sum_with_empty_axes_and_noop_is_the_identity() -> None:
    model = _onnx(lambda g: g.node('Relu', [g.node('ReduceSum', ['x'], noop_with_empty_axes=1)]))
    graph, _ = parse_onnx_model(model)
    assert 'Reduce' not in [layer.kind for layer in graph.layers.values()]


@pytest.mark.parametrize(
    ('make', 'words'),
    [
        (lambda x: x[:, None], 'indexing with None'),
        (lambda x: keras.ops.sum(x), 'reduce the batch too'),
        (lambda x: keras.ops.max(x, axis=0), 'the batch axis'),
    ],
)
def test_keras_slices_and_reductions_that_cannot_be_converted_are_refused(make, words: str) -> None:
    inputs = keras.Input((4, 3), name='x')
    with pytest.raises(KerasConversionError, match=words):
        parse_keras_model(keras.Model(inputs, make(inputs)))
