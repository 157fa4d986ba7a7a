"""Small ONNX / QONNX models written with onnx.helper, and their reference executions (onnxruntime
for standard ops, qonnx's `execute_onnx` for QONNX ops), for the ONNX frontend tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QONNX_DOMAIN = 'qonnx.custom_op.general'


class OnnxGraph:
    """Collects nodes and initializers; `model()` closes them into a ModelProto. Every node's
    name is also its (first) output's name."""

    def __init__(self, opset: int = 13, qonnx_opset: int = 2, seed: int = 0) -> None:
        self.opset, self.qonnx_opset = opset, qonnx_opset
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def _name(self, prefix: str) -> str:
        self.count += 1
        return f'{prefix}{self.count}'

    def constant(self, values: Any, name: str | None = None, dtype: Any = np.float32) -> str:
        name = name or self._name('c')
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=dtype), name))
        return name

    def ints(self, values: list[int]) -> str:
        """An int64 constant (Slice bounds, axes)."""
        return self.constant(values, dtype=np.int64)

    def node(self, op_type: str, inputs: list[str], name: str | None = None, domain: str = '', **attributes) -> str:
        name = name or self._name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, domain=domain, **attributes))
        return name

    def weights(self, *shape: int, scale: float = 0.5) -> str:
        return self.constant(self.rng.normal(0, scale, shape))

    def quant(
        self,
        x: str,
        scale: Any,
        bits: int,
        signed: int = 1,
        narrow: int = 0,
        rounding: str = 'ROUND',
        zero_point: Any = 0.0,
        name: str | None = None,
    ) -> str:
        inputs = [x, self.constant(scale), self.constant(zero_point), self.constant(bits)]
        attributes = {'signed': signed, 'narrow': narrow, 'rounding_mode': rounding}
        return self.node('Quant', inputs, name, domain=QONNX_DOMAIN, **attributes)

    def bipolar(self, x: str, scale: Any = 1.0, name: str | None = None) -> str:
        return self.node('BipolarQuant', [x, self.constant(scale)], name, domain=QONNX_DOMAIN)

    def trunc(
        self,
        x: str,
        scale: float,
        input_bits: int,
        output_scale: float,
        output_bits: int,
        rounding: str = 'FLOOR',
        signed: int = 1,
        narrow: int = 0,
    ) -> str:
        inputs = [x, self.constant(scale), self.constant(0.0), self.constant(input_bits)]
        inputs += [self.constant(output_scale), self.constant(output_bits)]
        attributes = {'rounding_mode': rounding, 'signed': signed, 'narrow': narrow}
        return self.node('Trunc', inputs, domain=QONNX_DOMAIN, **attributes)

    def model(self, inputs: dict[str, tuple[int, ...]], outputs: list[str], batch: int | str = 'N') -> onnx.ModelProto:
        """`inputs` name -> shape without the batch axis."""
        graph = helper.make_graph(
            self.nodes,
            'test',
            [helper.make_tensor_value_info(name, TensorProto.FLOAT, [batch, *shape]) for name, shape in inputs.items()],
            [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs],
            self.initializers,
        )
        opsets = [helper.make_opsetid('', self.opset)]
        if any(node.domain == QONNX_DOMAIN for node in self.nodes):
            opsets.append(helper.make_opsetid(QONNX_DOMAIN, self.qonnx_opset))
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 8
        return model


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
    return session.run(None, feeds)


def run_qonnx(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """qonnx's reference execution, node by node, of the whole batch at once."""
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.core.onnx_exec import execute_onnx
    from qonnx.transformation.change_batchsize import ChangeBatchSize
    from qonnx.transformation.infer_shapes import InferShapes

    batch = len(next(iter(feeds.values())))
    wrapper = ModelWrapper(model)
    if wrapper.get_tensor_shape(model.graph.input[0].name)[0] != batch:  # exported with a batch of 1
        wrapper = wrapper.transform(ChangeBatchSize(batch))
    wrapper = wrapper.transform(InferShapes())
    results = execute_onnx(wrapper, feeds)
    return [results[output.name] for output in model.graph.output]


def channels_last(array: np.ndarray) -> np.ndarray:
    """(n, C, *spatial) -> (n, *spatial, C) flattened per sample, as predict() returns outputs."""
    array = np.asarray(array)
    if array.ndim > 2:
        array = np.moveaxis(array, 1, -1)
    return array.reshape(len(array), -1)
