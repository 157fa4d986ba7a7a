"""Keras 3 model -> IR graph: find the router subgraphs (`router_pattern`), then walk the functional
graph and call one handler per layer.

Every unsupported layer is collected first and reported in one error (name and class of each),
before anything is built or written.
"""

from __future__ import annotations

from typing import Any

from hls4ml.converters.keras.channels_first import cancel_layout_moves, move_direction
from hls4ml.converters.keras.handlers import HANDLERS, REMOVED, Source, UnsupportedLayer
from hls4ml.converters.keras.hgq_finish import finish_hgq
from hls4ml.converters.keras.quantized import refusal
from hls4ml.converters.keras.router_pattern import match_routers
from hls4ml.converters.keras.selection import router_outputs
from hls4ml.converters.router_matches import RouterMatches
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.model.names import NameTable


class KerasConversionError(ValueError):
    """The model cannot be converted; the message lists every reason found."""


class _AfterRefusal(ValueError):
    """A layer reads the output of a refused layer that has no stand-in (no single input to pass on)."""


def functional_graph(model: Any) -> Any:
    """The functional graph behind a Sequential or functional Keras 3 model."""
    import keras

    if not isinstance(model, keras.Model):
        raise KerasConversionError(f'expected a Keras 3 model, got {type(model).__name__}')
    if isinstance(model, keras.Sequential):
        if not model.layers:
            raise KerasConversionError(
                f'the Sequential model {model.name!r} has no layers (only an Input): there is nothing to convert; '
                'add the layers to compute'
            )
        functional = getattr(model, '_functional', None)
        if functional is None:
            raise KerasConversionError(
                'the Sequential model has no known input shape; start it with keras.Input(shape=...) or call build()'
            )
        return functional
    if not hasattr(model, 'operations') or not hasattr(model, 'outputs'):
        raise KerasConversionError(
            f'subclassed Keras models ({type(model).__name__}) cannot be converted; use a functional model'
        )
    return model


def unsupported_layers(model: Any, matches: RouterMatches | None = None) -> list[str]:
    """`name (Class)` of every layer without a handler (or why it cannot convert, from `matches` or from
    how it is quantized: `quantized.refusal`); the operations of matched router subgraphs need none."""
    matches = matches or RouterMatches()
    entries = []
    for op in functional_graph(model).operations:
        quantized = refusal(op)  # Keras quantization modes and QKeras layers: refused whatever handler exists
        if quantized is not None:
            entries.append(quantized)
        elif op.name in matches.explained:  # a refused router renormalisation, even where a handler exists
            entries.append(matches.explained[op.name])
        elif type(op).__name__ not in HANDLERS and type(op).__name__ not in REMOVED and op.name not in matches.passed:
            entries.append(f'{op.name} ({type(op).__name__})')
    return list(dict.fromkeys(entries))  # one entry for a sum and the division it explains


def parse_keras_model(model: Any) -> tuple[Graph, dict[str, str]]:
    """The IR graph of `model` and, for each IR layer named after a Keras layer, that Keras name."""
    functional = functional_graph(model)
    walker = _Walker(functional)
    missing = unsupported_layers(model, walker.routers)
    if missing:
        raise KerasConversionError(
            f'{len(missing)} unsupported Keras layer(s): {", ".join(missing)}. '
            'See docs/layers.md for the supported layers.'
        )
    problems = []
    for operation in functional.operations:
        try:
            walker.convert(operation)
        except UnsupportedLayer as error:
            problems.append(str(error))
            walker.mark_broken(operation)
        except ValueError:
            if not walker.downstream_of_broken(operation):
                raise
            walker.mark_broken(operation)  # a knock-on effect of an earlier problem: not reported twice
    if problems:
        raise KerasConversionError(f'{len(problems)} layer(s) cannot be converted: ' + '; '.join(problems))
    walker.graph.inputs = [walker.tensor_of(tensor) for tensor in functional.inputs]
    walker.graph.outputs = [walker.tensor_of(tensor) for tensor in functional.outputs]
    walker.drop_unread_outputs()
    cancel_layout_moves(walker.graph, walker.layout_moves)
    finish_hgq(walker.graph)  # HGQ2 models: exact types, uniform quantizers folded
    return walker.graph, walker.origin


class _Walker:
    """Builds the graph one Keras operation at a time (operations come in topological order)."""

    def __init__(self, functional: Any) -> None:
        self.graph_nodes = {id(node) for nodes in functional._nodes_by_depth.values() for node in nodes}
        self.graph = Graph()
        self.names = NameTable()
        self.keras_outputs: dict[tuple[str, int], str] = {}  # (keras layer, tensor index) -> IR tensor
        self.origin: dict[str, str] = {}
        self.broken: set[str] = set()
        self.split_outputs: list[Layer] = []  # layers of one output of a multi-output operation
        self.layout_moves: dict[str, int] = {}  # channels-first layers' layout moves (`channels_first`)
        self.routers = match_routers(functional, self.graph_nodes)

    def drop_unread_outputs(self) -> None:
        """Remove the layers of outputs of multi-output operations that the model never reads."""
        graph = self.graph
        for layer in self.split_outputs:
            if not graph.consumers(layer.outputs[0]) and layer.outputs[0] not in graph.outputs:
                graph.remove_layer(layer)
                self.origin.pop(layer.name, None)

    def mark_broken(self, operation: Any) -> None:
        """Keep walking after a refused layer: its output stands in for by its first input, so the
        layers after it are still checked for problems of their own."""
        node = self._node(operation)
        histories = [tensor._keras_history for tensor in node.input_tensors] if node is not None else []
        keys = [(history.operation.name, history.tensor_index) for history in histories]
        inputs = [self.keras_outputs[key] for key in keys if key in self.keras_outputs]
        self.broken.add(operation.name)
        if inputs and (operation.name, 0) not in self.keras_outputs:
            self.keras_outputs[(operation.name, 0)] = inputs[0]

    def downstream_of_broken(self, operation: Any) -> bool:
        node = self._node(operation)
        return node is not None and any(t._keras_history.operation.name in self.broken for t in node.input_tensors)

    def _node(self, operation: Any) -> Any:
        nodes = [node for node in operation._inbound_nodes if id(node) in self.graph_nodes]
        return nodes[0] if len(nodes) == 1 else None

    def tensor_of(self, keras_tensor: Any) -> str:
        history = keras_tensor._keras_history
        key = (history.operation.name, history.tensor_index)
        if key not in self.keras_outputs:  # made by a refused layer without a stand-in: already reported
            raise _AfterRefusal(f'{history.operation.name} was refused')
        return self.keras_outputs[key]

    def convert(self, operation: Any) -> None:
        node = self._node(operation)
        if node is None:
            calls = sum(id(node) in self.graph_nodes for node in operation._inbound_nodes)
            raise UnsupportedLayer(
                f'{operation.name} ({type(operation).__name__}) is called {calls} times in the model (a shared '
                'layer); each call needs a layer of its own: create one layer per call and copy the weights '
                'with set_weights(shared.get_weights())'
            )
        inputs = [self.tensor_of(tensor) for tensor in node.input_tensors]
        class_name = type(operation).__name__
        if class_name in REMOVED or operation.name in self.routers.passed:
            self.keras_outputs[(operation.name, 0)] = inputs[0]
            return
        name = self.names.add(operation.name)
        shapes = [self.graph.tensors[tensor].shape for tensor in inputs]
        source = Source(operation, name, inputs, shapes)
        if operation.name in self.routers.routers:
            layers = router_outputs(source, self.routers.routers[operation.name])
        else:
            layers = HANDLERS[class_name](source)
        renamed: dict[str, str] = {}
        for layer in layers:
            layer.inputs = [renamed.get(tensor, tensor) for tensor in layer.inputs]
            direction = move_direction(layer, name)
            if layer.name == name:  # the layer named after the Keras layer: config entries reach it by that name
                self.origin[layer.name] = operation.name
            else:  # a layer split off (activation, depthwise part): a name of its own
                renamed[layer.name] = self.names.add(layer.name)
                self._rename(layer, renamed[layer.name])
            if direction is not None:
                self.layout_moves[layer.name] = direction
            self._add(layer)
        outputs = len(node.output_tensors)
        if outputs > 1:  # one IR layer per output tensor, in order (TopK: values, indices)
            self.split_outputs += layers[-outputs:]
        for index, layer in enumerate(layers[-outputs:]):
            self.keras_outputs[(operation.name, index)] = layer.outputs[0]

    def _rename(self, layer: Layer, name: str) -> None:
        layer.name, layer.outputs = name, [name]

    def _add(self, layer: Layer) -> None:
        shapes = [self.graph.tensors[tensor].shape for tensor in layer.inputs]
        output_shape = LAYER_KINDS[layer.kind].output_shape(layer, shapes)
        self.graph.add_layer(layer, [output_shape])
