"""ONNX / QONNX model -> IR graph: clean the model, then one builder call per node.

0. The router subgraphs (Softmax -> TopK -> optional ReduceSum and Div) are found first
   (`router_pattern`): their TopK becomes Router layers, the other nodes pass their input on.
1. Every node that has no handler (and is not folded away as a constant) is listed in one
   `ConversionError`, before anything is built.
2. The nodes are walked in order; each handler's problems (`UnsupportedOperation`) are collected
   and reported together. A refused node's output is replaced by a stand-in of ONNX's inferred
   shape, so that later nodes are still checked for problems of their own.
3. Every result's shape is checked against ONNX's inferred shape (batch axis dropped), so that a
   misread node fails loudly instead of computing something else.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import onnx

from hls4ml.converters.builder import ConversionError, GraphBuilder, Origin, UnsupportedOperation, Value
from hls4ml.converters.onnx import (
    custom_ops,
    einsum,
    gathers,
    handlers,
    integer_ops,
    quant,
    quantizers,
    recurrent,
    spatial,
    structure,
)
from hls4ml.converters.onnx.handlers import router
from hls4ml.converters.onnx.integer_domain import dequantize
from hls4ml.converters.onnx.model import (
    QONNX_DOMAIN,
    Dims,
    clean_model,
    load_model,
    prepare,
    remove_dead_nodes,
    tensor_dims,
)
from hls4ml.converters.onnx.router_pattern import match_routers
from hls4ml.converters.onnx.sequence_patterns import fuse_sequence_patterns
from hls4ml.converters.onnx.step import Constant, Handler, Operand, Scaled, Step
from hls4ml.converters.router_matches import RouterMatches
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph
from hls4ml.nn.onnx_ops import DOMAIN as NN_DOMAIN
from hls4ml.nn.onnx_ops import OPS as NN_OPS

HANDLERS: dict[str, Handler] = {
    **handlers.HANDLERS,
    **einsum.HANDLERS,
    **structure.HANDLERS,
    **spatial.HANDLERS,
    **quantizers.HANDLERS,
    **gathers.HANDLERS,
    **recurrent.HANDLERS,
}
STANDARD_DOMAINS = ('', 'ai.onnx')
CONSTANT_OPS = ('Constant', 'Shape')
MULTI_OUTPUT_OPS = ('TopK',)  # handlers returning one operand per node output
# qonnx's ConvertToChannelsLastAndClean (the clean-up hls4ml 1.x asks for) wraps these ops so that they
# read and write channels-last tensors; the standard op between two layout views, which move no data
CHANNELS_LAST_DOMAIN = 'qonnx.custom_op.channels_last'
CHANNELS_LAST_OPS = (
    'Conv',
    'MaxPool',
    'BatchNormalization',
)  # constants once shapes are inferred: the clean-up folds them


def parse_onnx_model(
    model: Any, channels_last_conversion: str = 'full', transpose_outputs: bool = False
) -> tuple[Graph, dict[str, str]]:
    """The IR graph of `model` (ModelProto, qonnx ModelWrapper or .onnx path) and IR layer -> node name."""
    wrapper = load_model(model)
    prepare(wrapper)
    fuse_sequence_patterns(wrapper.graph, wrapper.model.opset_import[0].version)
    remove_dead_nodes(wrapper.graph)  # the fused chains' constants
    routers = match_routers(wrapper.graph, wrapper.model.opset_import[0].version)
    missing = unsupported_nodes(wrapper.graph, routers)
    if missing:
        raise ConversionError(
            f'{len(missing)} unsupported ONNX node(s): {", ".join(missing)}. '
            f'Supported ops: {", ".join(sorted(HANDLERS))}.'
        )
    custom_ops.register_with_qonnx()  # the shapes of the hls4ml.nn ops, for qonnx's clean-up
    wrapper, precisions = clean_model(wrapper)
    sequences = recurrent.match_recurrent(wrapper.graph)  # after the clean-up: zero initial states folded
    routers.passed |= sequences.passed  # their transposes and squeezes pass the sample's values on
    walk = _Walk(wrapper, precisions, GraphBuilder(channels_last_conversion, transpose_outputs), routers)
    walk.recurrent_layers = sequences.layers
    walk.run()
    return walk.builder.finish()


def unsupported_nodes(graph: onnx.GraphProto, routers: RouterMatches | None = None) -> list[str]:
    """`'name' (OpType, node i)` of every node without a handler that is not a constant to fold (nor
    part of a matched router), or why it cannot convert."""
    constant = {initializer.name for initializer in graph.initializer}
    routers = routers or RouterMatches()
    missing = []
    for index, node in enumerate(graph.node):
        inputs = [name for name in node.input if name]
        if node.op_type in CONSTANT_OPS or (inputs and all(name in constant for name in inputs)):
            constant.update(node.output)
            continue
        if node.name in routers.explained:
            missing.append(routers.explained[node.name])
            continue
        if node.name in routers.passed:
            continue
        if node.domain == NN_DOMAIN and node.op_type in NN_OPS:  # the hls4ml.nn layers (custom_ops.py)
            continue
        domain_ok = (
            node.domain in STANDARD_DOMAINS
            or (node.domain == QONNX_DOMAIN and node.op_type in quant.QONNX_OPS)
            or (node.domain == CHANNELS_LAST_DOMAIN and node.op_type in CHANNELS_LAST_OPS)
        )
        if node.op_type not in HANDLERS or not domain_ok:
            domain = f' in domain {node.domain!r}' if node.domain not in STANDARD_DOMAINS else ''
            missing.append(f"'{node.name}' ({node.op_type}{domain}, node {index})")
    return missing


class _Walk:
    """Converts the cleaned graph node by node; holds the ONNX tensor -> operand map."""

    def __init__(self, wrapper: Any, precisions: dict[str, Any], builder: GraphBuilder, routers: RouterMatches) -> None:
        self.wrapper, self.builder, self.graph, self.routers = wrapper, builder, wrapper.graph, routers
        self.dims = tensor_dims(self.graph)
        self.opsets = {opset.domain: opset.version for opset in wrapper.model.opset_import}
        self.operands: dict[str, Operand] = {}
        self.precisions = precisions
        self.consumers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
        for node in self.graph.node:
            for name in node.input:
                self.consumers[name].append(node)
        self.outputs = {output.name for output in self.graph.output}
        self.absorbed: dict[str, str] = {}  # node name -> the tensor of the node that absorbed it
        self.broken: set[str] = set()  # tensors after a refused node of unknown shape
        self.batch: set[int | str | None] = set()
        self.recurrent_layers: set[str] = set()  # recurrent ops read and written time-major (recurrent.py)

    # ---- the walk -------------------------------------------------------------------------------
    def run(self) -> None:
        problems = self._inputs()
        for index, node in enumerate(self.graph.node):
            problem = self._convert(index, node)
            if problem:
                problems.append(problem)
        if problems:
            raise ConversionError(f'{len(problems)} problem(s) converting the ONNX model: ' + '; '.join(problems))
        for output in self.graph.output:
            operand = self.operands[output.name]
            if isinstance(operand, Scaled):  # an integer-domain tensor: its scale multiplied in
                operand = dequantize(self.builder, operand, Origin(output.name, 'output'), 'a model output')
            if not isinstance(operand, Value):
                raise ConversionError(f"output '{output.name}' is a constant; the model computes nothing")
            self.builder.output(operand, Origin(output.name, 'output'))

    def _inputs(self) -> list[str]:
        problems = []
        for graph_input in self.graph.input:
            origin = Origin(graph_input.name, 'input')
            dims = self.dims.get(graph_input.name, ())
            self.batch.add(dims[0] if dims else None)
            try:
                shape = _sample_shape(dims)
                if shape is None:
                    raise UnsupportedOperation(
                        f'input {origin}: shape {dims} must be (batch, fixed sizes...), at least one axis per sample'
                    )
                self.operands[graph_input.name] = self.builder.input(origin, shape)
            except UnsupportedOperation as error:
                problems.append(str(error))
                self.broken.add(graph_input.name)
        return problems

    def _convert(self, index: int, node: onnx.NodeProto) -> str:
        """Convert one node; the reason it cannot be converted, or ''. Nodes after a refused node
        of unknown shape are skipped (their errors would only repeat that refusal)."""
        if any(name in self.broken for name in node.input):
            self.broken.update(node.output)
            return ''
        if node.name in self.routers.passed:  # a softmax, sum or division of a matched router
            operand = self.operand(node.input[0])
            assert operand is not None  # made by an earlier node: the graph is in topological order
            self.operands[node.output[0]] = operand
            return ''
        try:
            if node.name in self.absorbed:
                result: Operand | tuple[Operand | None, ...] = self.operands[self.absorbed[node.name]]
            elif node.domain == NN_DOMAIN:
                result = custom_ops.convert(self.step_for(node, index))
            else:
                step = self.step_for(node, index)
                if node.op_type not in MULTI_OUTPUT_OPS:
                    self._check_extra_outputs(step)
                if node.op_type not in HANDLERS:  # a constant subgraph the clean-up could not fold
                    raise step.unsupported('this op is supported only on constants, and qonnx could not fold it')
                if node.name in self.recurrent_layers:
                    self.operands[node.output[0]] = recurrent.recurrent_layer(step)  # time-major: no shape check
                    return ''
                if node.name in self.routers.routers:
                    result = router(step, self.routers.routers[node.name])
                elif node.domain == CHANNELS_LAST_DOMAIN:
                    result = self._channels_last(step)
                else:
                    result = integer_ops.convert(step, HANDLERS)
            results = result if isinstance(result, tuple) else (result,)
            for position, operand in enumerate(results):
                if operand is not None:
                    self._check_shape(node, index, operand, position)
        except UnsupportedOperation as error:
            self._stand_in(node)
            return str(error)
        for name, operand in zip(node.output, results, strict=False):
            if operand is not None:
                self.operands[name] = operand
        return ''

    def _channels_last(self, step: Step) -> Operand:
        """A qonnx channels-last op: its standard op on a channels-first view of the input."""
        x = step.tensor(0)
        step.inputs[0] = self.builder.transpose(step.origin, x, (x.rank - 1, *range(x.rank - 1)))
        if step.node.op_type == 'Conv':  # the wrapper stores the kernel channels last too: (out, *window, in)
            kernel = step.constant(1)
            first = (0, kernel.values.ndim - 1, *range(1, kernel.values.ndim - 1))
            step.inputs[1] = Constant(kernel.values.transpose(first), kernel.precision)
        result = HANDLERS[step.node.op_type](step)
        if not isinstance(result, Value):
            raise step.unsupported('a channels-last op on constants is not supported')
        return self.builder.transpose(step.origin, result, (*range(1, result.rank), 0))

    def _stand_in(self, node: onnx.NodeProto) -> None:
        """After a refusal: a stand-in input of the output's inferred shape, so that the nodes after
        it are still checked for problems of their own; without a known shape they are skipped."""
        shape = _sample_shape(self.dims.get(node.output[0], ()))
        if shape is not None:
            self.operands[node.output[0]] = self.builder.input(Origin(f'{node.name}_refused', node.op_type), shape)
        else:
            self.broken.update(node.output)

    # ---- what handlers see ----------------------------------------------------------------------
    def step_for(self, node: onnx.NodeProto, index: int | None = None) -> Step:
        if index is None:
            index = list(self.graph.node).index(node)
        origin = Origin(node.name, node.op_type, f'node {index}')
        custom_op = self.wrapper.get_customop_wrapper(node) if node.domain == QONNX_DOMAIN else None
        inputs = [self.operand(name) if name else None for name in node.input]
        opset = self.opsets.get(node.domain or '', self.opsets.get('', 13))
        return Step(node, origin, self.builder, inputs, opset, custom_op, self)

    def operand(self, name: str) -> Operand | None:
        if name not in self.operands:
            constant = self.constant_named(name)
            if constant is None:
                return None  # produced later (look-ahead) or by a refused node
            self.operands[name] = constant
        return self.operands[name]

    def constant_named(self, name: str) -> Constant | None:
        values = self.wrapper.get_initializer(name)
        if values is None:
            return None
        record = self.precisions.get(name)
        if record is None:
            return Constant(np.asarray(values))
        if record.precision is not None and not _holds(record.precision, values):
            raise ConversionError(f"internal error: the quantized constant '{name}' does not fit {record.precision}")
        return Constant(np.asarray(values), record.precision, record.integers, record.quantum)

    def follower(self, node: onnx.NodeProto) -> onnx.NodeProto | None:
        """The only node reading `node`'s first output, unless that output is also a model output."""
        readers = self.consumers.get(node.output[0], [])
        return readers[0] if len(readers) == 1 and node.output[0] not in self.outputs else None

    def absorb(self, follower: onnx.NodeProto, node: onnx.NodeProto) -> None:
        """`follower` is part of `node` (being converted): its output is `node`'s result."""
        self.absorbed[follower.name] = node.output[0]

    # ---- checks ---------------------------------------------------------------------------------
    def _check_extra_outputs(self, step: Step) -> None:
        for name in step.node.output[1:]:
            if name and (self.consumers.get(name) or name in self.outputs):
                raise step.unsupported(f"output '{name}' is read, but only the first output is supported")

    def _check_shape(self, node: onnx.NodeProto, index: int, result: Operand, position: int = 0) -> None:
        dims = self.dims.get(node.output[position])
        if dims is None:
            return
        where = f"'{node.name}' ({node.op_type}, node {index})"
        if isinstance(result, Constant):
            expected, got = dims, tuple(result.values.shape)
        else:
            batch = dims[0] if dims else None
            if isinstance(batch, int) and self.batch and all(isinstance(b, int) for b in self.batch):
                if batch not in self.batch:
                    raise UnsupportedOperation(f'{where}: the output shape {dims} does not keep the batch axis first')
            expected, got = dims[1:], result.shape
        known = [(want, have) for want, have in zip(expected, got, strict=False) if isinstance(want, int)]
        if len(expected) != len(got) or any(want != have for want, have in known):
            raise ConversionError(
                f'internal error at {where}: the converted result has shape {got} (batch axis dropped) where '
                f'ONNX infers {expected}; please report this model'
            )


def _sample_shape(dims: Dims) -> tuple[int, ...] | None:
    """The shape of one sample (batch axis dropped), when every size is known."""
    shape = tuple(dim for dim in dims[1:] if isinstance(dim, int) and dim > 0)
    return shape if len(dims) > 1 and len(shape) == len(dims) - 1 else None


def _holds(precision: Any, values: np.ndarray) -> bool:
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    return bool(np.array_equal(quantize(flat, precision).value, flat))
