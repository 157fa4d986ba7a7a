"""Per-element constant arithmetic: BatchNormalization and PReLU, each one write into the result type.

BatchNormalization (`nnet::normalize`): x_i * scale_c + bias_c exact (the scale a shift-and-add
constant product), c = i % the number of scales, then the write. PReLU: x where x > 0, else alpha_i * x,
written into the result type; computed without a comparator as relu(x) - alpha_i * relu(-x), whose
active term is exactly the chosen branch (the other is 0, and at x = 0 both are, as is alpha * 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import weights_of


def _per_element(layer: Layer, name: str, var: str, size: int) -> np.ndarray:
    """Weights `name` in type `var` as exact floats, one per element (repeated per channel)."""
    values = weights_of(layer, name, var, 'ap').to_double().reshape(-1)
    return values[np.arange(size) % values.size]


def _written(layer: Layer, like: Any, flat: list[Any]) -> Any:
    array = type(like)(np.array(flat, dtype=object), like.solver_options, hwconf=like.hwconf)
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(array)


def trace_batchnorm(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    scales = _per_element(layer, 'scale', 'scale', flat.size)
    biases = _per_element(layer, 'bias', 'bias', flat.size)
    values = [value * float(scale) + float(bias) for value, scale, bias in zip(flat, scales, biases, strict=True)]
    return _written(layer, inputs[0], values)


def trace_prelu(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    slopes = _per_element(layer, 'alpha', 'param', flat.size)
    values = [value.relu() - (-value).relu() * float(slope) for value, slope in zip(flat, slopes, strict=True)]
    return _written(layer, inputs[0], values)
