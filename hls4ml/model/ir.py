"""The intermediate representation: a graph of layers connected by named tensors.

* `Tensor`: a named value flowing between layers: shape (without the batch dimension) and
  precision type. Each tensor has exactly one producer.
* `Layer`: one operation. `kind` is the name of one of `hls4ml.model.kinds.Kind`'s records; `attributes` hold
  the kind's parameters (`n_in`, `activation`, ...), `weights` the framework's float arrays, and
  `types` the precision of each typed variable (`result`, `accum`, `weight`, `bias`, `table`, ...).
* `Graph`: layers in topological order plus the tensors and the model's inputs and outputs. For hls4ml 1.x
  scripts it is also an ordered mapping of layer name -> layer (`graph['fc1']`, `graph.values()`, `in`), and a
  layer answers 1.x's accessors (`get_output_variable()`, `get_weights()`, `attributes['class_name']`).

Passes (`hls4ml.model.passes`) edit a `Graph` in place through the few methods below; `verify`
checks the invariants and `format_graph` prints one line per layer.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, ValuesView
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hls4ml.model.types import PrecisionType, UnspecifiedPrecisionType
from hls4ml.model.variables import ONE_X_KEYS, Attributes, NamedType, TensorVariable, WeightVariable, one_x_attribute


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
    graph: Graph | None = field(default=None, init=False, repr=False, compare=False)  # set by Graph.add_layer

    def __post_init__(self) -> None:
        self.kind = str(self.kind)  # a `Kind` is kept as its plain name: configs, YAML and pickles hold strings
        self.attributes = Attributes(self.attributes, self._derived_attribute)

    def __setstate__(self, state: dict[str, Any]) -> None:  # unpickled or deep-copied: answer 1.x keys again
        self.__dict__.update(state)
        self.attributes = Attributes(self.attributes, self._derived_attribute)

    # ---- hls4ml 1.x accessors (hls4ml.model.variables) --------------------------------------------
    @property
    def class_name(self) -> str:
        return self.kind

    def get_attr(self, key: str, default: Any = None) -> Any:
        """An attribute, or one of the keys hls4ml 1.x layers also answer (`class_name`, `result_t`, `weight`)."""
        try:
            return self.attributes[key]
        except KeyError:
            return default

    def set_attr(self, key: str, value: Any) -> None:
        self.attributes[key] = value

    def _derived_attribute(self, key: str) -> Any:
        if key == 'name':
            return self.name
        if key in ONE_X_KEYS:
            return one_x_attribute(self.kind, self.attributes, key)
        if key.endswith('_t') and key[:-2] in self.types:
            return NamedType(f'{self.name}_{key}', self.types[key[:-2]])
        if key in self.weights:
            return self._weight_variable(key)
        if key.endswith('_data') and key[: -len('_data')] in self.weights:
            return self.weights[key[: -len('_data')]]
        raise KeyError(key)

    def _weight_variable(self, name: str) -> WeightVariable:
        precision = self.types.get(name, UnspecifiedPrecisionType())
        return WeightVariable(name, self.weights[name], NamedType(f'{self.name}_{name}_t', precision))

    def _graph(self) -> Graph:
        if self.graph is None:
            raise ValueError(f'{self.describe()} belongs to no graph: its variables are unknown')
        return self.graph

    def get_output_variable(self, output_name: str | None = None) -> TensorVariable:
        """Its (first or named) output tensor: `name`, `shape` (a list), `type.precision`."""
        tensor = self._graph().tensors[output_name or self.outputs[0]]
        precision = self.types.get('result', UnspecifiedPrecisionType())  # 'auto' before the config is applied
        return TensorVariable(tensor.name, list(tensor.shape), NamedType(f'{self.name}_result_t', precision))

    def get_input_variable(self, input_name: str | None = None) -> TensorVariable | None:
        """The (first or named) input tensor, as its producer's output variable; None for an input layer."""
        if not self.inputs:
            return None
        name = input_name or self.inputs[0]
        return self._graph().producer(name).get_output_variable(name)

    def get_input_node(self, input_name: str | None = None) -> Layer | None:
        return self._graph().producer(input_name or self.inputs[0]) if self.inputs else None

    def get_output_nodes(self) -> list[Layer]:
        return [consumer for name in self.outputs for consumer in self._graph().consumers(name)]

    def get_weights(self) -> list[WeightVariable]:
        """Its weights as variables with `.data` (the framework's float values) and `.type.precision`."""
        return [self._weight_variable(name) for name in self.weights]

    def get_variables(self) -> list[TensorVariable | WeightVariable]:
        return [*(self.get_output_variable(name) for name in self.outputs), *self.get_weights()]

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

    # ---- hls4ml 1.x: `ModelGraph.graph` is an ordered mapping of layer name -> layer ----------------
    def __getitem__(self, name: str) -> Layer:
        return self.layers[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)

    def __contains__(self, name: object) -> bool:
        return name in self.layers

    def __bool__(self) -> bool:  # a graph is a graph even before its first layer
        return True

    def keys(self) -> KeysView[str]:
        return self.layers.keys()

    def values(self) -> ValuesView[Layer]:
        return self.layers.values()

    def items(self) -> ItemsView[str, Layer]:
        return self.layers.items()

    def get(self, name: str, default: Layer | None = None) -> Layer | None:
        return self.layers.get(name, default)

    # ---- building -------------------------------------------------------------------------------
    def add_layer(self, layer: Layer, output_shapes: list[tuple[int, ...]]) -> Layer:
        if layer.name in self.layers:
            raise ValueError(f"two layers are named '{layer.name}'")
        for tensor_name, shape in zip(layer.outputs, output_shapes, strict=True):
            if tensor_name in self.tensors:
                raise ValueError(f"tensor '{tensor_name}' is produced twice")
            self.tensors[tensor_name] = Tensor(tensor_name, tuple(int(d) for d in shape), layer.name)
        self.layers[layer.name] = layer
        layer.graph = self
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
