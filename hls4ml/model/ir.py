"""The intermediate representation: a graph of layers connected by named tensors.

* `Tensor`: a named value flowing between layers: shape (without the batch dimension) and
  precision type. Each tensor has exactly one producer.
* `Layer`: one operation. `kind` is the name of one of `hls4ml.model.kinds.Kind`'s records; `attributes` hold
  the kind's parameters (`n_in`, `activation`, ...), `weights` the framework's float arrays, and
  `types` the precision of each typed variable (`result`, `accum`, `weight`, `bias`, `table`, ...).
* `Graph`: layers in topological order plus the tensors and the model's inputs and outputs.

Passes (`hls4ml.model.passes`) edit a `Graph` in place through the few methods below; `verify`
checks the invariants and `format_graph` prints one line per layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hls4ml.model.types import PrecisionType, UnspecifiedPrecisionType


@dataclass
class Tensor:
    name: str
    shape: tuple[int, ...]
    producer: str  # the layer writing it
    fifo_depth: int = 0  # io_stream: the FIFO depth the dataflow needs (0: not a stream)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


@dataclass
class Layer:
    name: str  # a unique C++ identifier
    kind: str
    inputs: list[str]  # tensor names
    outputs: list[str]
    attributes: dict[str, Any] = field(default_factory=dict)
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    types: dict[str, PrecisionType] = field(default_factory=dict)
    source_name: str = ''  # the framework's layer name and class, for config look-ups and messages
    source_class: str = ''
    quantized: bool = False  # the frontend set some of its types (quantizers): its 'auto' types are exact

    def __post_init__(self) -> None:
        self.kind = str(self.kind)  # a `Kind` is kept as its plain name: configs, YAML and pickles hold strings

    # hls4ml 1.x compatible accessors
    @property
    def class_name(self) -> str:
        return self.kind

    def get_attr(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)

    def set_attr(self, key: str, value: Any) -> None:
        self.attributes[key] = value

    @property
    def result_type(self) -> PrecisionType:
        return self.types['result']

    def describe(self) -> str:
        """How messages name this layer: "layer 'fc1' (Dense, from Keras 'fc 1' Dense)"."""
        if not self.source_name:
            return f"layer '{self.name}' ({self.kind})"
        origin = f"'{self.source_name}' {self.source_class}".rstrip()
        return f"layer '{self.name}' ({self.kind}, from {origin})"


class Graph:
    """Layers in topological order, their tensors, and the model's input and output tensor names."""

    def __init__(self) -> None:
        self.layers: dict[str, Layer] = {}
        self.tensors: dict[str, Tensor] = {}
        self.inputs: list[str] = []
        self.outputs: list[str] = []

    # ---- building -------------------------------------------------------------------------------
    def add_layer(self, layer: Layer, output_shapes: list[tuple[int, ...]]) -> Layer:
        if layer.name in self.layers:
            raise ValueError(f"two layers are named '{layer.name}'")
        for tensor_name, shape in zip(layer.outputs, output_shapes, strict=True):
            if tensor_name in self.tensors:
                raise ValueError(f"tensor '{tensor_name}' is produced twice")
            self.tensors[tensor_name] = Tensor(tensor_name, tuple(int(d) for d in shape), layer.name)
        self.layers[layer.name] = layer
        return layer

    def insert_layer(self, layer: Layer, output_shapes: list[tuple[int, ...]], before: str) -> Layer:
        """Add `layer` just before the layer named `before` (keeping the order topological)."""
        self.add_layer(layer, output_shapes)
        order = [name for name in self.layers if name != layer.name]
        order.insert(order.index(before), layer.name)
        self.layers = {name: self.layers[name] for name in order}
        return layer

    # ---- queries --------------------------------------------------------------------------------
    def producer(self, tensor_name: str) -> Layer:
        return self.layers[self.tensors[tensor_name].producer]

    def consumers(self, tensor_name: str) -> list[Layer]:
        return [layer for layer in self.layers.values() if tensor_name in layer.inputs]

    def input_tensors(self, layer: Layer) -> list[Tensor]:
        return [self.tensors[name] for name in layer.inputs]

    def output_tensor(self, layer: Layer) -> Tensor:
        return self.tensors[layer.outputs[0]]

    def input_type(self, layer: Layer, index: int = 0) -> PrecisionType:
        return self.producer(layer.inputs[index]).types['result']

    # ---- editing --------------------------------------------------------------------------------
    def remove_layer(self, layer: Layer) -> None:
        """Remove a one-input, one-output layer; its consumers read its input instead."""
        if len(layer.inputs) != 1 or len(layer.outputs) != 1:
            raise ValueError(f'{layer.describe()}: only single-input, single-output layers can be removed')
        source, removed = layer.inputs[0], layer.outputs[0]
        for consumer in self.consumers(removed):
            consumer.inputs = [source if name == removed else name for name in consumer.inputs]
        self.outputs = [source if name == removed else name for name in self.outputs]
        del self.tensors[removed]
        del self.layers[layer.name]


def format_graph(graph: Graph) -> str:
    """One line per layer: name, kind, inputs -> output shape, result type, key attributes."""
    lines = []
    for layer in graph.layers.values():
        shapes = ', '.join('x'.join(map(str, graph.tensors[name].shape)) for name in layer.outputs)
        result = layer.types.get('result', UnspecifiedPrecisionType())
        extras = [f'{key}={value}' for key, value in sorted(layer.types.items()) if key != 'result']
        depths = [graph.tensors[name].fifo_depth for name in layer.outputs if graph.tensors[name].fifo_depth]
        extras += [f'fifo_depth={",".join(map(str, depths))}'] if depths else []
        extras += [f'{key}={value}' for key, value in sorted(layer.attributes.items()) if _printable(value)]
        sources = ', '.join(graph.tensors[name].producer for name in layer.inputs) or '-'
        lines.append(
            f'{layer.name:<20} {layer.kind:<22} {sources:<20} -> {shapes:<10} {result!s:<28} {" ".join(extras)}'
        )
    return '\n'.join(lines)


def _printable(value: Any) -> bool:
    return isinstance(value, (int, float, str, bool)) and not isinstance(value, np.ndarray)
