"""Lowering of the ReSOM layer (docs/resom.md): config struct, both codebooks, the lateral matrix, the
labels and the two activity tables as constant arrays."""

from __future__ import annotations

import numpy as np

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_som import folded_strategy
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.resom import layer_setup
from hls4ml.model.types import FixedPrecisionType

TYPED = ('accum_x', 'accum_y', 'codebook_x', 'codebook_y', 'lateral', 'lateral_accum', 'activity', 'label')


def _array(impl: LayerImpl, context: LoweringContext, layer: Layer, name: str, values: np.ndarray, var: str) -> str:
    precision = layer.types[var]
    assert isinstance(precision, FixedPrecisionType)
    where = f"{layer.describe()}, weights '{name}'"
    array_name = f'{name}{context.index[layer.name]}'
    impl.arrays.append(const_array(array_name, context.type_name(layer, var), values, precision, context.family, where))
    return array_name


def association_statics(
    layer: Layer, context: LoweringContext, activity: FixedPrecisionType, table_size: int
) -> list[tuple[str, str, str]]:
    """The config fields every ReSOM (two maps or M) prints alike: the output size, the distance, the
    association's source, combination, rounds and output, the activities' fraction bits, the table size,
    the IO type, the reuse factor and the Resource strategy."""
    attributes = layer.attributes
    return [
        ('unsigned', 'n_out', str(context.graph.tensors[layer.outputs[0]].size)),
        ('unsigned', 'distance', f'nnet::som_{attributes["distance"]}'),
        ('unsigned', 'source', f'nnet::resom_{attributes["source"]}'),
        ('unsigned', 'combine', f'nnet::resom_{attributes["combine"]}'),
        ('unsigned', 'iterations', str(attributes['iterations'])),
        ('unsigned', 'output', f'nnet::resom_{attributes["output"]}'),
        ('unsigned', 'activity_fraction', str(activity.fractional)),
        ('unsigned', 'table_size', str(table_size)),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'reuse_factor', str(attributes.get('reuse_factor', 1))),
        *folded_strategy(layer),
    ]


@lowering(Kind.RESOM, stream='nnet_resom_stream.h')
def lower_resom(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_resom.h', 'nnet::resom_config', 'nnet::resom')
    attributes = layer.attributes
    types, tables = layer_setup(layer, context.family)
    impl.statics += [
        ('unsigned', 'n_in_y', str(attributes['n_in_y'])),
        ('unsigned', 'n_units_x', str(attributes['n_units_x'])),
        ('unsigned', 'n_units_y', str(attributes['n_units_y'])),
        *association_statics(layer, context, types.activity, tables[0].size),
    ]
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in TYPED]
    impl.typedefs.append(('remainder_t', types.remainder.spelling(context.family)))
    for side, table in zip(('x', 'y'), tables, strict=True):
        roots = table.root_type or FixedPrecisionType(1, 1, False)  # declared, unused without square roots
        impl.statics.append(('int', f'table_{side}_shift', str(table.shift)))
        impl.typedefs += [
            (f'table_{side}_index_t', table.index_type.spelling(context.family)),
            (f'root_{side}_t', roots.spelling(context.family)),
        ]
    labels = layer.weights.get('labels', np.zeros(attributes['n_units_x'] + attributes['n_units_y']))
    impl.arguments += [
        _array(impl, context, layer, 'wx', layer.weights['codebook_x'], 'codebook_x'),
        _array(impl, context, layer, 'wy', layer.weights['codebook_y'], 'codebook_y'),
        _array(impl, context, layer, 'h', layer.weights['lateral'], 'lateral'),
        _array(impl, context, layer, 'l', labels, 'label'),
    ]
    for side, table in zip(('x', 'y'), tables, strict=True):
        impl.arguments.append(_array(impl, context, layer, f'a{side}', table.values.to_double(), 'activity'))
    return impl
