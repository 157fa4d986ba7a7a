"""Reduce, Interpolate (`hls4ml/model/kinds/gathers.py`) and Embedding: constant index tables, then
arithmetic in accum_t in the reference's order. (Gather itself is a move: `layers.trace_move`.)

Reduce: total = x[index_0] written into accum_t; then for each next value, sum: total + x written into
accum_t; max (min): x written into accum_t where x is strictly larger (smaller) than total, a comparator
and a multiplexer; then the write into the result type. Interpolate: total = w_0 x_0 into accum_t, then
total + w_k x_k into accum_t for each next k (a constant product each), then the result type.
Embedding: per index and table column a ROM over the values the index can take, filled with the
reference kernel's outputs for those values (so an index outside the vocabulary reads zeros as in C++).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.backends.verilog.selection import constant
from hls4ml.backends.verilog.tables import rom_address_problems
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS
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


# ---- Embedding: each index reads its row of the table (ROMs filled by the reference kernel) ------------


def check_embedding(layer: Layer, graph: Graph) -> list[str]:
    return rom_address_problems(layer, graph, 'index', 'the index input')


def trace_embedding(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    """One ROM per table column over the values each index can take; the entries are the reference's
    outputs for those values (a row, or zeros for an index outside the vocabulary)."""
    n_dim = layer.attributes['n_dim']
    source = graph.input_type(layer)
    outputs = []
    for index in np.asarray(inputs[0]._vars).ravel():
        count = int(round((index.high - index.low) / index.step)) + 1 if index.high != index.low else 1
        grid = float(index.low) + float(index.step) * np.arange(count)
        reference = LAYER_KINDS[layer.kind].reference
        assert reference is not None
        rows = reference(layer, [quantize(grid.reshape(-1, 1), source, 'ap')], graph, 'ap').to_double()
        for column in rows.reshape(count, n_dim).T:
            outputs.append(constant(index, column[0]) if count == 1 else index.lookup(column))
    return _written(layer, inputs[0], outputs)
