"""The IR verifier: the invariants every pass must preserve, checked after the flow (and in tests)."""

from __future__ import annotations

import re

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.model.types import FixedPrecisionType

IDENTIFIER = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


class VerificationError(ValueError):
    """The graph breaks an IR invariant; the message names the layer."""


def verify(graph: Graph, resolved: bool = True) -> None:
    """Raise VerificationError unless the graph is well formed (and, if `resolved`, fully typed)."""
    seen: set[str] = set()
    for layer in graph.layers.values():
        _check_layer(graph, layer, seen, resolved)
        seen.update(layer.outputs)
    for name in (*graph.inputs, *graph.outputs):
        if name not in graph.tensors:
            raise VerificationError(f"model input/output '{name}' is not a tensor of the graph")
    if not graph.outputs:
        raise VerificationError('the model has no outputs')
    _check_computes(graph)


def _check_computes(graph: Graph) -> None:
    """A model output that is one of its inputs has nothing to compute (the firmware would be a wire):
    refused here, at conversion, rather than when the project is written."""
    passed_on = [name for name in graph.outputs if name in graph.inputs]
    if passed_on:
        raise VerificationError(
            f"the model output '{passed_on[0]}' is its input unchanged: there is nothing to convert "
            '(layers that only pass their input on, such as Dropout or a linear activation, are removed); '
            'a model needs at least one layer that computes its output'
        )


def _check_shape(where: str, tensor: str, shape: tuple) -> None:
    """Every axis has a size of at least 1: a zero-size (or unknown) axis would make the C++ divide by zero."""
    if any(not isinstance(size, (int, np.integer)) or size < 1 for size in shape):
        raise VerificationError(
            f"{where}: tensor '{tensor}' has shape {shape}; every axis needs a fixed size of at least 1 "
            '(give the model input a fixed, non-zero shape and check the sizes of the layers)'
        )


def _check_layer(graph: Graph, layer: Layer, seen: set[str], resolved: bool) -> None:
    where = layer.describe()
    if layer.kind not in LAYER_KINDS:
        raise VerificationError(f'{where}: unknown layer kind {layer.kind!r}')
    if not IDENTIFIER.match(layer.name):
        raise VerificationError(f'{where}: the name is not a C++ identifier')
    for tensor in layer.inputs:
        if tensor not in seen:
            raise VerificationError(f"{where}: input '{tensor}' is not produced by an earlier layer")
    for tensor in layer.outputs:
        if graph.tensors.get(tensor) is None or graph.tensors[tensor].producer != layer.name:
            raise VerificationError(f"{where}: output '{tensor}' is not registered as produced by it")
    for tensor in layer.outputs:
        _check_shape(where, tensor, graph.tensors[tensor].shape)
    kind = LAYER_KINDS[layer.kind]
    shapes = [graph.tensors[name].shape for name in layer.inputs]
    try:
        expected = kind.output_shape(layer, shapes)
    except ValueError as error:
        raise VerificationError(str(error)) from error
    if expected != graph.tensors[layer.outputs[0]].shape:
        raise VerificationError(f'{where}: output shape does not follow from the input shapes')
    for name, shape in kind.weight_shapes(layer).items():
        values = layer.weights.get(name)
        if values is None:
            raise VerificationError(f"{where}: missing weights '{name}'")
        if np.shape(values) != shape:
            raise VerificationError(f"{where}: weights '{name}' have shape {np.shape(values)}, expected {shape}")
        if not np.all(np.isfinite(values)):
            raise VerificationError(f"{where}: weights '{name}' contain NaN or infinite values")
    if resolved:
        _check_types(layer, where)


def _check_types(layer: Layer, where: str) -> None:
    for var in LAYER_KINDS[layer.kind].type_defaults:
        precision = layer.types.get(var)
        if not isinstance(precision, FixedPrecisionType):
            raise VerificationError(f"{where}: precision '{var}' is {precision}, not a fixed-point or integer type")
