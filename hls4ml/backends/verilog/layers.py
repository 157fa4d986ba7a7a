"""Per layer kind, how the Verilog backend expresses it with da4ml's traced arrays: the rule table.

A rule has `check(layer, graph) -> [problems]` (empty: supported; run before anything is traced) and
`trace(layer, inputs, graph) -> output array`. Products (Dense, convolutions) are in `products.py`;
element-wise functions become logic (ReLU, linear) or a ROM whose entries are the reference kernel's
own outputs for every value the input can take (`tables.py`); moves (reshape, transpose, concatenate,
padding, cropping) find their routing by moving indices through the reference kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.backends.verilog.affine import check_quantizer, trace_batchnorm, trace_prelu, trace_quantizer
from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.backends.verilog.gathers import check_embedding, trace_embedding, trace_interpolate, trace_reduce
from hls4ml.backends.verilog.maps import check_som, trace_som
from hls4ml.backends.verilog.pooling import trace_global_pooling, trace_pooling
from hls4ml.backends.verilog.products import trace_conv, trace_dense, trace_depthwise
from hls4ml.backends.verilog.selection import check_router, trace_router, trace_softmax_argmax, trace_topk
from hls4ml.backends.verilog.softmax import check_softmax, is_argmax, trace_softmax
from hls4ml.backends.verilog.tables import check_element_wise, trace_element_wise
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.types import IntegerPrecisionType

Check = Callable[[Layer, Graph], list[str]]
Trace = Callable[[Layer, list[Any], Graph], Any]


@dataclass(frozen=True)
class Rule:
    trace: Trace
    check: Check = lambda layer, graph: []


def result_of(layer: Layer, values: Any) -> Any:
    """`values` written into the layer's result type."""
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(values)


def _array(like: Any, flat: list[Any]) -> Any:
    return type(like)(np.array(flat, dtype=object), like.solver_options, hwconf=like.hwconf)


# ---- moves: routing found by running the reference kernel on indices ------------------------------


def _routing(layer: Layer, graph: Graph) -> np.ndarray:
    """For each output element, its index into the inputs laid end to end (-1: a constant 0)."""
    wide = IntegerPrecisionType(40)
    offsets = np.cumsum([0] + [graph.tensors[name].size for name in layer.inputs])
    ids = [
        quantize(np.arange(start + 1, end + 1).reshape(1, -1), wide, 'ap')
        for start, end in zip(offsets[:-1], offsets[1:], strict=True)
    ]
    probe = Layer(layer.name, layer.kind, layer.inputs, layer.outputs, dict(layer.attributes), layer.weights)
    probe.types = {**layer.types, 'result': wide}
    reference = LAYER_KINDS[layer.kind].reference
    if reference is None:
        raise ValueError(f'{layer.describe()}: kind {layer.kind} has no reference kernel to route its data by')
    output = reference(probe, ids, graph, 'ap')
    return np.asarray(output.raw, dtype=np.int64).reshape(-1) - 1


def trace_move(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    joined = np.concatenate([np.asarray(array._vars).ravel() for array in inputs])
    routing = _routing(layer, graph)
    first = joined[0]
    constant_zero = type(first).from_const(0.0, hwconf=first.hwconf)
    flat = [joined[index] if index >= 0 else constant_zero for index in routing]
    return result_of(layer, _array(inputs[0], flat))


# ---- merges ----------------------------------------------------------------------------------------

MERGES = {
    'add': lambda a, b: a + b,
    'average': lambda a, b: (a + b) * 0.5,  # the exact half of the exact sum, as merge.average
    'subtract': lambda a, b: a - b,
    'multiply': lambda a, b: a * b,
    'maximum': lambda a, b: np.maximum(a, b),
    'minimum': lambda a, b: np.minimum(a, b),
}


def _check_merge(layer: Layer, graph: Graph) -> list[str]:
    if layer.attributes['op'] in MERGES:
        return []
    supported = ', '.join(MERGES)
    return [f"{layer.describe()}: merge '{layer.attributes['op']}' has no Verilog logic yet (supported: {supported})"]


def trace_merge(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    first, second = inputs
    return result_of(layer, MERGES[layer.attributes['op']](first, second))


def _trace_softmax(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    """'argmax' is a comparator tree (`selection.py`); 'stable' and 'latency' read tables (`softmax.py`)."""
    trace = trace_softmax_argmax if is_argmax(layer) else trace_softmax
    return trace(layer, inputs, graph)


MOVE_KINDS = (
    Kind.RESHAPE,
    Kind.TRANSPOSE,
    Kind.CONCATENATE,
    Kind.ZERO_PADDING1D,
    Kind.ZERO_PADDING2D,
    Kind.CROPPING1D,
    Kind.CROPPING2D,
    Kind.CLONE,
    Kind.GATHER,
    Kind.RESIZE,
    Kind.RESIZE2D,
)
ELEMENT_WISE_KINDS = (Kind.ACTIVATION, Kind.PARAMETRIZED_ACTIVATION, Kind.HARD_ACTIVATION, Kind.UNARY_LUT)

RULES: dict[str, Rule] = {
    Kind.INPUT: Rule(trace=lambda layer, inputs, graph: inputs[0]),
    Kind.DENSE: Rule(trace=trace_dense),
    Kind.CONV1D: Rule(trace=trace_conv),
    Kind.CONV2D: Rule(trace=trace_conv),
    Kind.DEPTHWISE_CONV1D: Rule(trace=trace_depthwise),
    Kind.DEPTHWISE_CONV2D: Rule(trace=trace_depthwise),
    Kind.BATCH_NORMALIZATION: Rule(trace=trace_batchnorm),
    Kind.PRELU: Rule(trace=trace_prelu),
    Kind.FIXED_POINT_QUANTIZER: Rule(trace=trace_quantizer, check=check_quantizer),
    Kind.MERGE: Rule(trace=trace_merge, check=_check_merge),
    Kind.SOFTMAX: Rule(trace=_trace_softmax, check=check_softmax),
    Kind.REDUCE: Rule(trace=trace_reduce),
    Kind.INTERPOLATE: Rule(trace=trace_interpolate),
    Kind.EMBEDDING: Rule(trace=trace_embedding, check=check_embedding),
    Kind.TOPK: Rule(trace=trace_topk),
    Kind.SOM: Rule(trace=trace_som, check=check_som),
    Kind.ROUTER: Rule(trace=trace_router, check=check_router),
    Kind.POOLING1D: Rule(trace=trace_pooling),
    Kind.POOLING2D: Rule(trace=trace_pooling),
    Kind.GLOBAL_POOLING1D: Rule(trace=trace_global_pooling),
    Kind.GLOBAL_POOLING2D: Rule(trace=trace_global_pooling),
    **{kind: Rule(trace=trace_move) for kind in MOVE_KINDS},
    **{kind: Rule(trace=trace_element_wise, check=check_element_wise) for kind in ELEMENT_WISE_KINDS},
}
