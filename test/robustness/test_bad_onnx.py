"""ONNX models and files a converter meets in the wild and cannot convert: each is refused with a clear
error naming the file, tensor or node (before, some reached a KeyError or an assertion inside qonnx)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from refusals import refused

import hls4ml
from hls4ml.converters.builder import ConversionError


def convert(model, tmp_path):
    return hls4ml.converters.convert_from_onnx_model(model, output_dir=str(tmp_path / 'prj'))


def relu_model(outputs=('y',), input_dims=(1, 4), extra=()) -> onnx.ModelProto:
    """x -> Relu -> y, with the given graph outputs and input shape."""
    graph = helper.make_graph(
        [helper.make_node('Relu', ['x'], ['y'], name='relu'), *extra],
        'relu',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, list(input_dims))],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])


def test_the_plain_model_converts(tmp_path) -> None:
    assert [layer.kind for layer in convert(relu_model(), tmp_path).get_layers()] == ['Input', 'Activation']


@pytest.mark.parametrize('outputs', [('y', 'dangling'), ('dangling',)])
def test_a_dangling_output_is_refused_naming_it(outputs, tmp_path) -> None:
    refused(lambda: convert(relu_model(outputs), tmp_path), "output 'dangling' is computed by no node")


def test_an_output_that_is_the_input_is_refused(tmp_path) -> None:
    """qonnx asserted 'Multiple ValueInfoProto found for x' before."""
    refused(lambda: convert(relu_model(('x',)), tmp_path), "output 'x' is an input unchanged")


@pytest.mark.parametrize('dims', [(1, 0), (1, -3), (1, 2, 0)])
def test_an_input_axis_of_size_zero_or_less_is_refused(dims, tmp_path) -> None:
    refused(lambda: convert(relu_model(input_dims=dims), tmp_path), "input 'x' has an axis of size <= 0")


def test_symbolic_sample_axes_are_refused(tmp_path) -> None:
    refused(lambda: convert(relu_model(input_dims=('N', 'M')), tmp_path), "input 'x'", 'fixed sizes')


def test_an_empty_file_is_refused_naming_the_path(tmp_path) -> None:
    path = tmp_path / 'empty.onnx'
    path.write_bytes(b'')
    refused(lambda: convert(str(path), tmp_path), f"the ONNX file '{path}' is empty", error=ConversionError)


@pytest.mark.parametrize('content', [b'\x00\xffnot a protobuf' * 8, b'hello world\n'], ids=['binary', 'text'])
def test_a_corrupt_file_is_refused_naming_the_path(content, tmp_path) -> None:
    path = tmp_path / 'corrupt.onnx'
    path.write_bytes(content)
    refused(lambda: convert(path, tmp_path), f"the ONNX file '{path}' cannot be read as an ONNX model")


def test_a_truncated_file_is_refused_naming_the_path(tmp_path) -> None:
    whole = relu_model(extra=[helper.make_node('Relu', ['y'], ['z'], name='second')]).SerializeToString()
    path = tmp_path / 'truncated.onnx'
    path.write_bytes(whole[: len(whole) // 2])
    refused(lambda: convert(path, tmp_path), f"the ONNX file '{path}'")


@pytest.mark.parametrize('name', ['missing.onnx', '.'])
def test_a_missing_file_or_a_directory_is_refused_naming_the_path(name, tmp_path) -> None:
    path = tmp_path / name
    refused(lambda: convert(str(path), tmp_path), f"'{path}' does not exist or is not a file", error=FileNotFoundError)


@pytest.mark.parametrize('model', [onnx.ModelProto(), helper.make_model(helper.make_graph([], 'empty', [], []))])
def test_a_model_without_outputs_is_refused(model, tmp_path) -> None:
    refused(lambda: convert(model, tmp_path), 'has no graph outputs')


def test_not_a_model_is_refused(tmp_path) -> None:
    refused(lambda: convert(b'bytes', tmp_path), 'expected an onnx.ModelProto', error=TypeError)


def test_a_matrix_product_to_zero_outputs_is_refused(tmp_path) -> None:
    """A (4, 0) weight makes a zero-size tensor: refused naming the node's layer (a reshape error before)."""
    weight = numpy_helper.from_array(np.zeros((4, 0), np.float32), 'W')
    graph = helper.make_graph(
        [helper.make_node('MatMul', ['x', 'W'], ['y'], name='product')],
        'product',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)],
        initializer=[weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    refused(lambda: convert(model, tmp_path), "layer 'product'", 'has shape (0,)')


def test_a_node_reading_an_undefined_tensor_is_refused(tmp_path) -> None:
    graph = helper.make_graph(
        [helper.make_node('Relu', ['undefined'], ['y'], name='reader')],
        'undefined',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    refused(lambda: convert(model, tmp_path), "'reader' (Relu, node 0)", 'missing')
