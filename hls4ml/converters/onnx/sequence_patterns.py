"""GELU and layer normalization written out as elementary ops, fused back into one node each.

Before opset 20 (GELU) and 17 (layer normalization) `torch.onnx.export` writes them out:

    GELU:      Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5)
    LayerNorm: ReduceMean(x) -> Sub(x, .) -> Pow(2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(Sub, .)
               -> Mul(scale) -> Add(bias)         (the ReduceMeans over the trailing axes, keepdims)

`fuse_sequence_patterns` replaces each match, on the graph as loaded, by the `Gelu` or
`LayerNormalization` node that later opsets write (named after the last node of the match, which
keeps its output), so the handlers of those ops convert them. A chain matches only when each
intermediate value feeds nothing but the next node of the chain; otherwise the nodes stay as they
are and the unsupported ones (Erf, ReduceMean, ...) are reported by name.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import onnx
from onnx import numpy_helper

GELU_CONSTANTS = {'root_two': math.sqrt(2.0), 'one': 1.0, 'half': 0.5}


class _Graph:
    """Producers, readers and constants of an ONNX graph, for matching."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.producers = {name: node for node in graph.node for name in node.output}
        self.readers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        for node in graph.node:
            for name in node.input:
                self.readers[name].append(node)
        self.outputs = {output.name for output in graph.output}
        self.initializers = {tensor.name: tensor for tensor in graph.initializer}

    def constant(self, name: str) -> np.ndarray | None:
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        node = self.producers.get(name)
        if node is not None and node.op_type == 'Constant' and node.attribute and node.attribute[0].name == 'value':
            return numpy_helper.to_array(node.attribute[0].t)
        return None

    def scalar(self, name: str, value: float) -> bool:
        found = self.constant(name)
        return found is not None and found.size == 1 and math.isclose(float(found.reshape(-1)[0]), value, rel_tol=1e-6)

    def only_reader(self, name: str, op_type: str) -> onnx.NodeProto | None:
        """The one node reading `name`, when it is an `op_type` and `name` is no graph output."""
        readers = self.readers.get(name, [])
        if len(readers) != 1 or name in self.outputs or readers[0].op_type != op_type:
            return None
        return readers[0]

    def other_input(self, node: onnx.NodeProto, name: str) -> str | None:
        """The input of a two-input node that is not `name`."""
        if len(node.input) != 2 or name not in node.input:
            return None
        return node.input[1] if node.input[0] == name else node.input[0]


def fuse_sequence_patterns(graph: onnx.GraphProto, opset: int) -> None:
    """Fuse every GELU and layer normalization chain (module docstring), in place."""
    view = _Graph(graph)
    for erf in [node for node in graph.node if node.op_type == 'Erf']:
        _fuse_gelu(view, erf)
    view = _Graph(graph)
    for sqrt in [node for node in graph.node if node.op_type == 'Sqrt']:
        _fuse_layer_norm(view, sqrt, opset)


def _replace(view: _Graph, chain: list[onnx.NodeProto], fused: onnx.NodeProto) -> None:
    """`fused` takes the place of the chain's last node; the chain's nodes go (their constants die)."""
    nodes = view.graph.node
    position = list(nodes).index(chain[-1])
    nodes.insert(position, fused)
    for node in chain:
        nodes.remove(node)


def _fuse_gelu(view: _Graph, erf: onnx.NodeProto) -> None:
    scaled = view.producers.get(erf.input[0])
    if scaled is None or scaled.op_type != 'Div' or not view.scalar(scaled.input[1], GELU_CONSTANTS['root_two']):
        return
    x = scaled.input[0]
    add = view.only_reader(erf.output[0], 'Add')
    if view.only_reader(scaled.output[0], 'Erf') is None or add is None:
        return
    if not view.scalar(view.other_input(add, erf.output[0]) or '', GELU_CONSTANTS['one']):
        return
    product = view.only_reader(add.output[0], 'Mul')
    if product is None or view.other_input(product, add.output[0]) != x:
        return
    halving = view.only_reader(product.output[0], 'Mul')
    if halving is None or not view.scalar(view.other_input(halving, product.output[0]) or '', GELU_CONSTANTS['half']):
        return
    fused = onnx.helper.make_node('Gelu', [x], [halving.output[0]], name=halving.name)
    _replace(view, [scaled, erf, add, product, halving], fused)


def _trailing_axes(view: _Graph, node: onnx.NodeProto, opset: int) -> int | None:
    """k when a keepdims ReduceMean reduces the last k axes (given as negative axes), else None."""
    attributes = {attribute.name: onnx.helper.get_attribute_value(attribute) for attribute in node.attribute}
    if attributes.get('keepdims', 1) != 1:
        return None
    axes = attributes.get('axes')
    if axes is None and len(node.input) > 1:  # opset 18: the axes are an input
        found = view.constant(node.input[1])
        axes = None if found is None else [int(axis) for axis in found.reshape(-1)]
    if not axes or sorted(axes) != list(range(-len(axes), 0)):
        return None
    return len(axes)


def _fuse_layer_norm(view: _Graph, sqrt: onnx.NodeProto, opset: int) -> None:
    plus = view.producers.get(sqrt.input[0])
    variance = view.producers.get(plus.input[0]) if plus is not None and plus.op_type == 'Add' else None
    square = view.producers.get(variance.input[0]) if variance is not None else None
    centred = view.producers.get(square.input[0]) if square is not None and square.op_type == 'Pow' else None
    if centred is None or centred.op_type != 'Sub' or variance is None or variance.op_type != 'ReduceMean':
        return
    mean = view.producers.get(centred.input[1])
    x = centred.input[0]
    epsilon = view.constant(plus.input[1]) if plus is not None else None
    axes = _trailing_axes(view, variance, opset)
    if mean is None or mean.op_type != 'ReduceMean' or mean.input[0] != x or epsilon is None or epsilon.size != 1:
        return
    if axes is None or _trailing_axes(view, mean, opset) != axes or not view.scalar(square.input[1], 2.0):
        return
    division = view.only_reader(sqrt.output[0], 'Div')
    scaling = view.only_reader(division.output[0], 'Mul') if division is not None else None
    shift = view.only_reader(scaling.output[0], 'Add') if scaling is not None else None
    if division is None or scaling is None or shift is None or division.input[0] != centred.output[0]:
        return
    scale, bias = view.other_input(scaling, division.output[0]), view.other_input(shift, scaling.output[0])
    readers = {node.name for node in view.readers[centred.output[0]]}
    if scale is None or bias is None or view.constant(scale) is None or view.constant(bias) is None:
        return
    if readers != {square.name, division.name} or view.only_reader(mean.output[0], 'Sub') is None:
        return
    if any(view.only_reader(node.output[0], op) is None for node, op in ((square, 'ReduceMean'), (variance, 'Add'))):
        return
    fused = onnx.helper.make_node(
        'LayerNormalization', [x, scale, bias], [shift.output[0]], name=shift.name, axis=-axes, epsilon=float(epsilon)
    )
    _replace(view, [mean, centred, square, variance, plus, sqrt, division, scaling, shift], fused)
