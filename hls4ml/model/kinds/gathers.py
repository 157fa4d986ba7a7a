"""Gathers: kinds whose every output value is read from input positions fixed at conversion, listed in
an index table the frontend computed (attribute 'index', flat channels-last positions). `Gather` copies
one value per output, or a zero where the index is n_in (tensor slicing: `x[:, 2:10:2]`, ONNX Slice;
zeros inserted in front of a transposed convolution); `Reduce` combines `n_reduce` values
per output by sum, max or min (torch `sum` / `amax`, Keras `ops.sum`, ONNX ReduceSum / ReduceMax; a mean
is a Reduce sum and a BatchNormalization by 1/n); `Interpolate` sums n values each times its constant
weight (linear and bilinear upsampling). Each kind is one block of `Gathers`."""

from __future__ import annotations

import math

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, RESULT_ONLY, KindRecord, weights_of
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import clamped, copy_input, default_width, fitted_type, input_fixed, is_auto
from hls4ml.model.reference.arrays import as_samples, greater_than, integer, select
from hls4ml.model.tables import take
from hls4ml.model.types import FixedPrecisionType

REDUCE_OPERATIONS = ('sum', 'max', 'min')


def gathered_shape(layer: Layer, inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The output shape the frontend computed (attribute out_shape), checked against the index table."""
    shape = tuple(int(size) for size in layer.attributes['out_shape'])
    index = layer.attributes['index']
    per_output = int(layer.attributes.get('n_reduce', 1))
    last = math.prod(inputs[0]) + (1 if layer.kind == Gathers.GATHER else 0)  # a gather's n_in writes a zero
    if len(index) != math.prod(shape) * per_output or not all(0 <= i < last for i in index):
        raise ValueError(f'{layer.describe()}: its index table does not fit {inputs[0]} -> {shape}')
    return shape


class Gathers:
    """The gather kinds (`Kind` inherits them)."""

    # ---- Gather: out[o] = in[index[o]], or 0 where index[o] = n_in (zero insertion) --------------------

    @staticmethod
    def _gather_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        x = as_samples(inputs[0])
        index = np.asarray(layer.attributes['index'], dtype=np.int64)
        result = layer.types['result']
        inside = index < x.shape[1]
        picked = take(x, (slice(None), np.where(inside, index, 0))).cast(result)
        return select(inside[np.newaxis, :], picked, integer(0, family).cast(result))

    GATHER = KindRecord(
        'Gather',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=gathered_shape,
        precision_rule=copy_input,
        reference=_gather_reference,
    )

    # ---- Reduce: out[o] = op(in[index[o * n + k]] for k < n), accumulated left to right in accum_t ----

    @staticmethod
    def _reduce_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """max and min keep the input type; a sum of n values grows by ceil(log2 n) integer bits (exact)."""
        source = input_fixed(graph, layer, context)
        if source is None:
            return
        accum = source
        if layer.attributes['op'] == 'sum':
            growth = math.ceil(math.log2(layer.attributes['n_reduce'])) if layer.attributes['n_reduce'] > 1 else 0
            accum = clamped(source.width + growth, source.integer + growth, source.signed, context)
        for var in ('accum', 'result'):
            if is_auto(layer.types[var]):
                layer.types[var] = accum

    @staticmethod
    def _reduce_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        x, count = as_samples(inputs[0]), layer.attributes['n_reduce']
        index = np.asarray(layer.attributes['index'], dtype=np.int64).reshape(-1, count)
        accum, operation = layer.types['accum'], layer.attributes['op']
        total = take(x, (slice(None), index[:, 0])).cast(accum)
        for k in range(1, count):
            value = take(x, (slice(None), index[:, k]))
            if operation == 'sum':
                total = (total + value).cast(accum)
            else:
                better = greater_than(value, total) if operation == 'max' else greater_than(total, value)
                total = select(better, value.cast(accum), total)
        return total.cast(layer.types['result'])

    REDUCE = KindRecord(
        'Reduce',
        types={'result': 'auto', 'accum': 'auto'},
        config_keys=COMMON_KEYS,
        output_shape=gathered_shape,
        precision_rule=_reduce_types,
        reference=_reduce_reference,
        choices={'op': REDUCE_OPERATIONS},
    )

    # ---- Interpolate: out[o] = sum_k weight[o * n + k] * in[index[o * n + k]] (linear, bilinear) --------

    @staticmethod
    def _interpolate_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Weights fitted to their values; the accumulator holds every product and their sum exactly."""
        if is_auto(layer.types['weight']):
            layer.types['weight'] = fitted_type(layer.weights['weight'], default_width(context))
        source, weight = input_fixed(graph, layer, context), layer.types['weight']
        if source is None or not isinstance(weight, FixedPrecisionType):
            return
        growth = math.ceil(math.log2(layer.attributes['n_reduce'])) if layer.attributes['n_reduce'] > 1 else 0
        width, integer = source.width + weight.width + growth, source.integer + weight.integer + growth
        accum = clamped(width, integer, source.signed or weight.signed, context)
        for var in ('accum', 'result'):
            if is_auto(layer.types[var]):
                layer.types[var] = accum

    @staticmethod
    def _interpolate_weights(layer: Layer) -> dict[str, tuple[int, ...]]:
        return {'weight': (len(layer.attributes['index']),)}

    @staticmethod
    def _interpolate_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        x, count = as_samples(inputs[0]), layer.attributes['n_reduce']
        index = np.asarray(layer.attributes['index'], dtype=np.int64).reshape(-1, count)
        weight = weights_of(layer, 'weight', 'weight', family)
        columns = take(weight, np.arange(weight.raw.size).reshape(-1, count))  # (n_out, n)
        accum = layer.types['accum']
        total = None
        for k in range(count):
            product = take(columns, (slice(None), k)) * take(x, (slice(None), index[:, k]))
            total = product.cast(accum) if total is None else (total + product).cast(accum)
        assert total is not None
        return total.cast(layer.types['result'])

    INTERPOLATE = KindRecord(
        'Interpolate',
        types={'result': 'auto', 'accum': 'auto', 'weight': 'auto'},
        config_keys=COMMON_KEYS,
        output_shape=gathered_shape,
        precision_rule=_interpolate_types,
        reference=_interpolate_reference,
        weights=('weight',),
        weight_shapes=_interpolate_weights,
    )
