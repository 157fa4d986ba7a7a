"""PyTorch model -> IR graph: trace with torch.fx, rewrite the router subgraphs into one node each
(`router_pattern`), then one handler (one builder call, mostly) per node.

Every operation without a handler is reported in one error before anything is built; then every
node whose settings cannot be converted is reported in one error after the walk. Each converted
tensor's shape is checked against what PyTorch computes, so a node is never silently misparsed.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any

import numpy as np
import torch
from torch import fx

from hls4ml.converters.builder import ConversionError, GraphBuilder, Origin, UnsupportedOperation, Value
from hls4ml.converters.pytorch.recurrent import TimeMajor
from hls4ml.converters.pytorch.registry import Step
from hls4ml.converters.pytorch.router_pattern import match_routers
from hls4ml.converters.pytorch.trace import (
    handler_of,
    input_dependent,
    origin_of,
    run_on_zeros,
    sample_shapes,
    trace,
    unsupported_nodes,
)
from hls4ml.model.ir import Graph


def parse_pytorch_model(
    model: Any, input_shape: Any, channels_last_conversion: str = 'full', transpose_outputs: bool = False
) -> tuple[Graph, dict[str, str]]:
    """The IR graph of `model` and, for each IR layer named after a module or node, that name.

    `input_shape` is one sample's shape (channels first, no batch axis), or a list of them."""
    builder = GraphBuilder(channels_last_conversion, transpose_outputs)
    shapes = sample_shapes(input_shape)
    traced = trace(model)
    placeholders = [node for node in traced.graph.nodes if node.op == 'placeholder']
    if len(placeholders) != len(shapes):
        raise ConversionError(
            f'{type(model).__name__}.forward takes {len(placeholders)} input(s) '
            f'({", ".join(node.name for node in placeholders)}), but input_shape gives {len(shapes)}'
        )
    explained = match_routers(traced)
    dependent = input_dependent(traced.graph)
    missing = unsupported_nodes(traced, dependent, explained)
    if missing:
        raise ConversionError(
            f'{len(missing)} unsupported PyTorch operation(s): {", ".join(missing)}. '
            'See docs/layers.md for the supported operations.'
        )
    walk = _Walk(traced, builder, dependent, run_on_zeros(traced, shapes))
    walk.run(dict(zip(placeholders, shapes, strict=True)))
    return builder.finish()


def _from_torch(value: Any) -> Any:
    """A constant result with its tensors as float64 numpy arrays."""
    return fx.node.map_aggregate(value, _numpy_of)


def _swapped(shape: tuple[int, ...]) -> tuple[int, ...]:
    """PyTorch's (steps, batch, ...) shape of a time-major tensor as (batch, steps, ...)."""
    return (shape[1], shape[0], *shape[2:])


def _numpy_of(item: Any) -> Any:
    return np.asarray(item.detach().cpu().numpy(), dtype=np.float64) if torch.is_tensor(item) else item


class _Walk:
    """Converts the nodes in order; `values` maps each node to a builder Value or a constant."""

    def __init__(self, traced: fx.GraphModule, builder: GraphBuilder, dependent: set[fx.Node], results: dict) -> None:
        self.traced, self.builder, self.dependent, self.results = traced, builder, dependent, results
        self.values: dict[fx.Node, Any] = {}
        self.problems: list[str] = []

    def run(self, input_shapes: dict[fx.Node, tuple[int, ...]]) -> None:
        for node in self.traced.graph.nodes:
            if node.op == 'placeholder':
                self.values[node] = self.builder.input(Origin(node.name, 'input'), input_shapes[node])
            elif node.op == 'output':
                self._outputs(node)
            elif node.target is operator.getitem and not node.users:
                continue  # an unpacked item nothing reads (`out, _ = lstm(x)`): nothing to convert
            elif node not in self.dependent:
                self.values[node] = _from_torch(self.results[node])
            else:
                self._convert(node)

    def _convert(self, node: fx.Node) -> None:
        origin = origin_of(node, self.traced)
        result = self.results[node]
        step = Step(self.builder, origin, tuple(result.shape) if torch.is_tensor(result) else None)
        try:
            self.values[node] = self._checked(step, self._call(node, step))
        except UnsupportedOperation as error:
            self.problems.append(str(error))
            self.values[node] = self._stand_in(node, result)

    def _call(self, node: fx.Node, step: Step) -> Any:
        args: tuple[Any, ...] = tuple(fx.node.map_arg(node.args, self.values.__getitem__))
        kwargs = fx.node.map_arg(node.kwargs, self.values.__getitem__)
        handler = handler_of(node, self.traced)
        assert handler is not None  # unsupported_nodes() found none missing
        if node.op == 'call_module':
            args = (self.traced.get_submodule(str(node.target)), *args)
        try:
            inspect.signature(handler).bind(step, *args, **kwargs)
        except TypeError as error:
            raise step.refuse(f'these arguments are not supported ({error})') from error
        return handler(step, *args, **kwargs)

    def _checked(self, step: Step, value: Any) -> Any:
        """`value`, after checking it is a tensor exactly when PyTorch's result is, of PyTorch's shape."""
        if step.torch_shape is None and not isinstance(value, Value):
            return value
        if isinstance(value, TimeMajor) and step.torch_shape is not None:  # (steps, batch, ...) in PyTorch
            self._checked(Step(step.builder, step.origin, _swapped(step.torch_shape)), value.value)
            return value
        if step.torch_shape is None or not isinstance(value, Value):
            raise step.refuse('the conversion does not produce a tensor exactly where PyTorch does')
        batch, shape = step.torch_shape[0] if step.torch_shape else None, step.torch_shape[1:]
        if batch != 1 or value.shape != shape:
            raise step.refuse(
                f'converted to a shape of {value.shape} per sample, but PyTorch computes {step.torch_shape} '
                'for a batch of one'
            )
        return value

    def _stand_in(self, node: fx.Node, result: Any) -> Any:
        """After a refused node, an input of PyTorch's shape, so that later nodes are still checked."""
        if torch.is_tensor(result) and result.dim() > 1 and result.shape[0] == 1 and result.numel() > 0:
            origin = Origin(f'{node.name}_unconverted', 'input')
            return self.builder.input(origin, tuple(result.shape[1:]))
        return _from_torch(result)

    def _outputs(self, node: fx.Node) -> None:
        if self.problems:
            raise ConversionError(f'{len(self.problems)} operation(s) cannot be converted: ' + '; '.join(self.problems))
        returned = node.args[0]
        items = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        for index, item in enumerate(items):
            value = self.values.get(item) if isinstance(item, fx.Node) else item
            if not isinstance(value, Value):
                raise ConversionError(
                    f'output {index} of the model is not a tensor computed from the inputs '
                    f'({getattr(value, "not_a_tensor", "nested, dictionary and constant outputs are not supported")})'
                )
            self.builder.output(value, Origin(item.name if isinstance(item, fx.Node) else f'output_{index}', 'output'))
