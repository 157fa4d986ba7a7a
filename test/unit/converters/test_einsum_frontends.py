"""Products of two computed tensors from every frontend -> IR Einsum: PyTorch (`@`, matmul, bmm,
einsum), Keras 3 (`keras.ops.matmul`, `keras.ops.einsum`, `keras.ops.transpose`) and ONNX (MatMul of
two tensors, Einsum). The emulator (no C++) must compute what the framework computes: inputs on a
grid of 2^-8 in [-2, 2) are exact in fixed<16,6>, the 'auto' accumulator and result keep every
product and sum exact, so the only difference left is the framework's own float rounding (none in
float64; float32 rounds sums above 2^8 at 2^-16 here, hence atol 1e-4 for Keras)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.model.interpreter import interpret
from hls4ml.model.kinds import Kind

PRECISION = {'default': 'fixed<16,6>', 'accum': 'auto', 'result': 'auto'}


def grid(shapes: list[tuple[int, ...]], seed: int = 0, n: int = 12) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-512, 512, (n, *shape)) / 256 for shape in shapes]


def einsums(model) -> list[str]:
    return [layer.attributes['equation'] for layer in model.graph.layers.values() if layer.kind == Kind.EINSUM]


class Attention(torch.nn.Module):
    """Q K^T per head (the transpose folded into the equation), then (Q K^T) V by einsum and bmm."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, ...]:
        scores = q @ k.transpose(-2, -1)
        mixed = torch.einsum('bhqk,bhkd->bhqd', scores, k)
        flat = torch.bmm(q.flatten(1, 2), k.flatten(1, 2).transpose(1, 2))
        return scores, mixed, flat


def torch_convert(module: torch.nn.Module, shapes: list, tmp_path, **kwargs):
    config = {'Model': {'Precision': PRECISION, 'ReuseFactor': 1}, 'InputShape': shapes}
    return hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path), backend='Vitis', **kwargs
    )


def channels_last(output: np.ndarray) -> np.ndarray:
    """A PyTorch output (batch first) as predict() returns it: channels last, flattened per sample."""
    return np.moveaxis(output, 1, -1).reshape(len(output), -1)


def test_pytorch_products_are_einsums_equal_to_torch(tmp_path) -> None:
    shapes = [(2, 3, 4), (2, 3, 4)]
    model = torch_convert(Attention(), shapes, tmp_path)
    assert einsums(model) == ['Amk,Ank->Amn', 'hqk,hkd->hqd', 'mk,nk->mn']  # no Transpose before any of them
    x = grid(shapes)
    outputs, _ = interpret(model, x)
    with torch.no_grad():
        expected = Attention()(*(torch.tensor(item) for item in x))
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_array_equal(got.to_double(), channels_last(want.numpy()))


class Broadcast(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


class AcrossBatch(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.einsum('bi,ci->bc', a, b)


@pytest.mark.parametrize(
    ('module', 'shapes', 'message'),
    [
        (Broadcast(), [(2, 3, 4), (4, 5)], 'same rank'),
        (AcrossBatch(), [(4,), (4,)], 'batch axis must be the first axis'),
    ],
)
def test_pytorch_refusals_say_why(module, shapes, message: str, tmp_path) -> None:
    with pytest.raises(ConversionError, match=message):
        torch_convert(module, shapes, tmp_path)


def test_keras_matmul_einsum_and_transpose_ops(tmp_path) -> None:
    keras = pytest.importorskip('keras')
    a, b = keras.Input((3, 4)), keras.Input((5, 4))
    scores = keras.ops.einsum('bqd,bkd->bqk', a, b)
    transposed = keras.ops.matmul(a, keras.ops.transpose(b, (0, 2, 1)))
    mixed = keras.ops.matmul(scores, b)
    model = keras.Model([a, b], [scores, transposed, mixed])
    config = {'Model': {'Precision': PRECISION, 'ReuseFactor': 1}}
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path))
    assert einsums(hls_model) == ['qd,kd->qk', 'mk,kn->mn', 'mk,kn->mn']
    x = grid([(3, 4), (5, 4)])
    outputs, _ = interpret(hls_model, x)
    for got, want in zip(outputs, model.predict(x, verbose=0), strict=True):
        np.testing.assert_allclose(got.to_double(), want.reshape(len(want), -1), atol=1e-4, rtol=0)


def test_keras_einsum_across_the_batch_is_refused(tmp_path) -> None:
    keras = pytest.importorskip('keras')
    a, b = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([a, b], keras.ops.einsum('bi,ci->bc', a, b))
    with pytest.raises(ValueError, match='batch axis'):
        hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path))


def test_onnx_matmul_of_two_tensors_and_einsum(tmp_path) -> None:
    onnx = pytest.importorskip('onnx')

    class Pair(torch.nn.Module):
        def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
            return torch.einsum('bhqk,bhkd->bhqd', torch.matmul(q, k.transpose(-2, -1)), k)

    shape = (2, 3, 4)
    path = tmp_path / 'pair.onnx'
    example = torch.zeros(1, *shape)
    torch.onnx.export(Pair(), (example, example), str(path), input_names=['q', 'k'], dynamo=False)
    config = {'Model': {'Precision': PRECISION, 'ReuseFactor': 1}}
    model = hls4ml.converters.convert_from_onnx_model(
        onnx.load(str(path)), hls_config=config, output_dir=str(tmp_path / 'prj')
    )
    assert einsums(model) == ['Amk,Ank->Amn', 'hqk,hkd->hqd']
    x = grid([shape, shape])
    (output,), _ = interpret(model, x)
    with torch.no_grad():
        expected = Pair()(*(torch.tensor(item) for item in x)).numpy()
    np.testing.assert_array_equal(output.to_double(), channels_last(expected))


EINSUM_DENSE_CASES = [  # equation, output_shape, bias_axes, input shape (no batch), IR equation
    ('ab,bc->ac', (5,), 'c', (4,), 'b,bc->c'),
    ('abc,cd->abd', (None, 5), 'd', (3, 4), 'bc,cd->bd'),
    ('abc,cde->abde', (None, 2, 3), 'de', (3, 4), 'bc,cde->bde'),
    ('abc,cde->abde', (None, 2, 3), 'e', (3, 4), 'bc,cde->bde'),
    ('abc,bcd->ad', (6,), 'd', (3, 4), 'bc,bcd->d'),
    ('abcd,cde->abe', (None, 5), 'e', (3, 2, 2), 'bcd,cde->be'),  # the attention output projection
    ('abc,cb->ac', (4,), None, (3, 4), 'bc,cb->c'),
]


@pytest.mark.parametrize(('equation', 'output_shape', 'bias_axes', 'shape', 'ir_equation'), EINSUM_DENSE_CASES)
def test_keras_einsum_dense_equals_keras(equation, output_shape, bias_axes, shape, ir_equation, tmp_path) -> None:
    """Weights and biases on a 2^-6 grid, inputs on 2^-8: every product and sum exact, so the
    emulator equals Keras up to float32's rounding of Keras' own sums."""
    keras = pytest.importorskip('keras')
    inputs = keras.Input(shape)
    layer = keras.layers.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes, activation='relu')
    model = keras.Model(inputs, layer(inputs))
    rng = np.random.default_rng(3)
    layer.set_weights([rng.integers(-64, 64, w.shape) / 64 for w in layer.get_weights()])
    config = {'Model': {'Precision': {'default': 'fixed<16,6>', 'accum': 'auto', 'result': 'auto'}}}
    config['LayerName'] = {f'{layer.name}_relu': {'Precision': {'result': 'fixed<32,12>'}}}
    hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path))
    assert [(layer.kind, layer.attributes.get('equation')) for layer in hls_model.graph.layers.values()][1:] == [
        (Kind.EINSUM_DENSE, ir_equation),
        (Kind.ACTIVATION, None),
    ]
    x = grid([shape], seed=4, n=16)[0]
    (output,), _ = interpret(hls_model, x)
    expected = model.predict(x, verbose=0)
    np.testing.assert_allclose(output.to_double(), expected.reshape(len(expected), -1), atol=1e-5, rtol=0)
