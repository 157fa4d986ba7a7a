"""The `hls4ml.nn` layers carried in ONNX as custom ops of domain `hls4ml.nn` (`hls4ml.nn.onnx_ops`, written by
`hls4ml.nn.onnx.export`): each op becomes the IR layer that converting the PyTorch module directly gives,
built from the same parts (`som_layer_parts`, `resom_core.layer_parts`, the builder's routers).

An op of that domain that is not in `onnx_ops.OPS`, a missing or unknown attribute, a weight computed
from the model inputs or a bad setting is refused naming the node. onnxruntime cannot run these ops, so the
conversion check against the framework (`check_conversion`) is skipped for models that hold them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from hls4ml.converters.builder import Value
from hls4ml.converters.onnx.step import Step
from hls4ml.model.som_graphs import som_layer_parts
from hls4ml.nn.onnx_ops import DOMAIN, OPS
from hls4ml.nn.resom_core import layer_parts, make_settings

Importer = Callable[[Step, dict[str, Any]], Value]


def output_shape(op_type: str, settings: dict[str, Any], shape: list[int]) -> list[int]:
    """The output shape of an op whose first input has `shape` (batch axis included): the last axis changes."""
    width = shape[-1]
    if op_type == 'SOM':
        rows, cols = settings['grid']
        width = {'index': 1, 'label': 1, 'coordinates': 2, 'quantized': width}.get(settings['output'], rows * cols)
    elif op_type == 'ReSOM':
        units = int(np.prod(settings['grid_x'])) + int(np.prod(settings['grid_y']))
        width = {'label': 1, 'index': 1, 'winners': 2}.get(settings['output'], units)
    elif op_type == 'TopKRouter' and settings['output'] != 'gates':
        width = settings['k']
    return [*shape[:-1], int(width)]


def register_with_qonnx() -> None:
    """Tell qonnx's clean-up (shape inference, folding) the output shapes of the hls4ml.nn ops: one qonnx
    CustomOp per op, which stands in for it during shape inference only; qonnx cannot execute them."""
    from qonnx.custom_op.base import CustomOp as QonnxCustomOp
    from qonnx.custom_op.registry import add_op_to_domain

    class ShapeOnly(QonnxCustomOp):
        def get_nodeattr_types(self) -> dict[str, Any]:
            return {}

        def make_shape_compatible_op(self, model: Any) -> Any:
            node = self.onnx_node
            settings = {attribute.name: _decoded(attribute) for attribute in node.attribute}
            return self.make_const_shape_op(output_shape(node.op_type, settings, _input_shape(model, node)))

        def infer_node_datatype(self, model: Any) -> None:
            pass

        def execute_node(self, context: Any, graph: Any) -> None:
            raise NotImplementedError(f'{DOMAIN} {self.onnx_node.op_type}: only hls4ml converts this op')

        def verify_node(self) -> list[str]:
            return []

    for op_type in OPS:
        add_op_to_domain(DOMAIN, type(op_type, (ShapeOnly,), {}))


def _input_shape(model: Any, node: Any) -> list[int]:
    """The shape of the op's first input; inferred first when the file does not record it (the ops before
    it are standard or already stood in for, so ONNX's inference reaches it)."""
    from onnx import shape_inference
    from qonnx.core.modelwrapper import ModelWrapper

    shape = model.get_tensor_shape(node.input[0])
    if shape is None:
        shape = ModelWrapper(shape_inference.infer_shapes(model.model)).get_tensor_shape(node.input[0])
    if shape is None:
        raise ValueError(f"{DOMAIN} {node.op_type} '{node.name}': the shape of its input {node.input[0]!r} is unknown")
    return list(shape)


def _decoded(attribute: Any) -> Any:
    value = onnx.helper.get_attribute_value(attribute)
    return value.decode() if isinstance(value, bytes) else value


def carries_custom_ops(graph: Any) -> bool:
    """Whether an ONNX graph holds an op of the `hls4ml.nn` domain."""
    return any(node.domain == DOMAIN for node in graph.node)


def convert(step: Step) -> Value:
    """The IR layer of one `hls4ml.nn` node: its settings checked against the op table, then its importer."""
    op = OPS.get(step.node.op_type)
    if op is None or step.node.op_type not in IMPORTERS:
        raise step.unsupported(
            f'{step.node.op_type!r} is not an op of the {DOMAIN} domain; known: {", ".join(sorted(OPS))}'
        )
    unknown = sorted(set(step.attributes) - set(op.attributes))
    missing = sorted(set(op.attributes) - set(step.attributes))
    if unknown or missing:
        problems = [f'unknown attribute(s) {", ".join(unknown)}'] * bool(unknown)
        problems += [f'missing attribute(s) {", ".join(missing)}'] * bool(missing)
        raise step.unsupported(f'{DOMAIN} {op.op_type}: ' + '; '.join(problems))
    if len(step.node.input) != len(op.inputs):
        raise step.unsupported(f'{DOMAIN} {op.op_type} takes {len(op.inputs)} inputs ({", ".join(op.inputs)})')
    settings = {name: _setting(step, name, kind) for name, kind in op.attributes.items()}
    return IMPORTERS[op.op_type](step, settings)


def _setting(step: Step, name: str, kind: str) -> Any:
    """One attribute as the layer's function took it; a 'double' is a float64 scalar tensor."""
    value = step.attribute(name)
    if kind == 'double':
        if not isinstance(value, onnx.TensorProto) or numpy_helper.to_array(value).size != 1:
            raise step.unsupported(f'{DOMAIN} {step.node.op_type}: attribute {name} must be a float64 scalar tensor')
        return float(numpy_helper.to_array(value).reshape(-1)[0])
    expected = {'int': int, 'ints': list, 'string': str}[kind]
    if not isinstance(value, expected):
        raise step.unsupported(f'{DOMAIN} {step.node.op_type}: attribute {name} must be of kind {kind}, got {value!r}')
    return value


def _weights(step: Step, first: int) -> list[np.ndarray]:
    """The constant inputs from position `first` on, as float64 arrays."""
    return [np.asarray(step.constant(index).values, dtype=np.float64) for index in range(first, len(step.node.input))]


def _refused(step: Step, error: ValueError) -> Exception:
    return step.unsupported(str(error).removeprefix(f'{step.origin}: '))


def _som(step: Step, settings: dict[str, Any]) -> Value:
    codebook, labels = _weights(step, 1)
    output = settings['output']
    try:
        attributes, arrays = som_layer_parts(
            codebook,
            tuple(settings['grid']),
            settings['distance'],
            output,
            labels if output == 'label' else None,
            settings['topology'],
            settings['beta'],
            str(step.origin),
        )
    except ValueError as error:
        raise _refused(step, error) from error
    return step.builder.som(step.origin, step.tensor(0), attributes, arrays)


def _resom(step: Step, settings: dict[str, Any]) -> Value:
    codebook_x, codebook_y, lateral, labels_x, labels_y = _weights(step, 2)
    where = str(step.origin)
    names = ('distance', 'source', 'combine', 'iterations', 'output', 'beta_x', 'beta_y')
    try:
        checked = make_settings(
            tuple(settings['grid_x']),
            tuple(settings['grid_y']),
            **{name: settings[name] for name in names},
            where=where,
        )
        labels = np.concatenate([labels_x.reshape(-1), labels_y.reshape(-1)])
        attributes, arrays = layer_parts((codebook_x, codebook_y), lateral, labels, checked, where)
    except ValueError as error:
        raise _refused(step, error) from error
    return step.builder.resom(step.origin, step.tensor(0), step.tensor(1), attributes, arrays)


def _soft_topk(step: Step, settings: dict[str, Any]) -> Value:
    k, strength, mode, iterations, p = (settings[name] for name in ('k', 'strength', 'mode', 'iterations', 'p'))
    value = step.tensor(0)
    return step.builder.soft_topk(step.origin, value, int(k), float(strength), str(mode), int(iterations), float(p))


def _router(step: Step, settings: dict[str, Any]) -> Value:
    k, renormalize, output = settings['k'], bool(settings['renormalize']), str(settings['output'])
    limits = (int(settings['capacity']), int(settings['sinkhorn_iterations']))
    return step.builder.router(step.origin, step.tensor(0), int(k), renormalize, output, *limits)


def _expert_choice(step: Step, settings: dict[str, Any]) -> Value:
    soft = (float(settings['strength']), int(settings['iterations']))
    return step.builder.expert_choice(step.origin, step.tensor(0), int(settings['capacity']), *soft)


# op type -> its importer; one row per `onnx_ops.OPS` entry
IMPORTERS: dict[str, Importer] = {
    'SOM': _som,
    'ReSOM': _resom,
    'SparseSoftTopK': _soft_topk,
    'TopKRouter': _router,
    'ExpertChoiceRouter': _expert_choice,
}
