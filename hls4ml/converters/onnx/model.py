"""Load an ONNX / QONNX model and run the qonnx clean-up, so that users need not.

`clean_model` works on a copy (the caller's model is never changed). After it:

* every node has a unique name (unnamed ones get `<OpType>_<index>`, as qonnx names them), and
  nodes that reach no graph output are gone;
* QONNX ops are in the qonnx domain, and the default ONNX domain is the first opset import (qonnx
  folds standard ops with the first one);
* every constant subgraph is folded into an initializer (Constant nodes, Shape -> Gather -> Concat
  chains, Quant / BipolarQuant on weights and the transposes after them), with the exact type of
  quantized constants kept in `precisions` (worked out before their quantizers fold away);
* graph inputs that are initializers are gone and every tensor has an inferred shape.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from hls4ml.converters.builder import ConversionError
from hls4ml.converters.onnx.quant import QONNX_OPS, constant_integers, precision_of_constant, quant_spec
from hls4ml.model.types import PrecisionType

QONNX_DOMAIN = 'qonnx.custom_op.general'
OLD_QONNX_DOMAINS = ('', 'onnx.brevitas', 'finn', 'finn.custom_op.general')
# ops that move constant values without changing them: a quantized constant keeps its type through them
VALUE_PRESERVING = ('Identity', 'Transpose', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze')
Dims = tuple[int | str | None, ...]


@dataclass(frozen=True)
class QuantizedConstant:
    """What a quantizer of a constant leaves besides the folded values: their exact type when the
    scale is a power of two; else the integers (q - zero point) and each element's float scale."""

    precision: PrecisionType | None
    integers: np.ndarray | None = None
    quantum: np.ndarray | None = None


def load_model(model: Any) -> Any:
    """A qonnx ModelWrapper around a private copy of `model` (ModelProto, ModelWrapper or path)."""
    from qonnx.core.modelwrapper import ModelWrapper

    source = 'the ONNX model'
    if isinstance(model, ModelWrapper):
        proto = model.model
    elif isinstance(model, onnx.ModelProto):
        proto = model
    elif isinstance(model, (str, Path)):
        proto, source = read_model_file(Path(model)), f"the ONNX file '{model}'"
    else:
        raise TypeError(f'expected an onnx.ModelProto, a qonnx ModelWrapper or a path, got {type(model).__name__}')
    check_graph(proto.graph, source)
    return ModelWrapper(copy.deepcopy(proto))


def read_model_file(path: Path) -> onnx.ModelProto:
    """The model saved at `path`; an empty, unreadable or corrupt file is refused naming the path."""
    if not path.is_file():
        raise FileNotFoundError(f"the ONNX file '{path}' does not exist or is not a file")
    if path.stat().st_size == 0:
        raise ConversionError(f"the ONNX file '{path}' is empty; save the model again (onnx.save or torch.onnx.export)")
    try:
        return onnx.load(str(path))
    except Exception as error:  # protobuf's DecodeError and friends: the bytes are not a ModelProto
        raise ConversionError(
            f"the ONNX file '{path}' cannot be read as an ONNX model ({type(error).__name__}: {error}); "
            'is it an .onnx file, complete and uncorrupted?'
        ) from error


def check_graph(graph: onnx.GraphProto, source: str) -> None:
    """What the qonnx tools would fail on with an assertion or a KeyError, refused with the tensor's name:
    no outputs, an output nothing computes, an output that is an input, an input axis of size <= 0."""
    if not graph.output:
        raise ConversionError(f'{source} has no graph outputs: it is empty or not an ONNX model')
    inputs = {graph_input.name for graph_input in graph.input}
    made = inputs | {name for node in graph.node for name in node.output} | {i.name for i in graph.initializer}
    for output in graph.output:
        if output.name not in made:
            raise ConversionError(f"{source}: output '{output.name}' is computed by no node (a dangling output)")
        if output.name in inputs:
            raise ConversionError(
                f"{source}: output '{output.name}' is an input unchanged: there is nothing to convert for it"
            )
    for graph_input in graph.input:
        dims = graph_input.type.tensor_type.shape.dim
        sizes = [dim.dim_value for dim in dims if dim.HasField('dim_value')]
        if any(size <= 0 for size in sizes):
            raise ConversionError(
                f"{source}: input '{graph_input.name}' has an axis of size <= 0 {[_dim(dim) for dim in dims]}; "
                'every axis of one sample needs a fixed size of at least 1'
            )


def prepare(wrapper: Any) -> None:
    """Names, dead nodes and domains, in place on the private copy (before any transformation)."""
    name_nodes(wrapper.graph)
    remove_dead_nodes(wrapper.graph)
    versions = {opset.domain: opset.version for opset in wrapper.model.opset_import}
    for node in wrapper.graph.node:
        if node.op_type in QONNX_OPS and node.domain in OLD_QONNX_DOMAINS:
            if QONNX_DOMAIN not in versions:
                versions[QONNX_DOMAIN] = versions.get(node.domain, 1) if node.domain else 1
            node.domain = QONNX_DOMAIN
    default = versions.pop('', versions.get('ai.onnx', 13))
    del wrapper.model.opset_import[:]
    wrapper.model.opset_import.append(onnx.helper.make_opsetid('', default))
    wrapper.model.opset_import.extend(onnx.helper.make_opsetid(domain, version) for domain, version in versions.items())


def name_nodes(graph: onnx.GraphProto) -> None:
    """Unnamed nodes, and every repeat of a name after its first node, become `<OpType>_<index>`."""
    given = {node.name for node in graph.node if node.name}
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    for node in graph.node:
        if not node.name or node.name in seen:
            name = f'{node.op_type}_{counts[node.op_type]}'
            while name in given or name in seen:
                counts[node.op_type] += 1
                name = f'{node.op_type}_{counts[node.op_type]}'
            node.name = name
        seen.add(node.name)


def remove_dead_nodes(graph: onnx.GraphProto) -> None:
    """Drop the nodes whose outputs reach no graph output (they would be built for nothing)."""
    live = {output.name for output in graph.output}
    dead = []
    for node in reversed(graph.node):
        if any(name in live for name in node.output):
            live.update(node.input)
        else:
            dead.append(node)
    for node in dead:
        graph.node.remove(node)


def clean_model(wrapper: Any) -> tuple[Any, dict[str, QuantizedConstant]]:
    """The cleaned model and what is known of the initializers that quantizers made."""
    from qonnx.transformation.fold_constants import FoldConstants
    from qonnx.transformation.general import RemoveStaticGraphInputs, RemoveUnusedTensors
    from qonnx.transformation.infer_shapes import InferShapes

    wrapper = wrapper.transform(InferShapes())
    wrapper = wrapper.transform(FoldConstants(exclude_op_types=list(QONNX_OPS)))
    precisions = quantized_constants(wrapper)
    wrapper = wrapper.transform(FoldConstants(exclude_op_types=[]))
    for transformation in (RemoveUnusedTensors(), RemoveStaticGraphInputs(), InferShapes()):
        wrapper = wrapper.transform(transformation)
    return wrapper, precisions


def quantized_constants(wrapper: Any) -> dict[str, QuantizedConstant]:
    """Tensor -> its quantizer's record, for quantizers whose inputs are all initializers and for
    value-preserving ops applied to such results (the folding that follows keeps the tensor names)."""
    records: dict[str, QuantizedConstant] = {}
    known = {initializer.name for initializer in wrapper.graph.initializer}
    for node in wrapper.graph.node:
        inputs = [name for name in node.input if name]
        if not inputs or any(name not in known for name in inputs):
            continue
        known.update(node.output)
        if node.op_type in ('Quant', 'BipolarQuant'):
            constants = [wrapper.get_initializer(name) for name in node.input[1:]]
            spec = quant_spec(node.op_type, constants, wrapper.get_customop_wrapper(node))
            precision = precision_of_constant(spec)
            if precision is not None:
                records[node.output[0]] = QuantizedConstant(precision)
            else:
                integers, quantum = constant_integers(spec, wrapper.get_initializer(node.input[0]))
                records[node.output[0]] = QuantizedConstant(None, integers, quantum)
        elif node.op_type in VALUE_PRESERVING and node.input[0] in records:
            records[node.output[0]] = _moved(wrapper, node, records[node.input[0]])
    return records


def _moved(wrapper: Any, node: onnx.NodeProto, record: QuantizedConstant) -> QuantizedConstant:
    """The record of a value-preserving op's output: integers and scales moved as the values are."""
    if record.integers is None or record.quantum is None or node.op_type == 'Identity':
        return record
    if node.op_type == 'Transpose':
        perm = next((list(a.ints) for a in node.attribute if a.name == 'perm'), None)
        return QuantizedConstant(None, np.transpose(record.integers, perm), np.transpose(record.quantum, perm))
    shape = wrapper.get_tensor_shape(node.output[0])
    if shape is None or int(np.prod(shape)) != record.integers.size:
        return QuantizedConstant(None)  # unknown layout: the folded floats are all there is
    return QuantizedConstant(None, record.integers.reshape(shape), record.quantum.reshape(shape))


def tensor_dims(graph: onnx.GraphProto) -> dict[str, Dims]:
    """Every tensor's inferred shape: an int per known dimension, the symbol of a symbolic one, None
    for an unknown one."""
    dims: dict[str, Dims] = {}
    for info in (*graph.input, *graph.value_info, *graph.output):
        if info.type.HasField('tensor_type') and info.type.tensor_type.HasField('shape'):
            dims[info.name] = tuple(_dim(dim) for dim in info.type.tensor_type.shape.dim)
    return dims


def _dim(dim: Any) -> int | str | None:
    if dim.HasField('dim_value'):
        return int(dim.dim_value)
    return dim.dim_param or None
