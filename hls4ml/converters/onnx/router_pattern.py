"""The router subgraph of a hand-written MoE block in an ONNX graph, as Router layers.

`torch.onnx.export` of `F.softmax(logits, -1) -> torch.topk(p, k) -> w / w.sum(-1, keepdim=True)` gives

    Softmax(axis=-1) -> TopK(largest=1, axis=-1) -> [ReduceSum(axes=[-1], keepdims=1) -> Div]

(the axes an input from opset 13 on, an attribute before). `match_routers` finds it on the graph as
loaded, before the unsupported-op check (ReduceSum has no handler of its own): the TopK node becomes
the Router layers (the weights named after it, the indices `<name>_indices`), reading the logits;
the Softmax, ReduceSum and Div nodes add no layer. It matches only when the probabilities feed
nothing but the TopK and (with the renormalisation) the values nothing but the ReduceSum and the Div;
otherwise the Softmax and TopK convert as they are and the ReduceSum is reported with the reason.
The walk checks that the logits are one vector per sample (the graph has no shapes yet).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import onnx

from hls4ml.converters.router_matches import RouterMatches, renormalisation_refused

ADVICE = 'convert hls4ml.nn.torch_moe.TopKRouter through the PyTorch frontend'
OUTPUT = '(a model output)'


def match_routers(graph: onnx.GraphProto, opset: int) -> RouterMatches:
    """The router subgraphs of `graph` (see the module docstring)."""
    readers: dict[str, list[onnx.NodeProto]] = defaultdict(list)
    producers = {name: node for node in graph.node for name in node.output}
    for node in graph.node:
        for name in node.input:
            readers[name].append(node)
    outputs = {output.name for output in graph.output}
    matches = RouterMatches()
    for topk in graph.node:
        softmax = producers.get(topk.input[0]) if topk.op_type == 'TopK' else None
        if softmax is None or not _is_softmax(softmax, opset) or not _top_largest(topk):
            continue
        values = topk.output[0]
        total, division = _renormalisation(graph, readers, values, opset)
        reasons = _other_readers(readers, outputs, softmax.output[0], {topk.name}, 'the probabilities')
        if total is not None and division is not None:
            reasons += _other_readers(readers, outputs, values, {total.name, division.name}, 'the top-k values')
            reasons += _other_readers(readers, outputs, total.output[0], {division.name}, 'the sum')
        if not reasons:
            matches.passed.update(node.name for node in (softmax, total, division) if node is not None)
            matches.routers[topk.name] = division is not None
        elif total is not None and division is not None:
            operations = f"'{total.name}' (ReduceSum) and '{division.name}' (Div)"
            matches.explained[total.name] = renormalisation_refused(operations, topk.name, reasons, ADVICE)
    return matches


def _is_softmax(node: onnx.NodeProto, opset: int) -> bool:
    axis = _attribute(node, 'axis', -1 if opset >= 13 else 1)
    return node.op_type == 'Softmax' and axis in (-1, 1)


def _top_largest(node: onnx.NodeProto) -> bool:
    return _attribute(node, 'largest', 1) == 1 and _attribute(node, 'axis', -1) in (-1, 1)


def _renormalisation(
    graph: onnx.GraphProto, readers: dict[str, list[onnx.NodeProto]], values: str, opset: int
) -> tuple[onnx.NodeProto | None, onnx.NodeProto | None]:
    """(ReduceSum, Div) when the values are divided by their sum over the last axis, dims kept."""
    for total in readers[values]:
        if total.op_type != 'ReduceSum' or total.input[0] != values or _attribute(total, 'keepdims', 1) != 1:
            continue
        axes = _constant(graph, total.input[1]) if opset >= 13 and len(total.input) > 1 else _attribute(total, 'axes')
        if axes is None or [int(axis) for axis in np.ravel(axes)] not in ([-1], [1]):
            continue
        for division in readers[total.output[0]]:
            if division.op_type == 'Div' and list(division.input) == [values, total.output[0]]:
                return total, division
    return None, None


def _attribute(node: onnx.NodeProto, name: str, default: Any = None) -> Any:
    for attribute in node.attribute:
        if attribute.name == name:
            return onnx.helper.get_attribute_value(attribute)
    return default


def _constant(graph: onnx.GraphProto, name: str) -> np.ndarray | None:
    """The value of an initializer or of a Constant node's output, else None."""
    for initializer in graph.initializer:
        if initializer.name == name:
            return onnx.numpy_helper.to_array(initializer)
    for node in graph.node:
        if node.op_type == 'Constant' and list(node.output) == [name]:
            value = _attribute(node, 'value')
            return onnx.numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else None
    return None


def _other_readers(
    readers: dict[str, list[onnx.NodeProto]], outputs: set[str], tensor: str, allowed: set[str], what: str
) -> list[str]:
    others = [f"'{node.name}'" for node in readers[tensor] if node.name not in allowed]
    others += [OUTPUT] if tensor in outputs else []
    return [f"'{tensor}' ({what}) is also read by {', '.join(others)}"] if others else []
