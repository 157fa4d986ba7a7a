"""The sequence building blocks (docs/sequence.md) compiled with g++: predict() equals the reference
interpreter bit for bit on Vitis, oneAPI and Catapult in the IO types they support, and tracks the
framework within a tolerance the precision explains.

Tolerances: inputs in [-2, 2) quantized to ap_fixed<16,6> (step 2**-10) and weights to their fitted
16-bit types; a dense output sums n_in = 6 products each off by at most ~2**-10 * |w| + 2**-11 * |x|,
then is rounded once more (TRN: up to 2**-10), so 0.01 bounds it with room. A table function reads
the entry at the left end of its input's grid interval: off by up to one table step times the
largest slope (GELU 1.13, SiLU 1.10), plus the table type's and the result's rounding (2**-10 each):
`table_tolerance` computes that from the very table the layer uses. Softmax: the 18-bit exp and
inverse tables (docs/kernels.md) are good to ~1e-2 relative, the outputs are in [0, 1]: 0.02.
"""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import io  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.tables import activation_table  # noqa: E402

pytestmark = pytest.mark.csim
L = keras.layers
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
PRECISION = 'ap_fixed<16,6>'


def _inputs(shape: tuple[int, ...], n: int = 24) -> np.ndarray:
    return np.random.default_rng(3).uniform(-2, 2, (n, *shape)).astype(np.float32)


def _check(hls_model, x: np.ndarray, framework: np.ndarray, atol: float) -> np.ndarray:
    """predict() == the interpreter bit for bit, and within `atol` of the framework output."""
    predicted = hls_model.predict(x)
    expected, _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, expected[0].to_double().astype(predicted.dtype))
    np.testing.assert_allclose(predicted, framework.reshape(len(x), -1), atol=atol)
    return predicted


def _keras(model: keras.Model, tmp_path, backend: str, io_type: str, **layer_settings: dict):
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=PRECISION)
    for name, settings in layer_settings.items():
        config['LayerName'][name].update(settings)
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / f'{backend}_{io_type}'), backend=backend, io_type=io_type
    )


def _torch(model: torch.nn.Module, shape: tuple[int, ...], tmp_path, backend: str = 'Vitis'):
    config = hls4ml.utils.config_from_pytorch_model(
        model, (shape,), granularity='name', default_precision=PRECISION, transpose_outputs=True
    )
    return hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend, transpose_outputs=True
    )


def _supported(backend: str, io_type: str) -> bool:
    return io_type not in dict(hls4ml.backends.get_backend(backend).unsupported_io)


# ---- Dense along the last axis of any rank --------------------------------------------------------

DENSE_SHAPES = [(5, 6), (3, 4, 6), (2, 2, 3, 6)]


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('shape', DENSE_SHAPES, ids=lambda shape: f'{len(shape)}d')
def test_keras_dense_along_the_last_axis(shape: tuple[int, ...], io_type: str, tmp_path) -> None:
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input(shape), L.Dense(4, activation='relu', name='dense')])
    x = _inputs(shape)
    hls_model = _keras(model, tmp_path, 'Vitis', io_type, dense={'ReuseFactor': 2, 'Strategy': 'Resource'})
    _check(hls_model, x, model.predict(x, verbose=0), atol=0.01)


@pytest.mark.parametrize('shape', [(5, 6), (2, 2, 3, 6)], ids=lambda shape: f'{len(shape)}d')
def test_torch_linear_along_the_last_axis(shape: tuple[int, ...], tmp_path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU()).eval()
    x = _inputs(shape)
    _check(_torch(model, shape, tmp_path), x, model(torch.tensor(x)).detach().numpy(), atol=0.01)


@pytest.mark.parametrize('backend', BACKENDS[1:])
def test_dense_along_the_last_axis_is_identical_on_every_backend(backend: str, tmp_path) -> None:
    keras.utils.set_random_seed(2)
    model = keras.Sequential([keras.Input((3, 4, 6)), L.Dense(5)])
    x = _inputs((3, 4, 6))
    framework = model.predict(x, verbose=0)
    vitis = _check(_keras(model, tmp_path, 'Vitis', 'io_parallel'), x, framework, atol=0.01)
    for io_type in ('io_parallel', 'io_stream'):
        if _supported(backend, io_type):
            other = _check(_keras(model, tmp_path, backend, io_type), x, framework, atol=0.01)
            np.testing.assert_array_equal(other, vitis)


# ---- softmax along any axis --------------------------------------------------------------------------

SOFTMAX_CASES = {  # input shape, Keras axis (counting the batch axis, as Keras does)
    'last_of_2d': ((4, 5), -1),
    'first_of_2d': ((4, 5), 1),
    'middle_of_3d': ((3, 4, 5), 2),
}


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('case', sorted(SOFTMAX_CASES))
def test_keras_softmax_along_an_axis(case: str, io_type: str, tmp_path) -> None:
    shape, axis = SOFTMAX_CASES[case]
    model = keras.Sequential([keras.Input(shape), L.Softmax(axis=axis, name='softmax')])
    x = 2 * _inputs(shape)
    _check(_keras(model, tmp_path, 'Vitis', io_type), x, model.predict(x, verbose=0), atol=0.02)


@pytest.mark.parametrize('implementation', ['latency', 'argmax'])
def test_softmax_implementations_along_the_last_axis(implementation: str, tmp_path) -> None:
    """latency: exp(x) read from a table over the input range; argmax: one-hot of each row's maximum."""
    model = keras.Sequential([keras.Input((4, 5)), L.Softmax(axis=-1, name='softmax')])
    x = _inputs((4, 5))
    framework = model.predict(x, verbose=0)
    if implementation == 'argmax':
        framework = (framework == framework.max(axis=-1, keepdims=True)).astype(np.float32)
    hls_model = _keras(model, tmp_path, 'Vitis', 'io_parallel', softmax={'Implementation': implementation})
    _check(hls_model, x, framework, atol=0.02)


@pytest.mark.parametrize('dim', [1, -1])
def test_torch_softmax_along_a_dim(dim: int, tmp_path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Softmax(dim=dim)).eval()
    x = _inputs((3, 6))
    _check(_torch(model, (3, 6), tmp_path), x, model(torch.tensor(x)).detach().numpy(), atol=0.02)


@pytest.mark.parametrize('backend', BACKENDS[1:])
def test_softmax_along_an_axis_is_identical_on_every_backend(backend: str, tmp_path) -> None:
    model = keras.Sequential([keras.Input((3, 4, 5)), L.Softmax(axis=1)])
    x = 2 * _inputs((3, 4, 5))
    framework = model.predict(x, verbose=0)
    vitis = _check(_keras(model, tmp_path, 'Vitis', 'io_parallel'), x, framework, atol=0.02)
    for io_type in ('io_parallel', 'io_stream'):
        if _supported(backend, io_type):
            np.testing.assert_array_equal(_check(_keras(model, tmp_path, backend, io_type), x, framework, 0.02), vitis)


# ---- GELU (erf and tanh forms) and SiLU --------------------------------------------------------------

MAX_SLOPES = {'gelu': 1.13, 'gelu_tanh': 1.13, 'silu': 1.10}


def table_tolerance(function: str) -> float:
    """One step of the layer's table times the function's largest slope, plus two roundings."""
    spec = activation_table(function, 'fixed<16,6>', 'fixed<18,8,TRN,WRAP,0>')
    return spec.step * MAX_SLOPES[function] + 2 * 2.0**-10


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('name', ['gelu', 'silu', 'swish'])
def test_keras_transformer_activations(name: str, io_type: str, tmp_path) -> None:
    model = keras.Sequential([keras.Input((4, 6)), L.Activation(name)])
    x = 3 * _inputs((4, 6))
    function = 'silu' if name == 'swish' else name
    _check(_keras(model, tmp_path, 'Vitis', io_type), x, model.predict(x, verbose=0), table_tolerance(function))


TORCH_ACTIVATIONS = {
    'gelu': lambda: torch.nn.GELU(),
    'gelu_tanh': lambda: torch.nn.GELU(approximate='tanh'),
    'silu': lambda: torch.nn.SiLU(),
}


@pytest.mark.parametrize('function', sorted(TORCH_ACTIVATIONS))
def test_torch_transformer_activations(function: str, tmp_path) -> None:
    model = torch.nn.Sequential(TORCH_ACTIVATIONS[function]()).eval()
    x = 3 * _inputs((6,))
    _check(_torch(model, (6,), tmp_path), x, model(torch.tensor(x)).numpy(), table_tolerance(function))


@pytest.mark.parametrize('function', ['gelu', 'gelu_tanh'])
def test_onnx_gelu_op_of_opset_20(function: str, tmp_path) -> None:
    module = torch.nn.Sequential(TORCH_ACTIVATIONS[function]()).eval()
    buffer = io.BytesIO()
    torch.onnx.export(module, (torch.zeros(1, 6),), buffer, input_names=['x'], dynamo=False, opset_version=20)
    model = onnx.load_from_string(buffer.getvalue())
    assert [node.op_type for node in model.graph.node] == ['Gelu']
    config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision=PRECISION)
    hls_model = hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = 3 * _inputs((6,))
    _check(hls_model, x, module(torch.tensor(x)).numpy(), table_tolerance(function))


@pytest.mark.parametrize('backend', BACKENDS[1:])
def test_transformer_activations_are_identical_on_every_backend(backend: str, tmp_path) -> None:
    inputs = keras.Input((4, 6))
    model = keras.Model(inputs, L.Activation('silu')(L.Activation('gelu')(inputs)))
    x = 3 * _inputs((4, 6))
    vitis = _keras(model, tmp_path, 'Vitis', 'io_parallel').predict(x)
    for io_type in ('io_parallel', 'io_stream'):
        if _supported(backend, io_type):
            hls_model = _keras(model, tmp_path, backend, io_type)
            np.testing.assert_array_equal(hls_model.predict(x), vitis)
            expected, _ = interpret(hls_model, x)
            np.testing.assert_array_equal(vitis, expected[0].to_double().astype(vitis.dtype))


# ---- LayerNormalization --------------------------------------------------------------------------------


def layernorm_tolerance(x: np.ndarray, gamma: np.ndarray, n: int, input_error: float = 2.0**-10) -> float:
    """Derived bound (docs/sequence.md): the kernel's normalized value is within 1.5 * 2**-F of the exact
    one on the quantized input (F: the fraction of norm_t, 16 - 4 = 12 bits here); an error of the input
    (its truncation, <= 2**-10 per value) moves a normalized value by <= 2 * error / std of its row; both
    times max |gamma|; the scale and bias are written to 16 bits (a few 2**-15) and the result is wide."""
    rows = x.reshape(-1, n).astype(np.float64)
    std = rows.std(axis=1).min()
    return float(np.abs(gamma).max() * (1.5 * 2.0**-12 + 2 * input_error / std) + 4 * 2.0**-15)


def keras_layernorm(shape: tuple[int, ...], epsilon: float = 1e-3) -> keras.Model:
    model = keras.Sequential([keras.Input(shape), L.LayerNormalization(epsilon=epsilon, name='ln')])
    rng = np.random.default_rng(5)
    model.get_layer('ln').set_weights([rng.uniform(0.5, 1.5, shape[-1]), rng.uniform(-0.5, 0.5, shape[-1])])
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_keras_layer_normalization(io_type: str, tmp_path) -> None:
    model = keras_layernorm((4, 8))
    x = _inputs((4, 8))
    gamma = model.get_layer('ln').get_weights()[0]
    atol = layernorm_tolerance(x, gamma, 8)
    _check(_keras(model, tmp_path, 'Vitis', io_type), x, model.predict(x, verbose=0), atol)


@pytest.mark.parametrize('shape', [(8,), (3, 2, 4)], ids=['one_axis', 'two_axes'])
def test_torch_layer_norm_over_the_last_axes(shape: tuple[int, ...], tmp_path) -> None:
    normalized = shape[-1:] if len(shape) == 1 else shape[-2:]
    model = torch.nn.Sequential(torch.nn.LayerNorm(normalized, eps=1e-5)).eval()
    with torch.no_grad():
        model[0].weight.uniform_(0.5, 1.5)
        model[0].bias.uniform_(-0.5, 0.5)
    x = _inputs(shape)
    n = int(np.prod(normalized))
    atol = layernorm_tolerance(x, model[0].weight.detach().numpy(), n)
    _check(_torch(model, shape, tmp_path), x, model(torch.tensor(x)).detach().numpy(), atol)


def test_onnx_layer_normalization_op(tmp_path) -> None:
    module = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8)).eval()
    buffer = io.BytesIO()
    torch.onnx.export(module, (torch.zeros(1, 3, 6),), buffer, input_names=['x'], dynamo=False, opset_version=17)
    model = onnx.load_from_string(buffer.getvalue())
    assert 'LayerNormalization' in [node.op_type for node in model.graph.node]
    config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision=PRECISION)
    hls_model = hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = _inputs((3, 6))
    framework = module(torch.tensor(x)).detach().numpy()
    channels_last = framework.transpose(0, 2, 1)  # the default output layout of a (tokens, features) tensor
    # the input of the normalization is a dense output, within 0.01 of the float one (see the top)
    hidden = module[0](torch.tensor(x)).detach().numpy()
    _check(hls_model, x, channels_last, atol=layernorm_tolerance(hidden, np.ones(8), 8, input_error=0.01))


@pytest.mark.parametrize('backend', BACKENDS[1:])
def test_layer_normalization_is_identical_on_every_backend(backend: str, tmp_path) -> None:
    model = keras_layernorm((3, 8), epsilon=1e-5)
    x = _inputs((3, 8))
    framework = model.predict(x, verbose=0)
    atol = layernorm_tolerance(x, model.get_layer('ln').get_weights()[0], 8)
    vitis = _check(_keras(model, tmp_path, 'Vitis', 'io_parallel'), x, framework, atol)
    for io_type in ('io_parallel', 'io_stream'):
        if _supported(backend, io_type):
            np.testing.assert_array_equal(_check(_keras(model, tmp_path, backend, io_type), x, framework, atol), vitis)


# ---- Embedding ---------------------------------------------------------------------------------------


def table_lsb(hls_model, name: str) -> float:
    """A looked-up value is the table entry written into its fitted type: off by at most one LSB."""
    return 2.0 ** -hls_model.graph.layers[name].types['embeddings'].fractional


def keras_embedding() -> keras.Model:
    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((5,), dtype='int32'), L.Embedding(10, 4, name='emb')])
    model.get_layer('emb').set_weights([np.random.default_rng(4).normal(0, 1, (10, 4))])
    return model


def indices(n: int = 24) -> np.ndarray:
    """Indices into a table of 10 rows, two of them outside it (12 and -1: rows of zeros)."""
    x = np.random.default_rng(6).integers(0, 10, (n, 5))
    x[0, 0], x[1, 3] = 12, -1
    return x


def expected_rows(table: np.ndarray, x: np.ndarray) -> np.ndarray:
    inside = (x >= 0) & (x < len(table))
    return np.where(inside[..., np.newaxis], table[np.clip(x, 0, len(table) - 1)], 0.0)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_keras_embedding_with_indices_outside_the_table(io_type: str, tmp_path) -> None:
    model = keras_embedding()
    x = indices()
    hls_model = _keras(model, tmp_path, 'Vitis', io_type)
    table = model.get_layer('emb').get_weights()[0]
    predicted = _check(hls_model, x.astype(np.float64), expected_rows(table, x), table_lsb(hls_model, 'emb'))
    assert not predicted[0, :4].any() and not predicted[1, 12:16].any()


def test_torch_embedding(tmp_path) -> None:
    model = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.Linear(4, 3)).eval()
    x = indices()
    x[x < 0] = 0  # PyTorch refuses indices outside its table
    x[x >= 10] = 9
    hls_model = _torch(model, (5,), tmp_path)
    framework = model(torch.tensor(x)).detach().numpy()
    # the linear layer sums 4 table values, each off by one LSB, times weights below 1: within 0.01 more
    _check(hls_model, x.astype(np.float64), framework, atol=0.01 + 4 * table_lsb(hls_model, 'layer_0'))


def test_onnx_gather_of_a_constant_table(tmp_path) -> None:
    module = torch.nn.Sequential(torch.nn.Embedding(10, 4)).eval()
    buffer = io.BytesIO()
    example = torch.zeros(1, 5, dtype=torch.long)
    torch.onnx.export(module, (example,), buffer, input_names=['x'], dynamo=False, opset_version=13)
    model = onnx.load_from_string(buffer.getvalue())
    assert [node.op_type for node in model.graph.node] == ['Gather']
    config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision=PRECISION)
    hls_model = hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = indices()
    table = module[0].weight.detach().numpy()
    (name,) = [name for name, layer in hls_model.graph.layers.items() if layer.kind == 'Embedding']
    framework = expected_rows(table, x).transpose(0, 2, 1)  # the default channels-last output layout
    _check(hls_model, x.astype(np.float64), framework, table_lsb(hls_model, name))


@pytest.mark.parametrize('backend', BACKENDS[1:])
def test_embedding_is_identical_on_every_backend(backend: str, tmp_path) -> None:
    model = keras_embedding()
    x = indices().astype(np.float64)
    vitis = _keras(model, tmp_path, 'Vitis', 'io_parallel').predict(x)
    for io_type in ('io_parallel', 'io_stream'):
        if _supported(backend, io_type):
            hls_model = _keras(model, tmp_path, backend, io_type)
            np.testing.assert_array_equal(hls_model.predict(x), vitis)
            expected, _ = interpret(hls_model, x)
            np.testing.assert_array_equal(vitis, expected[0].to_double().astype(vitis.dtype))


# ---- ONNX graphs that write GELU and layer normalization out as elementary ops ------------------------


def _exported(module: torch.nn.Module, shape: tuple[int, ...], opset: int) -> onnx.ModelProto:
    buffer = io.BytesIO()
    torch.onnx.export(
        module.eval(), (torch.zeros(1, *shape),), buffer, input_names=['x'], dynamo=False, opset_version=opset
    )
    return onnx.load_from_string(buffer.getvalue())


def _onnx(model: onnx.ModelProto, tmp_path):
    config = hls4ml.utils.config_from_onnx_model(
        model, granularity='name', default_precision=PRECISION, transpose_outputs=True
    )
    return hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', transpose_outputs=True
    )


def test_onnx_erf_graph_of_gelu_is_fused(tmp_path) -> None:
    module = torch.nn.Sequential(torch.nn.GELU())
    model = _exported(module, (6,), 17)
    assert 'Erf' in [node.op_type for node in model.graph.node]
    hls_model = _onnx(model, tmp_path)
    assert [layer.attributes.get('activation') for layer in hls_model.graph.layers.values()][1:] == ['gelu']
    x = 3 * _inputs((6,))
    _check(hls_model, x, module(torch.tensor(x)).numpy(), table_tolerance('gelu'))


def test_onnx_reduce_mean_graph_of_layer_norm_is_fused(tmp_path) -> None:
    module = torch.nn.Sequential(torch.nn.LayerNorm(8, eps=1e-5))
    with torch.no_grad():
        module[0].weight.uniform_(0.5, 1.5)
        module[0].bias.uniform_(-0.5, 0.5)
    model = _exported(module, (3, 8), 16)
    assert 'ReduceMean' in [node.op_type for node in model.graph.node]
    hls_model = _onnx(model, tmp_path)
    (layer,) = [layer for layer in hls_model.graph.layers.values() if layer.kind == 'LayerNormalization']
    assert layer.attributes['epsilon'] == pytest.approx(1e-5) and layer.attributes['n_slice'] == 8
    x = _inputs((3, 8))
    atol = layernorm_tolerance(x, module[0].weight.detach().numpy(), 8)
    _check(hls_model, x, module(torch.tensor(x)).detach().numpy(), atol)
