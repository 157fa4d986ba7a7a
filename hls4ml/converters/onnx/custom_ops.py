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
from hls4ml.converters.soft_moe import soft_moe
from hls4ml.model.som_graphs import som_layer_parts
from hls4ml.nn import resom_maps_core
from hls4ml.nn.onnx_ops import DOMAIN, OPS, CustomOp
from hls4ml.nn.resom_core import layer_parts, make_settings

Importer = Callable[[Step, dict[str, Any]], Value]


def output_shape(op_type: str, settings: dict[str, Any], shapes: list[list[int]]) -> list[int]:
    """The output shape of an op whose inputs have `shapes` (the first with its batch axis): the first
    input's, its last axis changed."""
    first, width = shapes[0], shapes[0][-1]
    if op_type == 'SOM':
        rows, cols = settings['grid']
        width = {'index': 1, 'label': 1, 'coordinates': 2, 'quantized': width}.get(settings['output'], rows * cols)
    elif op_type == 'ReSOM':
        units = int(np.prod(settings['grid_x'])) + int(np.prod(settings['grid_y']))
        width = {'label': 1, 'index': 1, 'winners': 2}.get(settings['output'], units)
    elif op_type == 'ReSOMMaps':
        grids = np.reshape(settings['grids'], (-1, 2))
        units = int(np.prod(grids, axis=1).sum())
        width = {'label': 1, 'index': 1, 'winners': len(grids)}.get(settings['output'], units)
    elif op_type == 'TopKRouter' and settings['output'] != 'gates':
        width = settings['k']
    elif op_type == 'SoftTopKRouter' and settings['output'] == 'overflow':
        width = 1
    elif op_type in ('SparseMoE', 'SparseMoEFFN', 'SoftMoE'):
        width = shapes[-1][-1]  # the last expert biases (experts, outputs)
    return [*first[:-1], int(width)]


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
            shapes = [_input_shape(model, node, index) for index in range(len(node.input))]
            return self.make_const_shape_op(output_shape(node.op_type, settings, shapes))

        def infer_node_datatype(self, model: Any) -> None:
            pass

        def execute_node(self, context: Any, graph: Any) -> None:
            raise NotImplementedError(f'{DOMAIN} {self.onnx_node.op_type}: only hls4ml converts this op')

        def verify_node(self) -> list[str]:
            return []

    for op_type in OPS:
        add_op_to_domain(DOMAIN, type(op_type, (ShapeOnly,), {}))


def _input_shape(model: Any, node: Any, index: int) -> list[int]:
    """The shape of the op's input `index` (a weight's from its initializer); inferred first when the file
    does not record it (the ops before it are standard or already stood in for, so ONNX's inference
    reaches it)."""
    from onnx import shape_inference
    from qonnx.core.modelwrapper import ModelWrapper

    name = node.input[index]
    initializer = model.get_initializer(name)
    shape = list(initializer.shape) if initializer is not None else model.get_tensor_shape(name)
    if shape is None:
        shape = ModelWrapper(shape_inference.infer_shapes(model.model)).get_tensor_shape(name)
    if shape is None:
        raise ValueError(f"{DOMAIN} {node.op_type} '{node.name}': the shape of its input {name!r} is unknown")
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
    settings = {name: _setting(step, name, kind) for name, kind in op.attributes.items()}
    settings['list_length'] = _list_length(step, op)
    return IMPORTERS[op.op_type](step, settings)


def _list_length(step: Step, op: CustomOp) -> int:
    """How many tensors each list input of the op holds (0 for an op without lists), from the node's
    input count; a count that the op's inputs do not explain is refused."""
    singles, count = len(op.inputs) - len(op.lists), len(step.node.input)
    if not op.lists:
        if count != singles:
            raise step.unsupported(f'{DOMAIN} {op.op_type} takes {singles} inputs ({", ".join(op.inputs)})')
        return 0
    length, rest = divmod(count - singles, len(op.lists))
    if rest or length < 2:
        lists = ', '.join(op.lists)
        raise step.unsupported(
            f'{DOMAIN} {op.op_type} takes {len(op.lists)} lists ({lists}) of M >= 2 tensors each and '
            f'{singles} more input(s), {len(op.lists)} M + {singles} in all; the node has {count}'
        )
    return length


def _setting(step: Step, name: str, kind: str) -> Any:
    """One attribute as the layer's function took it; a 'double' is a float64 scalar tensor."""
    value = step.attribute(name)
    if kind in ('double', 'doubles'):
        array = numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else None
        if array is None or array.dtype != np.float64 or (kind == 'double' and array.size != 1):
            what = 'a float64 scalar tensor' if kind == 'double' else 'a float64 tensor'
            raise step.unsupported(f'{DOMAIN} {step.node.op_type}: attribute {name} must be {what}')
        return float(array.reshape(-1)[0]) if kind == 'double' else [float(item) for item in array.reshape(-1)]
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
    power = settings['p']  # an integral power as the int the module's default is (p = 2), so the IR is the same
    soft = (
        float(settings['strength']),
        int(settings['iterations']),
        int(power) if float(power).is_integer() else power,
    )
    return step.builder.expert_choice(step.origin, step.tensor(0), int(settings['capacity']), *soft)


def _resom_maps(step: Step, settings: dict[str, Any]) -> Value:
    maps, where = settings['list_length'], str(step.origin)
    values = [step.tensor(index) for index in range(maps)]
    weights = _weights(step, maps)
    codebooks, matrix, labels = weights[:maps], weights[maps], weights[maps + 1 :]
    grids = [tuple(pair) for pair in np.reshape(settings['grids'], (-1, 2)).tolist()]
    names = ('distance', 'source', 'combine', 'iterations', 'output', 'betas')
    if len(settings['grids']) != 2 * maps:
        raise step.unsupported(f'attribute grids holds {len(settings["grids"])} values, (rows, cols) of {maps} maps')
    try:
        named = {name: settings[name] for name in names}
        checked = resom_maps_core.make_settings(grids, **named, where=where)
        laterals = resom_maps_core.check_matrix(matrix, checked, where)
        unit_labels = np.concatenate([part.reshape(-1) for part in labels])
        attributes, arrays = resom_maps_core.layer_parts(codebooks, laterals, unit_labels, checked, where)
    except ValueError as error:
        raise _refused(step, error) from error
    return step.builder.resom_maps(step.origin, values, attributes, arrays)


def _soft_router(step: Step, settings: dict[str, Any]) -> Value:
    chosen = {name: settings[name] for name in ('k', 'k_max', 'mask_on', 'output', 'iterations')}
    power = settings['p']  # an integral power as the int the module's default is (p = 2), so the IR is the same
    chosen.update(l=settings['strength'], renormalize=bool(settings['renormalize']))
    chosen['p'] = int(power) if float(power).is_integer() else power
    return step.builder.soft_router(step.origin, step.tensor(0), chosen)


def _sparse_moe(step: Step, settings: dict[str, Any]) -> Value:
    weights = _weights(step, 2)
    experts = [(weights[index], weights[index + 1]) for index in range(0, len(weights), 2)]
    features, logits = step.tensor(0), step.tensor(1)
    return step.builder.moe(step.origin, features, logits, experts, int(settings['k']), bool(settings['renormalize']))


def _soft_moe(step: Step, settings: dict[str, Any]) -> Value:
    slots, kernels, biases = _weights(step, 1)
    return soft_moe(step.builder, step.origin, step.tensor(0), slots, kernels, biases)


# op type -> its importer; one row per `onnx_ops.OPS` entry
IMPORTERS: dict[str, Importer] = {
    'SOM': _som,
    'ReSOM': _resom,
    'SparseSoftTopK': _soft_topk,
    'TopKRouter': _router,
    'ExpertChoiceRouter': _expert_choice,
    'ReSOMMaps': _resom_maps,
    'SoftTopKRouter': _soft_router,
    'SparseMoE': _sparse_moe,
    'SparseMoEFFN': _sparse_moe,
    'SoftMoE': _soft_moe,
}
