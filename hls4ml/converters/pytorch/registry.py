"""The handler tables of the PyTorch frontend: module class, function or tensor method -> handler.

How to write a handler: it receives a `Step` (the builder, the node's `Origin`, the shape PyTorch
computes for the node), then the node's arguments exactly as PyTorch passes them, except that a
tensor computed from the model inputs arrives as a builder `Value` and a constant tensor (parameter,
buffer, anything computed without the inputs) as a float64 numpy array. A module handler gets the
module itself second. The handler calls the builder with framework (channels-first) shapes, weights
and axes, returns the resulting `Value` (or a Python value for shape queries such as `x.size(0)`),
and raises `step.refuse(reason)` for a setting it cannot convert. Register it with `@functions(...)`
(functions and tensor methods sharing one signature) or `@modules(...)`.

Axes: PyTorch counts the batch axis as dim 0; builder shapes and axes do not have it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation, Value

Handler = Callable[..., Any]
MODULES: dict[str, Handler] = {}  # torch.nn class name -> handler(step, module, *args, **kwargs)
FUNCTIONS: dict[Any, Handler] = {}  # function object (torch.relu, F.relu, operator.add) -> handler(step, *args)
METHODS: dict[str, Handler] = {}  # tensor method name -> handler(step, self, *args)
# functions that are the whole forward pass of a module (torch.fx.wrap'ed, as in hls4ml.nn): their node
# is named after that module's path ('encoder.som') and class, so LayerName entries can use the module name
MODULE_FORWARDS: set[Any] = set()


class Batch:
    """The batch size as `x.size(0)` or `x.shape[0]` returns it: it may only open a reshape's new shape."""

    def __repr__(self) -> str:
        return 'batch'


BATCH = Batch()


@dataclass(frozen=True)
class SequenceFirst:
    """`x.transpose(0, 1)` of a batch-first tensor `x`: PyTorch's (tokens, batch, ...) layout of the
    same per-sample data, which only batch_first=False modules (nn.MultiheadAttention, nn.RNN / LSTM /
    GRU, which also return it) and the transpose back read (the two transposes cancel against the
    layer's own layout: no IR layer)."""

    value: Value

    @property
    def torch_shape(self) -> tuple[int, ...]:
        """PyTorch's shape for a batch of one: the batch axis second."""
        return (self.value.shape[0], 1, *self.value.shape[1:])


@dataclass(frozen=True)
class Step:
    """One fx node being converted."""

    builder: GraphBuilder
    origin: Origin
    torch_shape: tuple[int, ...] | None  # PyTorch's output shape for a batch of one, if the output is a tensor

    def refuse(self, reason: str) -> UnsupportedOperation:
        return UnsupportedOperation(f'{self.origin}: {reason}')

    def part(self, suffix: str) -> Origin:
        """The origin of a second IR layer this node needs (named `<name>_<suffix>`)."""
        return Origin(f'{self.origin.name}_{suffix}', self.origin.op, self.origin.where)


def functions(*targets: Any, methods: tuple[str, ...] = ()) -> Callable[[Handler], Handler]:
    """Register a handler for functions (by object) and tensor methods (by name)."""

    def register(handler: Handler) -> Handler:
        for target in targets:
            FUNCTIONS[target] = handler
        for name in methods:
            METHODS[name] = handler
        return handler

    return register


def module_forwards(*targets: Any) -> Callable[[Handler], Handler]:
    """Register a handler for functions that are a module's whole forward pass (see MODULE_FORWARDS)."""
    MODULE_FORWARDS.update(targets)
    return functions(*targets)


def modules(*class_names: str) -> Callable[[Handler], Handler]:
    """Register a handler for torch.nn module classes (by class name)."""

    def register(handler: Handler) -> Handler:
        for class_name in class_names:
            MODULES[class_name] = handler
        return handler

    return register


# ---- argument helpers ---------------------------------------------------------------------------
def tensor(step: Step, x: Any, what: str = 'the input') -> Value:
    """`x` as a tensor computed from the model inputs."""
    if isinstance(x, SequenceFirst):
        raise step.refuse(
            f'{what} has the batch on axis 1 (x.transpose(0, 1)); only batch_first=False modules '
            '(nn.MultiheadAttention, nn.RNN / LSTM / GRU) and the transpose back to batch-first read such a tensor'
        )
    if not isinstance(x, Value):
        raise step.refuse(f'{what} must be a tensor computed from the model inputs, got {type(x).__name__}')
    return x


def constant(step: Step, value: Any, what: str = 'the constant') -> np.ndarray:
    """`value` (a parameter, buffer or number) as a float64 array."""
    if isinstance(value, Value):
        raise step.refuse(f'{what} must be a constant (a parameter, buffer or number), not a computed tensor')
    if value is BATCH or value is None:
        raise step.refuse(f'{what} cannot be {value}')
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise step.refuse(f'{what} {value!r} is not a number or a numeric tensor') from error


def array(parameter: Any) -> np.ndarray:
    """A torch parameter or buffer as a float64 numpy array."""
    return np.asarray(parameter.detach().cpu().numpy(), dtype=np.float64)


def sample_axis(step: Step, x: Value, dim: int) -> int:
    """PyTorch `dim` (batch axis 0) -> the builder axis of `x`; the batch axis itself is refused."""
    rank = x.rank + 1
    if not -rank <= int(dim) < rank:
        raise step.refuse(f'dim {dim} is outside a tensor of {rank} axes')
    if int(dim) % rank == 0:
        raise step.refuse('operations along the batch axis (dim 0) are not supported')
    return int(dim) % rank - 1


def sizes(value: Any, rank: int) -> tuple[int, ...]:
    """An int or a sequence (PyTorch's kernel_size, stride, padding arguments) as `rank` ints."""
    if isinstance(value, (tuple, list)):
        return tuple(int(item) for item in value) if len(value) != 1 else (int(value[0]),) * rank
    return (int(value),) * rank


def broadcast_constant(step: Step, x: Value, value: Any) -> np.ndarray:
    """A constant that PyTorch broadcasts against `x` (batch axis included), without the batch axis."""
    value = constant(step, value)
    extra = value.ndim - x.rank
    if extra > 0:
        if math.prod(value.shape[:extra]) != 1:
            raise step.refuse(f'a constant of shape {value.shape} would differ between samples of the batch')
        value = value.reshape(value.shape[extra:])
    return value
