"""Recurrent layers from Keras 3 and PyTorch, checked by meaning without a compiler: the reference
interpreter (bit-exact with the firmware, test/csim/keras/test_recurrent_csim.py) run with wide types and
fine tables must reproduce what the framework computes.

Why 2e-3: with 40-bit states (2^-30 LSB) and tables of 2^20 entries the only visible error is the
table's left-end grid: each lookup is off by at most its step (2^-14 for tanh, 2^-13 for sigmoid) times
the slope (<= 1), about 1e-4, and a value passes through at most three lookups per step; over 6 steps,
with recurrent weights of row sums < 1 (so an error does not grow from step to step), that is < 2e-3.
A wrong gate order, bias or direction shows up as errors of 0.05 and more.
"""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from hls4ml.converters import convert_from_keras_model, convert_from_pytorch_model  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

STEPS, FEATURES = 6, 3
TOLERANCE = 2e-3
TABLES = {
    'SimpleRNN': ('act_table',),
    'GRU': ('act_table', 'rec_table'),
    'LSTM': ('act_table', 'rec_table', 'cell_table'),
}
SAMPLES = np.random.default_rng(3).uniform(-1, 1, (32, STEPS, FEATURES))


def fine_config(kinds: tuple[str, ...]) -> dict:
    """40-bit states and accumulators (cap raised), tables of 2^20 entries, for every recurrent kind."""
    entries = {kind: {'Precision': dict.fromkeys(TABLES[kind], 'fixed<34,2>'), 'TableSize': 2**20} for kind in kinds}
    return {'Model': {'Precision': {'default': 'fixed<40,10>', 'maximum': 'fixed<64,16>'}}, 'LayerType': entries}


def small_weights(model: keras.Model) -> None:
    """Weights of magnitude < 0.3, so the recurrent row sums stay below 1 (see the module docstring)."""
    rng = np.random.default_rng(11)
    model.set_weights([rng.uniform(-0.3, 0.3, weight.shape) for weight in model.get_weights()])


def keras_case(layer: keras.layers.Layer) -> tuple[keras.Model, np.ndarray]:
    inputs = keras.Input((STEPS, FEATURES))
    model = keras.Model(inputs, layer(inputs))
    small_weights(model)
    return model, np.asarray(model(SAMPLES.astype(np.float32)), dtype=np.float64).reshape(len(SAMPLES), -1)


KERAS_LAYERS = {
    'simple_rnn': lambda: keras.layers.SimpleRNN(4, return_sequences=True),
    'simple_rnn_relu_backwards': lambda: keras.layers.SimpleRNN(4, activation='relu', go_backwards=True),
    'lstm': lambda: keras.layers.LSTM(4),
    'lstm_sequences_backwards': lambda: keras.layers.LSTM(3, return_sequences=True, go_backwards=True),
    'gru_reset_after': lambda: keras.layers.GRU(4, return_sequences=True),
    'gru_reset_before': lambda: keras.layers.GRU(4, reset_after=False),
    'gru_no_bias_softsign': lambda: keras.layers.GRU(3, use_bias=False, activation='softsign'),
    'bidirectional_concat': lambda: keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True)),
    'bidirectional_sum': lambda: keras.layers.Bidirectional(keras.layers.GRU(3), merge_mode='sum'),
    'bidirectional_ave': lambda: keras.layers.Bidirectional(keras.layers.SimpleRNN(3, return_sequences=True), 'ave'),
}


@pytest.mark.parametrize('case', sorted(KERAS_LAYERS))
def test_keras_layer_matches_keras(tmp_path, case: str) -> None:
    model, expected = keras_case(KERAS_LAYERS[case]())
    config = fine_config(('SimpleRNN', 'LSTM', 'GRU'))
    hls_model = convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path))
    (output,), _ = interpret(hls_model, SAMPLES)
    np.testing.assert_allclose(output.to_double().reshape(len(SAMPLES), -1), expected, atol=TOLERANCE, rtol=0)


STATE_LAYERS = {
    'lstm': lambda: keras.layers.LSTM(4, return_state=True),
    'lstm_sequences_backwards': lambda: keras.layers.LSTM(
        3, return_sequences=True, return_state=True, go_backwards=True
    ),
    'gru_sequences': lambda: keras.layers.GRU(3, return_sequences=True, return_state=True),
    'simple_rnn': lambda: keras.layers.SimpleRNN(3, return_state=True),
}


@pytest.mark.parametrize('case', sorted(STATE_LAYERS))
def test_keras_return_state_matches_keras(tmp_path, case: str) -> None:
    """Every output of return_state=True: the sequence or last h, then h (and the LSTM's c)."""
    inputs = keras.Input((STEPS, FEATURES))
    model = keras.Model(inputs, STATE_LAYERS[case]()(inputs))
    small_weights(model)
    expected = [np.asarray(output, dtype=np.float64) for output in model(SAMPLES.astype(np.float32))]
    hls_model = convert_from_keras_model(model, hls_config=fine_config(tuple(TABLES)), output_dir=str(tmp_path))
    outputs, _ = interpret(hls_model, SAMPLES)
    assert len(outputs) == len(expected) == (3 if case.startswith('lstm') else 2)
    for output, framework in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(output.to_double().reshape(framework.shape), framework, atol=TOLERANCE, rtol=0)


class TorchStack(torch.nn.Module):
    """nn.LSTM (2 layers), then a bidirectional nn.GRU with batch_first=False between the model's axis
    swaps, then nn.RNN (relu); the last h_n read as h_n[0]."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, 4, num_layers=2, batch_first=True)
        self.gru = torch.nn.GRU(4, 3, bidirectional=True)
        self.rnn = torch.nn.RNN(6, 3, batch_first=True, nonlinearity='relu')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sequence, _ = self.lstm(x)
        sequence, _ = self.gru(sequence.transpose(0, 1))
        _, last = self.rnn(sequence.permute(1, 0, 2))
        return last[0]


def test_torch_modules_match_torch(tmp_path) -> None:
    torch.manual_seed(0)
    module = TorchStack().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
        expected = module(torch.tensor(SAMPLES, dtype=torch.float32)).numpy()
    config = {**fine_config(('SimpleRNN', 'LSTM', 'GRU')), 'InputShape': (STEPS, FEATURES)}
    hls_model = convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    kinds = [layer.kind for layer in hls_model.graph.layers.values()]
    assert kinds.count('LSTM') == 2 and kinds.count('GRU') == 2 and kinds.count('SimpleRNN') == 1
    (output,), _ = interpret(hls_model, SAMPLES)
    np.testing.assert_allclose(output.to_double(), expected, atol=TOLERANCE, rtol=0)


def test_torch_sequence_output_in_framework_order(tmp_path) -> None:
    """transpose_outputs=True: the (steps, hidden) output of nn.GRU comes back as PyTorch orders it."""
    torch.manual_seed(1)
    module = torch.nn.Sequential()
    gru = torch.nn.GRU(FEATURES, 3, batch_first=True)

    class Sequence(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = gru

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.gru(x)[0]

    module = Sequence().eval()
    with torch.no_grad():
        expected = module(torch.tensor(SAMPLES, dtype=torch.float32)).numpy().reshape(len(SAMPLES), -1)
    config = {**fine_config(('GRU',)), 'InputShape': (STEPS, FEATURES)}
    config['Model']['TransposeOutputs'] = True
    hls_model = convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    (output,), _ = interpret(hls_model, SAMPLES)
    np.testing.assert_allclose(output.to_double(), expected, atol=TOLERANCE, rtol=0)


@pytest.mark.parametrize(
    ('layer', 'message'),
    [
        (lambda: keras.layers.LSTM(2, stateful=True), 'stateful=True is not supported'),
        (
            lambda: keras.layers.Bidirectional(keras.layers.GRU(2, return_state=True)),
            'return_state=True is not supported in Bidirectional',
        ),
        (lambda: keras.layers.SimpleRNN(2, activation='gelu'), "activation 'gelu' is not supported"),
        (lambda: keras.layers.LSTM(2, recurrent_activation='hard_sigmoid'), "'hard_sigmoid' is not supported"),
    ],
)
def test_keras_refusals_name_the_layer(tmp_path, layer, message: str) -> None:
    inputs = keras.Input((STEPS, FEATURES), batch_size=1)
    built = layer()
    outputs = built(inputs)
    model = keras.Model(inputs, outputs[0] if isinstance(outputs, list) else outputs)
    with pytest.raises(ValueError, match=message) as error:
        convert_from_keras_model(model, output_dir=str(tmp_path))
    assert built.name in str(error.value)


def test_torch_refusals(tmp_path) -> None:
    class BatchSecond(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = torch.nn.LSTM(FEATURES, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.lstm(x)[0]

    with pytest.raises(ValueError, match=r'batch_first=False reads \(steps, batch, features\).*x.transpose\(0, 1\)'):
        convert_from_pytorch_model(
            BatchSecond(), hls_config={'InputShape': (STEPS, FEATURES)}, output_dir=str(tmp_path)
        )


class OnnxStack(torch.nn.Module):
    """What torch.onnx.export writes as ONNX LSTM (2 layers), GRU (bidirectional; batch_first=False between
    the model's axis swaps, which export as the same Transpose chain) and RNN (relu) ops."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, 4, num_layers=2, batch_first=True)
        self.gru = torch.nn.GRU(4, 3, bidirectional=True)
        self.rnn = torch.nn.RNN(6, 3, batch_first=True, nonlinearity='relu')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sequence = self.gru(self.lstm(x)[0].transpose(0, 1))[0].transpose(0, 1)
        return self.rnn(sequence)[0]


def exported(module: torch.nn.Module):
    import io

    import onnx

    buffer = io.BytesIO()
    torch.onnx.export(module, torch.zeros(1, STEPS, FEATURES), buffer, input_names=['x'], dynamo=False)
    return onnx.load_from_string(buffer.getvalue())


def test_onnx_recurrent_ops_match_torch(tmp_path) -> None:
    from hls4ml.converters import convert_from_onnx_model

    torch.manual_seed(4)
    module = OnnxStack().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
        expected = module(torch.tensor(SAMPLES, dtype=torch.float32)).numpy().reshape(len(SAMPLES), -1)
    config = fine_config(('SimpleRNN', 'LSTM', 'GRU'))
    config['Model']['TransposeOutputs'] = True
    hls_model = convert_from_onnx_model(exported(module), hls_config=config, output_dir=str(tmp_path))
    kinds = [layer.kind for layer in hls_model.graph.layers.values()]
    assert kinds == ['Input', 'LSTM', 'LSTM', 'GRU', 'GRU', 'Concatenate', 'SimpleRNN']
    (output,), _ = interpret(hls_model, SAMPLES)
    np.testing.assert_allclose(output.to_double(), expected, atol=TOLERANCE, rtol=0)


def test_onnx_recurrent_op_outside_the_torch_form_is_refused(tmp_path) -> None:
    """A recurrent op whose Y_h (torch's h_n) is read is refused, naming the op."""
    from hls4ml.converters import convert_from_onnx_model

    class LastState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = torch.nn.GRU(FEATURES, 3, batch_first=True)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.gru(x)[1]

    with pytest.raises(ValueError, match='GRU.*only the first output is supported'):
        convert_from_onnx_model(exported(LastState().eval()), output_dir=str(tmp_path))


class TimeMajorRead(torch.nn.Module):
    """A batch_first=False output read time major: by a Linear (allowed in PyTorch) or as the model output."""

    def __init__(self, linear: bool) -> None:
        super().__init__()
        self.rnn, self.linear = torch.nn.RNN(FEATURES, 2), linear
        self.dense = torch.nn.Linear(2, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sequence = self.rnn(x.transpose(0, 1))[0]
        return self.dense(sequence) if self.linear else sequence


@pytest.mark.parametrize('linear', [True, False])
def test_torch_time_major_tensor_read_otherwise_is_refused(tmp_path, linear: bool) -> None:
    with pytest.raises(
        ValueError, match=r'batch on axis 1 \(x.transpose\(0, 1\)\).*transpose it back|back to batch-first'
    ):
        convert_from_pytorch_model(
            TimeMajorRead(linear), hls_config={'InputShape': (STEPS, FEATURES)}, output_dir=str(tmp_path)
        )


class LstmFinalStates(torch.nn.Module):
    """An LSTM's h_n and c_n read beside its output (batch_first=False between the model's swaps)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        output, (h, c) = self.lstm(x.transpose(0, 1))
        return output.transpose(0, 1)[:, -1], h[0], c[-1]


def test_torch_lstm_h_n_and_c_n_match_torch(tmp_path) -> None:
    torch.manual_seed(5)
    module = LstmFinalStates().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
        expected = [item.numpy() for item in module(torch.tensor(SAMPLES, dtype=torch.float32))]
    config = {**fine_config(('LSTM',)), 'InputShape': (STEPS, FEATURES)}
    hls_model = convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    outputs, _ = interpret(hls_model, SAMPLES)
    for output, framework in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(output.to_double(), framework, atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(outputs[0].to_double(), outputs[1].to_double(), atol=0)  # the last h, twice
    assert np.abs(outputs[2].to_double() - outputs[1].to_double()).max() > 0.01  # c is not h


HIDDEN = 4


class Cells(torch.nn.Module):
    """nn.LSTMCell from given (h, c), nn.GRUCell from h, nn.RNNCell (relu) from zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm, self.gru = torch.nn.LSTMCell(FEATURES, HIDDEN), torch.nn.GRUCell(FEATURES, HIDDEN)
        self.rnn = torch.nn.RNNCell(FEATURES, HIDDEN, nonlinearity='relu')

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h_next, c_next = self.lstm(x, (h, c))
        return h_next, c_next, self.gru(x, h), self.rnn(x)


class InitialStates(torch.nn.Module):
    """Sequence modules from given states: (batch, hidden) inputs unsqueezed to torch's (1, batch, hidden)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm, self.gru = torch.nn.LSTM(FEATURES, HIDDEN, batch_first=True), torch.nn.GRU(FEATURES, HIDDEN)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, ...]:
        output, (h_n, c_n) = self.lstm(x, (h.unsqueeze(0), c.unsqueeze(0)))
        gru_output, gru_h = self.gru(x.transpose(0, 1), h.unsqueeze(0))
        return output, h_n[0], c_n[0], gru_output.transpose(0, 1), gru_h[0]


@pytest.mark.parametrize(('module_class', 'first'), [(Cells, (FEATURES,)), (InitialStates, (STEPS, FEATURES))])
def test_torch_cells_and_initial_states_match_torch(tmp_path, module_class, first: tuple[int, ...]) -> None:
    torch.manual_seed(6)
    module = module_class().eval()
    rng = np.random.default_rng(8)
    shapes = [first, (HIDDEN,), (HIDDEN,)]
    inputs = [rng.uniform(-1, 1, (len(SAMPLES), *shape)) for shape in shapes]
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
        expected = [item.numpy() for item in module(*(torch.tensor(item, dtype=torch.float32) for item in inputs))]
    config = {**fine_config(tuple(TABLES)), 'InputShape': shapes}
    config['Model']['TransposeOutputs'] = True
    hls_model = convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    outputs, _ = interpret(hls_model, inputs)
    for output, framework in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(output.to_double().reshape(framework.shape), framework, atol=TOLERANCE, rtol=0)
    started = [layer for layer in hls_model.graph.layers.values() if layer.attributes.get('initial_state')]
    assert len(started) == (3 if module_class is Cells else 5)  # every recurrent layer but the RNNCell's


class TwoLayerStates(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = torch.nn.GRU(FEATURES, 2, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return self.gru(x, h.transpose(0, 1))[0]


def test_torch_initial_states_of_two_layers_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match='initial states are supported for one layer in one direction'):
        convert_from_pytorch_model(
            TwoLayerStates(), hls_config={'InputShape': [(STEPS, FEATURES), (2, 2)]}, output_dir=str(tmp_path)
        )


class StackedFinalStates(torch.nn.Module):
    """h_n and c_n of a 2-layer bidirectional LSTM, item by item and whole (swapped to batch first)."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(FEATURES, 3, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(FEATURES, 2, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        _, (h, c) = self.lstm(x)
        return h[0], h[-1], c[1], h.transpose(0, 1), self.gru(x)[1][-1]


def test_torch_h_n_and_c_n_of_several_layers_and_directions_match_torch(tmp_path) -> None:
    torch.manual_seed(7)
    module = StackedFinalStates().eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-0.3, 0.3)
        expected = [item.numpy() for item in module(torch.tensor(SAMPLES, dtype=torch.float32))]
    config = {**fine_config(('LSTM', 'GRU')), 'InputShape': (STEPS, FEATURES)}
    config['Model']['TransposeOutputs'] = True
    hls_model = convert_from_pytorch_model(module, hls_config=config, output_dir=str(tmp_path))
    outputs, _ = interpret(hls_model, SAMPLES)
    for output, framework in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(output.to_double().reshape(framework.shape), framework, atol=TOLERANCE, rtol=0)
    cells = [layer for layer in hls_model.graph.layers.values() if layer.attributes.get('output_cell')]
    assert len(cells) == 1  # only c_n[1] is read: the other c layers are dropped
