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

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.backends.verilog.products import trace_conv, trace_dense, window_taps
from hls4ml.backends.verilog.quantizers import check_fixed_point_quantizer, trace_fixed_point_quantizer
from hls4ml.backends.verilog.softmax import check_softmax, trace_softmax
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


# ---- max pooling -----------------------------------------------------------------------------------


def _check_pooling(layer: Layer, graph: Graph) -> list[str]:
    if layer.attributes['pool_op'] == 'max':
        return []
    return [f'{layer.describe()}: average pooling divides by the window count, which has no Verilog logic yet']


def _pool_windows(layer: Layer) -> np.ndarray:
    """(output element, window tap) -> input index, -1 for padding: the reference pooling run on indices
    in a wide type, one tap at a time (a max over one-hot windows reveals each tap)."""
    attributes = layer.attributes
    two_d = 'in_height' in attributes
    pool = (attributes.get('pool_height', 1) if two_d else 1, attributes['pool_width'])
    geometry = {
        'in_height': attributes.get('in_height', 1),
        'in_width': attributes['in_width'],
        'n_chan': attributes['n_chan'],
        'filt_height': pool[0],
        'filt_width': pool[1],
        'stride_height': attributes.get('stride_height', 1) if two_d else 1,
        'stride_width': attributes['stride_width'],
        **{name: attributes.get(name, 0) for name in ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')},
    }
    probe = Layer(layer.name, Kind.CONV2D, layer.inputs, layer.outputs, geometry)
    taps = window_taps(probe)  # (pixels, kh*kw*channels) in (kh, kw, c) order
    channels = attributes['n_chan']
    per_channel = taps.reshape(taps.shape[0], -1, channels).transpose(0, 2, 1)
    return per_channel.reshape(-1, per_channel.shape[2])


def trace_max_pool(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    outputs = []
    for window in _pool_windows(layer):
        values = [flat[index] for index in window if index >= 0]
        best = values[0]
        for value in values[1:]:
            best = best.max_of(value)
        outputs.append(best)
    return result_of(layer, _array(inputs[0], outputs))


def _check_global_pooling(layer: Layer, graph: Graph) -> list[str]:
    return _check_pooling(layer, graph)


def trace_global_max_pool(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    channels = layer.attributes['n_chan']
    flat = np.asarray(inputs[0]._vars).ravel().reshape(-1, channels)
    outputs = []
    for channel in range(channels):
        best = flat[0, channel]
        for value in flat[1:, channel]:
            best = best.max_of(value)
        outputs.append(best)
    return result_of(layer, _array(inputs[0], outputs))


MOVE_KINDS = (
    Kind.RESHAPE,
    Kind.TRANSPOSE,
    Kind.CONCATENATE,
    Kind.ZERO_PADDING1D,
    Kind.ZERO_PADDING2D,
    Kind.CROPPING1D,
    Kind.CROPPING2D,
    Kind.CLONE,
)
ELEMENT_WISE_KINDS = (Kind.ACTIVATION, Kind.PARAMETRIZED_ACTIVATION, Kind.HARD_ACTIVATION, Kind.UNARY_LUT)

RULES: dict[str, Rule] = {
    Kind.INPUT: Rule(trace=lambda layer, inputs, graph: inputs[0]),
    Kind.DENSE: Rule(trace=trace_dense),
    Kind.CONV1D: Rule(trace=trace_conv),
    Kind.CONV2D: Rule(trace=trace_conv),
    Kind.MERGE: Rule(trace=trace_merge, check=_check_merge),
    Kind.SOFTMAX: Rule(trace=trace_softmax, check=check_softmax),
    Kind.FIXED_POINT_QUANTIZER: Rule(trace=trace_fixed_point_quantizer, check=check_fixed_point_quantizer),
    Kind.POOLING1D: Rule(trace=trace_max_pool, check=_check_pooling),
    Kind.POOLING2D: Rule(trace=trace_max_pool, check=_check_pooling),
    Kind.GLOBAL_POOLING1D: Rule(trace=trace_global_max_pool, check=_check_global_pooling),
    Kind.GLOBAL_POOLING2D: Rule(trace=trace_global_max_pool, check=_check_global_pooling),
    **{kind: Rule(trace=trace_move) for kind in MOVE_KINDS},
    **{kind: Rule(trace=trace_element_wise, check=check_element_wise) for kind in ELEMENT_WISE_KINDS},
}
