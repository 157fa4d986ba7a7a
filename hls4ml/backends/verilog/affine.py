"""Per-element constant arithmetic: BatchNormalization, PReLU and HGQ2's FixedPointQuantizer.

BatchNormalization (`nnet::normalize`): x_i * scale_c + bias_c exact (the scale a shift-and-add
constant product), c = i % the number of scales, then the write. PReLU: x where x > 0, else alpha_i * x,
written into the result type; computed without a comparator as relu(x) - alpha_i * relu(-x), whose
active term is exactly the chosen branch (the other is 0, and at x = 0 both are, as is alpha * 0).
FixedPointQuantizer (`hls4ml/model/quantizer.py`): value j written into its triple's own type (its
rounding and overflow), 0 where the triple is pruned, then into the container result type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import UnsupportedInRTL, quantizer
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import weights_of
from hls4ml.model.quantizer import Triples, element_type, triples_of
from hls4ml.model.types import FixedPrecisionType


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


# ---- FixedPointQuantizer (HGQ2): value j written into its own type, then into the container ----------


def _element_types(layer: Layer) -> tuple[Triples, list[FixedPrecisionType | None]]:
    """The quantizer's triples and, per parameter, the type it writes into (None: pruned, always 0)."""
    triples = triples_of(layer)
    live = triples.live
    types = [
        element_type(int(k), int(i), int(f), triples.rounding, triples.overflow) if live[index] else None
        for index, (k, i, f) in enumerate(zip(triples.keep_negative, triples.integer, triples.fraction, strict=True))
    ]
    return triples, types


def check_quantizer(layer: Layer, graph: Graph) -> list[str]:
    _, types = _element_types(layer)
    for precision in {precision for precision in types if precision is not None}:
        try:
            quantizer(precision, f'{layer.describe()} element type')
        except UnsupportedInRTL as error:
            return [str(error)]
    return []


def trace_quantizer(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    _, types = _element_types(layer)
    where = f'{layer.describe()} element type'
    values = []
    for index, value in enumerate(flat):
        precision = types[index % len(types)]
        if precision is None:
            values.append(type(value).from_const(0.0, hwconf=value.hwconf))
        else:
            values.append(quantizer(precision, where).apply(value))
    return _written(layer, inputs[0], values)
