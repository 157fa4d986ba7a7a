"""What an ONNX op handler receives (`Step`) and returns (a builder `Value` or a `Constant`).

How to write a handler: decorate a function `handler(step) -> Value | Constant` with
`@handles('OpType')` of the module's own table (`HANDLERS = {}; handles = registrar(HANDLERS)`),
and list that table in `parser.HANDLERS`. Read tensor inputs with `step.tensor(i)`, constant inputs
with `step.constant(i)`, attributes with `step.attribute(name, default)`; describe the op to
`step.builder` in ONNX's own (channels-first) terms without the batch axis; raise
`step.unsupported(...)` for a setting that cannot be converted. A handler maps the node's first
output only; the walk refuses nodes whose other outputs are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import helper

from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation, Value
from hls4ml.model.types import PrecisionType


@dataclass(frozen=True)
class Constant:
    """A constant tensor (an initializer after folding), in ONNX's full shape (batch axis included
    when it has one), with the exact type of its values when a QONNX quantizer made them. A quantizer
    with a float scale (not a power of two) also leaves its integers `integers` (q - zero point) and
    the scale `quantum` of each element (both of the tensor's shape): `values` ~= integers * quantum."""

    values: np.ndarray
    precision: PrecisionType | None = None
    integers: np.ndarray | None = None
    quantum: np.ndarray | None = None


@dataclass(frozen=True)
class Scaled:
    """A tensor in the integer domain (docs/quantization.md): the model's value is `value * scale`,
    the float `scale` still to be applied (by the next quantizer's rescale, or at an output). `scale`
    broadcasts against the framework shape (per tensor: shape (); per channel: (C, 1, ...)); `error`
    bounds |IR value - exact value| in units of the scale (from float biases written in fixed point).
    `relu`: the Relu still to apply (after the quantizer that alone reads it, where it is exact)."""

    value: Value
    scale: np.ndarray
    error: float = 0.0
    relu: Origin | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape


Operand = Value | Constant | Scaled


@dataclass
class Step:
    """One ONNX node being converted, with its resolved inputs and a view of the graph around it."""

    node: onnx.NodeProto
    origin: Origin
    builder: GraphBuilder
    inputs: list[Operand | None]  # None for an omitted optional input
    opset: int  # the version of the node's domain
    custom_op: Any = None  # the qonnx CustomOp of a QONNX node, for its attributes and version
    graph: Any = None  # the walk: look-ahead for ops that absorb their consumer (see parser._Walk)
    unit: float = 1.0  # the scale input 0 is counted in, for an op on an integer-domain tensor
    attributes: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.attributes = {
            attribute.name: _decoded(helper.get_attribute_value(attribute)) for attribute in self.node.attribute
        }

    def attribute(self, name: str, default: Any = None) -> Any:
        return self.attributes.get(name, default)

    def unsupported(self, message: str) -> UnsupportedOperation:
        return UnsupportedOperation(f'{self.origin}: {message}')

    def tensor(self, index: int) -> Value:
        operand = self.inputs[index] if index < len(self.inputs) else None
        if not isinstance(operand, Value):
            what = 'a constant' if isinstance(operand, Constant) else 'missing'
            raise self.unsupported(f'input {index} must be a tensor computed by the model, but it is {what}')
        return operand

    def constant(self, index: int) -> Constant:
        operand = self.optional_constant(index)
        if operand is None:
            raise self.unsupported(f'input {index} is missing')
        return operand

    def optional_constant(self, index: int) -> Constant | None:
        operand = self.inputs[index] if index < len(self.inputs) else None
        if isinstance(operand, (Value, Scaled)):
            raise self.unsupported(
                f'input {index} must be a constant (an initializer or a foldable subgraph), but it is computed '
                'from the model inputs'
            )
        return operand

    def scalar(self, index: int, what: str) -> float:
        values = self.constant(index).values
        if values.size != 1:
            raise self.unsupported(f'{what} must be a single value, got shape {values.shape}')
        return float(values.reshape(-1)[0])

    def output_read(self, position: int) -> bool:
        """Whether the node's output `position` is read by another node or is a model output."""
        name = self.node.output[position] if position < len(self.node.output) else ''
        return bool(name) and bool(self.graph.consumers.get(name) or name in self.graph.outputs)

    def sub_origin(self, suffix: str) -> Origin:
        """The origin of a second IR layer made for this node (`<name>_<suffix>`)."""
        return Origin(f'{self.origin.name}_{suffix}', self.origin.op, self.origin.where)


# one result per handler; ops in parser.MULTI_OUTPUT_OPS return one per node output (None if unread)
Handler = Callable[[Step], Operand | tuple[Operand | None, ...]]


def registrar(table: dict[str, Handler]) -> Callable[..., Callable[[Handler], Handler]]:
    """A decorator `handles('Op', ...)` filling `table`."""

    def handles(*op_types: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            for op_type in op_types:
                table[op_type] = handler
            return handler

        return register

    return handles


def preset_types(**constants: Constant | None) -> dict[str, PrecisionType]:
    """The exact types of quantized constants, by the layer variable they fill (`weight=`, `bias=`)."""
    return {
        name: constant.precision
        for name, constant in constants.items()
        if constant is not None and constant.precision is not None
    }


def framework_constant(step: Step, constant: Constant, x: Value) -> np.ndarray:
    """An element-wise constant in framework axes: ONNX broadcasts it against (batch, *x.shape), so a
    leading axis beyond the tensor's rank is the batch axis and must have size 1."""
    values = np.asarray(constant.values, dtype=np.float64)
    if values.ndim <= x.rank:
        return values
    if values.ndim == x.rank + 1 and values.shape[0] == 1:
        return values.reshape(values.shape[1:])
    raise step.unsupported(
        f'a constant of shape {values.shape} does not broadcast to the tensor of shape {x.shape} (plus the batch axis)'
    )


def onnx_axis(step: Step, axis: int, rank: int) -> int:
    """The framework axis of ONNX `axis` of a tensor of framework `rank` (ONNX rank + 1); the batch
    axis is refused."""
    axis = int(axis)
    normalised = axis + rank + 1 if axis < 0 else axis
    if not 1 <= normalised <= rank:
        raise step.unsupported(f'axis {axis} is the batch axis or outside the tensor (rank {rank} plus the batch)')
    return normalised - 1


def _decoded(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [item.decode() if isinstance(item, bytes) else item for item in value]
    return value
