"""Lowering of the table-based layers: choose the tables (hls4ml.model.tables), emit grid and arrays."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.model.ir import Layer
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.tables import TableSpec, table_values
from hls4ml.model.types import FixedPrecisionType


def _emit(impl: LayerImpl, context: LoweringContext, layer: Layer, prefix: str, spec: TableSpec) -> str:
    """The grid constants, the index type and the table array of one table; returns the array name."""
    impl.statics += [
        ('int', f'{prefix}table_shift', str(spec.shift)),
        ('int', f'{prefix}table_start', str(spec.start)),
    ]
    table_var = f'{prefix}table' if prefix else 'table'
    impl.typedefs += [
        (f'{table_var}_t', context.type_name(layer, table_var)),
        (f'{prefix}index_t', spec.index_type.spelling(context.family)),
    ]
    name = f'{prefix or "t"}{"table" if prefix else ""}{context.index[layer.name]}'
    values = table_values(spec, context.family).to_double()
    impl.arrays.append(
        const_array(
            name,
            context.type_name(layer, table_var),
            values,
            spec.table_type,
            context.family,
            f'{layer.describe()}, {spec.function} table',
        )
    )
    return name


def _input_type(layer: Layer, context: LoweringContext) -> FixedPrecisionType:
    precision = context.graph.input_type(layer)
    assert isinstance(precision, FixedPrecisionType)
    return precision


def lower_table_activation(layer: Layer, context: LoweringContext, impl: LayerImpl, function: str) -> LayerImpl:
    (spec,) = layer_tables(layer, _input_type(layer, context)).values()
    impl.statics.append(('unsigned', 'table_size', str(spec.size)))
    impl.arguments.append(_emit(impl, context, layer, '', spec))
    return impl


def lower_softmax(layer: Layer, context: LoweringContext, impl: LayerImpl) -> LayerImpl:
    implementation = layer.attributes['implementation']
    impl.function = f'nnet::softmax_{implementation}'
    impl.statics.append(('unsigned', 'implementation', f'nnet::softmax_{implementation}_impl'))
    tables = layer_tables(layer, _input_type(layer, context))
    if layer.attributes.get('max_minus_x'):
        impl.statics.append(('bool', 'max_minus_x', 'true'))
    if tables:
        sizes = {spec.size for spec in tables.values()}  # the kernel has one size for both tables
        assert len(sizes) == 1, f'{layer.describe()}: tables of different sizes {sorted(sizes)}'
        impl.statics.append(('unsigned', 'table_size', str(sizes.pop())))
        impl.typedefs.append(('accum_t', context.type_name(layer, 'accum')))
    for prefix, spec in tables.items():
        impl.arguments.append(_emit(impl, context, layer, prefix, spec))
    return impl


def emit_tables(layer: Layer, context: LoweringContext, impl: LayerImpl, tables: dict[str, TableSpec]) -> None:
    """Each table of `layer_tables` as a kernel argument, with its grid constants and index type."""
    for prefix, spec in tables.items():
        impl.arguments.append(_emit(impl, context, layer, prefix, spec))
