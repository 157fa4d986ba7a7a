"""nn.LSTM (2 layers), a bidirectional nn.GRU (batch_first=False, between axis swaps) and nn.RNN (relu,
its h_n) compiled on every backend: predict() equals the reference interpreter bit for bit and PyTorch
within the bound derived in test/csim/recurrent_cases.py (`framework_tolerance`)."""

from __future__ import annotations

import numpy as np
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
        self.gru = torch.nn.GRU(3, 2, bidirectional=True)  # batch_first=False: the model swaps the axes
        self.rnn = torch.nn.RNN(4, 3, batch_first=True, nonlinearity='relu')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sequence, _ = self.lstm(x)
        sequence, _ = self.gru(sequence.transpose(0, 1))
        sequence = sequence.transpose(0, 1)
        _, last = self.rnn(sequence)
        return last[0]


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('oneAPI', 'io_parallel'), ('Catapult', 'io_stream')]
)
def test_torch_recurrent_modules(tmp_path, backend: str, io_type: str) -> None:
    torch.manual_seed(2)
    module = Stack().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
    config = {**hls_config(backend), 'InputShape': (STEPS, FEATURES)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(4).uniform(-1, 1, (64, STEPS, FEATURES))
    predicted = np.asarray(model.predict(x), dtype=np.float64).reshape(len(x), -1)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    with torch.no_grad():
        expected = module(torch.tensor(x, dtype=torch.float32)).numpy()
    np.testing.assert_allclose(predicted, expected, atol=framework_tolerance(model), rtol=0)


class Cells(torch.nn.Module):
    """nn.LSTMCell from given (h, c) -- its h' and c' --, nn.GRUCell from h, nn.RNNCell from zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm, self.gru = torch.nn.LSTMCell(FEATURES, 3), torch.nn.GRUCell(FEATURES, 3)
        self.rnn = torch.nn.RNNCell(FEATURES, 3)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        h_next, c_next = self.lstm(x, (h, c))
        return torch.cat([h_next, c_next, self.gru(x, h), self.rnn(x)], dim=1)


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_stream'), ('oneAPI', 'io_parallel'), ('Catapult', 'io_parallel')]
)
def test_torch_cells(tmp_path, backend: str, io_type: str) -> None:
    """One step from initial states that are model inputs (nnet::lstm_from, gru_from)."""
    torch.manual_seed(3)
    module = Cells().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
    config = {**hls_config(backend), 'InputShape': [(FEATURES,), (3,), (3,)]}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    rng = np.random.default_rng(5)
    x = [rng.uniform(-1, 1, (64, FEATURES)), rng.uniform(-1, 1, (64, 3)), rng.uniform(-1, 1, (64, 3))]
    predicted = np.asarray(model.predict(x), dtype=np.float64).reshape(64, -1)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    with torch.no_grad():
        expected = module(*(torch.tensor(item, dtype=torch.float32) for item in x)).numpy()
    np.testing.assert_allclose(predicted, expected, atol=framework_tolerance(model), rtol=0)
