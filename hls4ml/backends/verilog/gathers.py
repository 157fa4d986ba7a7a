"""Reduce and Interpolate (`hls4ml/model/kinds/gathers.py`): constant index tables, then arithmetic in
accum_t in the reference's order. (Gather itself is a move: `layers.trace_move`.)

Reduce: total = x[index_0] written into accum_t; then for each next value, sum: total + x written into
accum_t; max (min): x written into accum_t where x is strictly larger (smaller) than total, a comparator
and a multiplexer; then the write into the result type. Interpolate: total = w_0 x_0 into accum_t, then
total + w_k x_k into accum_t for each next k (a constant product each), then the result type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import weights_of


def _table(layer: Layer) -> np.ndarray:
    return np.asarray(layer.attributes['index'], dtype=np.int64).reshape(-1, layer.attributes['n_reduce'])


def _written(layer: Layer, like: Any, flat: list[Any]) -> Any:
    array = type(like)(np.array(flat, dtype=object), like.solver_options, hwconf=like.hwconf)
    return quantizer(layer.types['result'], f'{layer.describe()} result type').apply(array)


def _combined(total: Any, value: Any, operation: str, accum: Any) -> Any:
    if operation == 'sum':
        return accum.apply(total + value)
    better = (total - value).is_negative() if operation == 'max' else (value - total).is_negative()
    return better.msb_mux(accum.apply(value), total)


def trace_reduce(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    accum = quantizer(layer.types['accum'], f'{layer.describe()} accum type')
    operation = layer.attributes['op']
    outputs = []
    for row in _table(layer):
        total = accum.apply(flat[row[0]])
        for index in row[1:]:
            total = _combined(total, flat[index], operation, accum)
        outputs.append(total)
    return _written(layer, inputs[0], outputs)


def trace_interpolate(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    flat = np.asarray(inputs[0]._vars).ravel()
    accum = quantizer(layer.types['accum'], f'{layer.describe()} accum type')
    table = _table(layer)
    weights = weights_of(layer, 'weight', 'weight', 'ap').to_double().reshape(table.shape)
    outputs = []
    for row, row_weights in zip(table, weights, strict=True):
        total = None
        for index, weight in zip(row, row_weights, strict=True):
            product = flat[index] * float(weight)
            total = accum.apply(product) if total is None else accum.apply(total + product)
        outputs.append(total)
    return _written(layer, inputs[0], outputs)
