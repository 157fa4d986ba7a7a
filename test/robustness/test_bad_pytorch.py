"""PyTorch models and input shapes a converter meets in the wild: refused with a clear error naming the
shape, module or output, or (a module called twice) converted to what torch computes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from refusals import refused

import hls4ml
from hls4ml.model.interpreter import interpret

WIDE = 'fixed<32,12>'


def convert(model: torch.nn.Module, shape, tmp_path):
    config = hls4ml.utils.config_from_pytorch_model(model, input_shape=shape, default_precision=WIDE)
    return hls4ml.converters.convert_from_pytorch_model(model, hls_config=config, output_dir=str(tmp_path / 'prj'))


@pytest.mark.parametrize('shape', [(0,), (-2,), (None,), ('a',), (2.5,), (), (4, 0)])
def test_a_bad_input_shape_is_refused_naming_it(shape, tmp_path) -> None:
    refused(lambda: convert(torch.nn.Sequential(torch.nn.ReLU()), shape, tmp_path), f'input_shape {shape}')


def test_a_linear_layer_with_no_outputs_is_refused_naming_it(tmp_path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # torch: "Initializing zero-element tensors is a no-op"
        model = torch.nn.Sequential(torch.nn.Linear(4, 0))
    refused(lambda: convert(model, (4,), tmp_path), "layer 'layer_0' (Dense, from '0' Linear)", 'has shape (0,)')


@pytest.mark.parametrize('model', [torch.nn.Identity(), torch.nn.Sequential(), torch.nn.Dropout(0.5)])
def test_a_model_that_computes_nothing_is_refused(model, tmp_path) -> None:
    refused(lambda: convert(model, (4,), tmp_path), 'is its input unchanged', 'nothing to convert')


class ConstantOutput(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ones(3)


def test_a_constant_output_is_refused(tmp_path) -> None:
    refused(lambda: convert(ConstantOutput(), (4,), tmp_path), 'output 0 of the model is not a tensor computed')


def test_a_wrong_input_shape_is_refused_naming_the_module(tmp_path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 3))
    refused(lambda: convert(model, (5,), tmp_path), "'0' (Linear, module 0): PyTorch fails on inputs")


def test_not_a_module_is_refused(tmp_path) -> None:
    refused(lambda: convert('model.pt', (4,), tmp_path), 'expected a torch.nn.Module')


class TwiceCalled(torch.nn.Module):
    """One Linear applied twice: torch.fx gives one node per call, each with the module's weights."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.fc(x)))


def test_a_module_called_twice_converts_to_what_torch_computes(tmp_path) -> None:
    model = TwiceCalled()
    hls_model = convert(model, (4,), tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()].count('Dense') == 2
    x = np.random.default_rng(0).uniform(-2, 2, (16, 4)).astype(np.float32)
    (outputs,), _ = interpret(hls_model, x)
    with torch.no_grad():
        expected = model(torch.tensor(x)).numpy()
    np.testing.assert_allclose(outputs.to_double(), expected, atol=1e-3)
