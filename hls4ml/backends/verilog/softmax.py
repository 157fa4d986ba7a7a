"""Softmax ('stable' and 'latency') as logic and ROMs, step by step as `nnet::softmax_stable` computes it.

Per row: the maximum (comparators), the differences x_i - max (or max - x_i for HGQ2's tables), each
read from the exp table, the sum written into accum_t in index order (`products.accumulated`), the sum
read from the reciprocal table, and each e_i times that reciprocal written into the result type. A table
read is a write into the table's index type (TRN, SAT) and a ROM over the index values whose entries
are the table's own entries at the clamped slots (`TableSpec.lookup`), so the RTL reads what the C++ reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import quantizer
from hls4ml.backends.verilog.products import accumulated
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.activations import softmax_row
from hls4ml.model.kinds.record import fixed_input_type
from hls4ml.model.tables import TableSpec

IMPLEMENTATIONS = ('stable', 'latency', 'argmax')  # argmax: selection.trace_softmax_argmax


def check_softmax(layer: Layer, graph: Graph) -> list[str]:
    implementation = layer.attributes['implementation']
    if implementation in IMPLEMENTATIONS:
        return []
    return [f"{layer.describe()}: softmax implementation '{implementation}' has no Verilog logic (use 'stable')"]


def is_argmax(layer: Layer) -> bool:
    return layer.attributes['implementation'] == 'argmax'


def table_read(value: Any, spec: TableSpec, where: str) -> Any:
    """`spec`'s entry for `value`, exactly as the C++ indexes the table (index type, then clamped slot)."""
    index = quantizer(spec.index_type, f'{where} table index type').apply(_as_array(value))
    variable = np.asarray(index._vars).ravel()[0]
    count = int(round((variable.high - variable.low) / variable.step)) + 1 if variable.high != variable.low else 1
    grid = (
        float(variable.low) + float(variable.step) * np.arange(count) if count > 1 else np.array([float(variable.low)])
    )
    entries = spec.lookup(quantize(grid, spec.index_type, 'ap')).to_double()
    if count == 1:
        return type(variable).from_const(float(entries[0]), hwconf=variable.hwconf)
    return variable.lookup(entries)


def _as_array(value: Any) -> Any:
    from da4ml.trace import FixedVariableArray

    return FixedVariableArray(np.array([value], dtype=object), hwconf=value.hwconf)


def trace_softmax(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    rule = Kind.SOFTMAX.tables
    assert rule is not None
    tables = rule(layer, fixed_input_type(graph, layer))
    where = layer.describe()
    accum = quantizer(layer.types['accum'], f'{where} accum type')
    result = quantizer(layer.types['result'], f'{where} result type')
    rows = np.asarray(inputs[0]._vars).ravel().reshape(-1, softmax_row(layer))
    outputs = []
    for row in rows:
        exponentials = [table_read(difference, tables['exp_'], where) for difference in _differences(layer, row)]
        ones = np.ones((len(row), 1))
        summed = accumulated(_row_array(inputs[0], exponentials), ones, np.zeros(1), accum)
        inverse = table_read(np.asarray(summed._vars).ravel()[0], tables['inv_'], where)
        outputs += [value * inverse for value in exponentials]
    like = inputs[0]
    return result.apply(type(like)(np.array(outputs, dtype=object), like.solver_options, hwconf=like.hwconf))


def _differences(layer: Layer, row: np.ndarray) -> list[Any]:
    if layer.attributes['implementation'] == 'latency':
        return list(row)
    maximum = row[0]
    for value in row[1:]:
        maximum = maximum.max_of(value)
    if layer.attributes.get('max_minus_x'):
        return [maximum - value for value in row]
    return [value - maximum for value in row]


def _row_array(like: Any, values: list[Any]) -> Any:
    return type(like)(np.array([values], dtype=object), like.solver_options, hwconf=like.hwconf)
