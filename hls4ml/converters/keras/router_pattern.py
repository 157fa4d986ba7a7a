"""The router subgraph of a hand-written MoE block in a functional Keras 3 model, as Router layers.

    probabilities = keras.ops.softmax(logits)        # or layers.Softmax(), Activation('softmax')
    weights, experts = keras.ops.top_k(probabilities, k)
    weights = weights / keras.ops.sum(weights, axis=-1, keepdims=True)   # optional (or ops.divide)

is token-choice gating (docs/moe.md). Every keras.ops call on a symbolic tensor is an operation of
the functional graph (Softmax, TopK, Sum, TrueDivide / Divide), so the graph shows the pattern as it
was written. `match_routers` finds it before the walk: the top-k operation becomes the Router layers
(the weights named after it, the indices `<name>_indices`, as for TopK), reading the logits; the
softmax, the sum and the division add no layer (each one's output is its first input).

It matches only on one vector of logits per sample, when the probabilities feed nothing but the
top-k and (with the renormalisation) the top-k values nothing but the sum and the division.
Otherwise the softmax and the top-k convert as they are; the sum has no handler, and a sum that
renormalises top-k values is reported with the reason. A softmax fused into a Dense
(`Dense(activation='softmax')`) is not matched.
"""

from __future__ import annotations

from typing import Any

from hls4ml.converters.router_matches import RouterMatches, renormalisation_refused

DIVISIONS = ('TrueDivide', 'Divide')
ADVICE = 'use hls4ml.nn.keras_moe.TopKRouter'
OUTPUT = '(a model output)'


def match_routers(functional: Any, graph_nodes: set[int]) -> RouterMatches:
    """The router subgraphs of `functional` (see the module docstring); `graph_nodes` are the ids of
    the nodes of this model (a layer may have nodes in other models too)."""
    graph = _Readers(functional, graph_nodes)
    matches = RouterMatches()
    for operation in functional.operations:
        if type(operation).__name__ != 'TopK' or graph.node(operation) is None:
            continue
        softmax = graph.producer(operation, 0)
        if softmax is None or not _is_softmax(softmax, graph):
            continue
        total, division = _renormalisation(operation, graph)
        reasons = graph.other_readers((softmax.name, 0), {operation.name}, 'the probabilities')
        if division is not None:
            allowed = {total.name, division.name}
            reasons += graph.other_readers((operation.name, 0), allowed, 'the top-k values')
            reasons += graph.other_readers((total.name, 0), {division.name}, 'the sum')
        if not reasons:
            matches.passed.update({softmax.name} | ({total.name, division.name} if division is not None else set()))
            matches.routers[operation.name] = division is not None
        elif division is not None:
            operations = f'{total.name} (Sum) and {division.name} ({type(division).__name__})'
            reason = renormalisation_refused(operations, operation.name, reasons, ADVICE)
            matches.explained[total.name] = matches.explained[division.name] = reason
    return matches


def _is_softmax(operation: Any, graph: _Readers) -> bool:
    """A softmax over the last axis of one vector per sample."""
    class_name = type(operation).__name__
    if class_name == 'Activation':
        is_softmax = operation.get_config().get('activation') == 'softmax'
    else:
        is_softmax = class_name == 'Softmax' and getattr(operation, 'axis', None) in (-1, 1, [-1], [1])
    node = graph.node(operation)
    return is_softmax and node is not None and len(node.input_tensors[0].shape) == 2


def _renormalisation(topk: Any, graph: _Readers) -> tuple[Any, Any]:
    """(sum, division) when the top-k values are divided by `sum(values, axis=-1, keepdims=True)`."""
    for total in graph.readers.get((topk.name, 0), []):
        is_sum = type(total).__name__ == 'Sum' and total.keepdims and total.axis in (-1, 1, [-1], [1])
        if not is_sum:
            continue
        for division in graph.readers.get((total.name, 0), []):
            node = graph.node(division)
            inputs = [graph.source(tensor) for tensor in node.input_tensors] if node is not None else []
            if type(division).__name__ in DIVISIONS and inputs == [(topk.name, 0), (total.name, 0)]:
                return total, division
    return None, None


class _Readers:
    """Who reads each output tensor `(operation name, index)` of the functional graph."""

    def __init__(self, functional: Any, graph_nodes: set[int]) -> None:
        self.graph_nodes = graph_nodes
        self.operations = {operation.name: operation for operation in functional.operations}
        self.readers: dict[tuple[str, int], list[Any]] = {}
        for operation in functional.operations:
            node = self.node(operation)
            for tensor in node.input_tensors if node is not None else []:
                self.readers.setdefault(self.source(tensor), []).append(operation)
        self.outputs = {self.source(tensor) for tensor in functional.outputs}

    def node(self, operation: Any) -> Any:
        nodes = [node for node in operation._inbound_nodes if id(node) in self.graph_nodes]
        return nodes[0] if len(nodes) == 1 else None

    @staticmethod
    def source(tensor: Any) -> tuple[str, int]:
        history = tensor._keras_history
        return history.operation.name, history.tensor_index

    def producer(self, operation: Any, index: int) -> Any:
        node = self.node(operation)
        if node is None or len(node.input_tensors) <= index:
            return None
        name, tensor_index = self.source(node.input_tensors[index])
        return self.operations.get(name) if tensor_index == 0 else None

    def other_readers(self, tensor: tuple[str, int], allowed: set[str], what: str) -> list[str]:
        others = [f"'{reader.name}'" for reader in self.readers.get(tensor, []) if reader.name not in allowed]
        others += [OUTPUT] if tensor in self.outputs else []
        return [f"'{tensor[0]}' ({what}) is also read by {', '.join(others)}"] if others else []
