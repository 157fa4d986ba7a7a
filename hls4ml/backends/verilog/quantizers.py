"""HGQ2's heterogeneous quantizer (FixedPointQuantizer) in the Verilog backend: value j written into its
own fixed<k+i+f, k+i> of triple j % n_params with the layer's rounding and overflow, pruned (zero-bit)
values a constant 0, all then held exactly by the result type (the container of the triples), as the
reference kernel does (hls4ml/model/reference/quantizer.py). Modes without a da4ml quantizer are refused
by name (fixed.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import UnsupportedInRTL, quantizer
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.quantizer import element_type, triples_of


def check_fixed_point_quantizer(layer: Layer, graph: Graph) -> list[str]:
    triples = triples_of(layer)
    try:
        quantizer(element_type(1, 1, 1, triples.rounding, triples.overflow), f'{layer.describe()} quantizer')
    except (UnsupportedInRTL, ValueError) as error:
        return [str(error)]
    return []


def trace_fixed_point_quantizer(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    """Every input value quantized with its own triple; then written into the (exact) result type."""
    triples = triples_of(layer)
    flat = np.asarray(inputs[0]._vars).ravel()
    live = triples.live
    zero = type(flat[0]).from_const(0.0, hwconf=flat[0].hwconf)
    outputs = []
    for index, value in enumerate(flat):
        j = index % triples.keep_negative.size
        if not live[j]:
            outputs.append(zero)
            continue
        k, i, f = (int(array[j]) for array in (triples.keep_negative, triples.integer, triples.fraction))
        precision = element_type(k, i, f, triples.rounding, triples.overflow)
        outputs.append(quantizer(precision, f'{layer.describe()} element {index}').apply(value))
    array = type(inputs[0])(np.array(outputs, dtype=object), inputs[0].solver_options, hwconf=inputs[0].hwconf)
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(array)
