"""ONNX RNN / LSTM / GRU ops as torch.onnx.export writes them (LSTM 2 layers, bidirectional GRU, RNN relu):
predict() equals the reference interpreter bit for bit and PyTorch within the bound derived in
test/csim/recurrent_cases.py, on two backends (the third runs the same kernels from Keras and PyTorch)."""

from __future__ import annotations

import io

import numpy as np
import onnx
import pytest
import torch
from recurrent_cases import FEATURES, STEPS, framework_tolerance, hls_config

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim


class Stack(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, 3, num_layers=2, batch_first=True)
        self.gru = torch.nn.GRU(3, 2, batch_first=True, bidirectional=True)
        self.rnn = torch.nn.RNN(4, 3, batch_first=True, nonlinearity='relu')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rnn(self.gru(self.lstm(x)[0])[0])[0]


@pytest.mark.parametrize(('backend', 'io_type'), [('Vitis', 'io_stream'), ('oneAPI', 'io_parallel')])
def test_onnx_recurrent_ops(tmp_path, backend: str, io_type: str) -> None:
    torch.manual_seed(6)
    module = Stack().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
    buffer = io.BytesIO()
    torch.onnx.export(module, torch.zeros(1, STEPS, FEATURES), buffer, input_names=['x'], dynamo=False)
    config = hls_config(backend)
    config['Model']['TransposeOutputs'] = True
    model = hls4ml.converters.convert_from_onnx_model(
        onnx.load_from_string(buffer.getvalue()),
        hls_config=config,
        output_dir=str(tmp_path),
        backend=backend,
        io_type=io_type,
    )
    x = np.random.default_rng(8).uniform(-1, 1, (64, STEPS, FEATURES))
    predicted = np.asarray(model.predict(x), dtype=np.float64).reshape(len(x), -1)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    with torch.no_grad():
        expected = module(torch.tensor(x, dtype=torch.float32)).numpy().reshape(len(x), -1)
    np.testing.assert_allclose(predicted, expected, atol=framework_tolerance(model), rtol=0)
