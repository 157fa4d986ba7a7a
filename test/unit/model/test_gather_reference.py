"""The references of Gather and Reduce (`hls4ml/model/kinds/gathers.py`) against numpy, and their
precision rule: a sum of n values grows by ceil(log2 n) integer bits and stays exact."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.pass_context import PassContext
from hls4ml.model.types import FixedPrecisionType, parse_precision

T8 = 'fixed<8,3>'


def layer(kind, **attributes) -> tuple[Graph, Layer]:
    graph = Graph()
    source = Layer('x', Kind.INPUT, [], ['x'], {'shape': (6,)}, {}, {'result': parse_precision(T8)})
    graph.add_layer(source, [(6,)])
    made = Layer('g', kind, ['x'], ['g'], attributes, {}, {})
    graph.add_layer(made, [Kind.GATHER.output_shape(made, [(6,)])])
    for var, default in kind.type_defaults.items():
        made.types.setdefault(var, parse_precision(default))
    return graph, made


def run(graph: Graph, made: Layer, x: np.ndarray):
    """The precision rule, then the reference on `x` written into fixed<8,3>."""
    kind = Kind.REDUCE if made.kind == Kind.REDUCE else Kind.GATHER
    kind.precision_rule(graph, made, PassContext(FixedPrecisionType(16, 6)))
    return kind.reference(made, [quantize(x, T8)], graph, 'ap')


def test_gather_reads_the_indexed_values_in_the_input_type() -> None:
    graph, gather = layer(Kind.GATHER, index=[5, 0, 2, 2], out_shape=(4,))
    x = np.random.default_rng(1).uniform(-4, 4, (10, 6))
    result = run(graph, gather, x)
    assert gather.types['result'] == FixedPrecisionType(8, 3, True)
    assert np.array_equal(result.to_double(), quantize(x, T8).to_double()[:, [5, 0, 2, 2]])


def test_gather_writes_a_zero_where_the_index_is_n_in() -> None:
    graph, gather = layer(Kind.GATHER, index=[6, 1, 6, 0], out_shape=(4,))
    x = np.random.default_rng(4).uniform(-4, 4, (5, 6))
    values = quantize(x, T8).to_double()
    expected = np.stack([np.zeros(5), values[:, 1], np.zeros(5), values[:, 0]], axis=1)
    assert np.array_equal(run(graph, gather, x).to_double(), expected)


@pytest.mark.parametrize(('op', 'function'), [('sum', np.sum), ('max', np.max), ('min', np.min)])
def test_reduce_folds_each_group_exactly(op: str, function) -> None:
    index = [0, 3, 1, 4, 2, 5]  # two outputs of three values
    graph, reduce = layer(Kind.REDUCE, index=index, out_shape=(2,), n_reduce=3, op=op)
    x = np.random.default_rng(2).uniform(-4, 4, (20, 6))
    result = run(graph, reduce, x).to_double()
    values = quantize(x, T8).to_double()[:, index].reshape(20, 2, 3)
    assert np.array_equal(result, function(values, axis=2))


def test_a_sum_of_three_gains_two_integer_bits_and_max_keeps_the_input_type() -> None:
    graph, total = layer(Kind.REDUCE, index=list(range(6)), out_shape=(2,), n_reduce=3, op='sum')
    run(graph, total, np.zeros((1, 6)))
    assert total.types['accum'] == FixedPrecisionType(10, 5, True) == total.types['result']
    graph, largest = layer(Kind.REDUCE, index=list(range(6)), out_shape=(2,), n_reduce=3, op='max')
    run(graph, largest, np.zeros((1, 6)))
    assert largest.types['result'] == FixedPrecisionType(8, 3, True)


def test_an_index_table_that_does_not_fit_is_an_error() -> None:
    with pytest.raises(ValueError, match='index table does not fit'):
        layer(Kind.GATHER, index=[0, 7], out_shape=(2,))
    with pytest.raises(ValueError, match='index table does not fit'):
        layer(Kind.REDUCE, index=[0, 1, 2], out_shape=(2,), n_reduce=2, op='sum')


def test_interpolate_sums_the_weighted_values_exactly() -> None:
    graph = Graph()
    source = Layer('x', Kind.INPUT, [], ['x'], {'shape': (3,)}, {}, {'result': parse_precision(T8)})
    graph.add_layer(source, [(3,)])
    weights = {'weight': np.array([0.75, 0.25, 0.5, 0.5, 1.0, 0.0])}
    attributes = {'index': [0, 1, 1, 2, 2, 2], 'out_shape': (3,), 'n_reduce': 2}
    made = Layer('i', Kind.INTERPOLATE, ['x'], ['i'], attributes, weights, {})
    graph.add_layer(made, [(3,)])
    made.types.update({var: parse_precision(default) for var, default in Kind.INTERPOLATE.type_defaults.items()})
    Kind.INTERPOLATE.precision_rule(graph, made, PassContext(FixedPrecisionType(16, 6)))
    x = np.random.default_rng(5).uniform(-4, 4, (10, 3))
    values = quantize(x, T8).to_double()
    expected = np.stack([0.75 * values[:, 0] + 0.25 * values[:, 1], (values[:, 1] + values[:, 2]) / 2, values[:, 2]], 1)
    result = Kind.INTERPOLATE.reference(made, [quantize(x, T8)], graph, 'ap')
    assert np.array_equal(result.to_double(), expected)  # the weights are exact, the accumulator too
