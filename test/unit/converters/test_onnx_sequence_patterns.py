"""The fusion of GELU's erf graph and the ReduceMean graph of layer normalization (opsets before 20
and 17) into one Gelu / LayerNormalization node; a chain whose values are read elsewhere stays."""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from hls4ml.converters.onnx.sequence_patterns import fuse_sequence_patterns


def _constant(name: str, value: float) -> onnx.NodeProto:
    return helper.make_node('Constant', [], [name], value=numpy_helper.from_array(np.array(value, np.float32)))


def gelu_graph(extra_output: bool = False) -> onnx.GraphProto:
    nodes = [
        _constant('root_two', math.sqrt(2)),
        helper.make_node('Div', ['x', 'root_two'], ['scaled'], name='div'),
        helper.make_node('Erf', ['scaled'], ['erf'], name='erf'),
        _constant('one', 1.0),
        helper.make_node('Add', ['erf', 'one'], ['plus'], name='add'),
        helper.make_node('Mul', ['x', 'plus'], ['product'], name='mul'),
        _constant('half', 0.5),
        helper.make_node('Mul', ['product', 'half'], ['y'], name='gelu'),
    ]
    value = helper.make_tensor_value_info
    outputs = [value('y', TensorProto.FLOAT, [1, 4])] + ([value('erf', TensorProto.FLOAT, [1, 4])] * extra_output)
    return helper.make_graph(nodes, 'g', [value('x', TensorProto.FLOAT, [1, 4])], outputs)


def test_the_erf_chain_becomes_one_gelu_named_after_its_last_node() -> None:
    graph = gelu_graph()
    fuse_sequence_patterns(graph, 17)
    fused = [node for node in graph.node if node.op_type != 'Constant']
    assert [(node.op_type, node.name, list(node.input), list(node.output)) for node in fused] == [
        ('Gelu', 'gelu', ['x'], ['y'])
    ]


def test_a_chain_whose_value_is_read_elsewhere_is_left_alone() -> None:
    graph = gelu_graph(extra_output=True)
    fuse_sequence_patterns(graph, 17)
    assert 'Erf' in [node.op_type for node in graph.node] and 'Gelu' not in [node.op_type for node in graph.node]
