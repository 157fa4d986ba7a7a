"""Lowering of the M-map ReSOM (`ReSOMMaps`, docs/resom.md): the config struct with each map's sizes and
table grid, the codebooks in one array (map 0 first), the block matrix of the pair matrices, the labels
and the activity tables (one per map, in one array)."""

from __future__ import annotations

import numpy as np

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_resom import association_statics
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.resom_maps import block_matrix, layer_setup, offsets, pairs
from hls4ml.model.types import FixedPrecisionType

TYPED = ('accum', 'codebook', 'lateral', 'lateral_accum', 'activity', 'label')


def _array(impl: LayerImpl, context: LoweringContext, layer: Layer, name: str, values: np.ndarray, var: str) -> str:
    precision = layer.types[var]
    assert isinstance(precision, FixedPrecisionType)
    array_name = f'{name}{context.index[layer.name]}'
    where = f"{layer.describe()}, weights '{name}'"
    impl.arrays.append(const_array(array_name, context.type_name(layer, var), values, precision, context.family, where))
    return array_name


def _map_statics(impl: LayerImpl, context: LoweringContext, layer: Layer, tables: list) -> None:
    """Per map m: n_in_m, n_units_m, unit_offset_m, codebook_offset_m, table_shift_m and its table types."""
    attributes = layer.attributes
    units, widths = attributes['map_units'], attributes['map_inputs']
    codebook_offsets = offsets(tuple(n * width for n, width in zip(units, widths, strict=True)))
    for m, table in enumerate(tables):
        roots = table.root_type or FixedPrecisionType(1, 1, False)  # declared, unused without square roots
        impl.statics += [
            ('unsigned', f'n_in_{m}', str(widths[m])),
            ('unsigned', f'n_units_{m}', str(units[m])),
            ('unsigned', f'unit_offset_{m}', str(offsets(units)[m])),
            ('unsigned', f'codebook_offset_{m}', str(codebook_offsets[m])),
            ('int', f'table_shift_{m}', str(table.shift)),
        ]
        impl.typedefs += [
            (f'table_{m}_index_t', table.index_type.spelling(context.family)),
            (f'root_{m}_t', roots.spelling(context.family)),
        ]


@lowering(Kind.RESOM_MAPS, stream='nnet_resom_maps_stream.h')
def lower_resom_maps(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_resom_maps.h', 'nnet::resom_maps_config', 'nnet::resom_maps')
    attributes = layer.attributes
    units, n_maps = tuple(attributes['map_units']), len(attributes['map_units'])
    types, tables = layer_setup(layer, context.family)
    inputs = impl.arguments[:n_maps]
    impl.template_args = [*impl.template_args[n_maps:], *impl.template_args[:n_maps]]  # result, config, inputs
    impl.arguments = [impl.arguments[n_maps]]
    codebook_size = sum(n * width for n, width in zip(units, attributes['map_inputs'], strict=True))
    impl.statics += [
        ('unsigned', 'n_maps', str(n_maps)),
        ('unsigned', 'n_units', str(sum(units))),
        ('unsigned', 'n_codebook', str(codebook_size)),
        *association_statics(layer, context, types.activity, tables[0].size),
    ]
    _map_statics(impl, context, layer, tables)
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in TYPED]
    impl.typedefs.append(('remainder_t', types.remainder.spelling(context.family)))
    codebooks = np.concatenate([np.ravel(layer.weights[f'codebook_{m}']) for m in range(n_maps)])
    matrix = block_matrix({(i, j): layer.weights[f'lateral_{i}_{j}'] for i, j in pairs(n_maps)}, units)
    labels = layer.weights.get('labels', np.zeros(sum(units)))
    activity_tables = np.concatenate([table.values.to_double() for table in tables])
    impl.arguments += [
        _array(impl, context, layer, 'wm', codebooks, 'codebook'),
        _array(impl, context, layer, 'hm', matrix, 'lateral'),
        _array(impl, context, layer, 'lm', labels, 'label'),
        _array(impl, context, layer, 'am', activity_tables, 'activity'),
        *inputs,
    ]
    return impl
