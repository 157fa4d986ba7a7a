"""The reference interpreter: runs the IR graph with the numpy reference kernels, bit for bit like
the generated firmware. It is the test oracle for `predict()` and needs no compiler.

    outputs, per_layer = interpret(hls_model, x)        # FixedArray per output and per layer

Each layer runs the reference kernel its kind's record names (`hls4ml/model/kinds/`) on all its inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import LAYER_KINDS


def interpret(model: Any, x: Any, family: str | None = None) -> tuple[list[FixedArray], dict[str, FixedArray]]:
    """Outputs (one FixedArray of shape (n, size) per model output) and every layer's output.
    `model` is a converted model (its `graph` and `backend.family` are read) or, with `family`
    given, anything with a `graph`."""
    graph: Graph = model.graph
    family = family or model.backend.family
    arrays = list(x) if isinstance(x, (list, tuple)) and len(graph.inputs) > 1 else [x]
    values: dict[str, FixedArray] = {}
    for tensor, array in zip(graph.inputs, arrays, strict=True):
        layer = graph.producer(tensor)
        flat = np.asarray(array, dtype=np.float64).reshape(len(array), -1)
        values[tensor] = quantize(flat, layer.types['result'], family)
    for layer in graph.layers.values():
        kernel = LAYER_KINDS[layer.kind].reference
        if kernel is not None:  # None: a port, whose values the caller gave
            output = kernel(layer, [values[name] for name in layer.inputs], graph, family)
            values.update(dict.fromkeys(layer.outputs, output))  # a Clone's outputs are all the same values
    per_layer = {layer.name: values[layer.outputs[0]] for layer in graph.layers.values()}
    return [values[name] for name in graph.outputs], per_layer
