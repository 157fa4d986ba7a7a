"""Lowering of the SOM outputs that read a lookup array (docs/som.md): the exp table of 'activities'
and the unit coordinates of a hexagonal map's 'coordinates'. `lower_som` calls `lower_som_lookup`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Layer
from hls4ml.model.reference.som import activity_table, unit_coordinates
from hls4ml.model.types import FixedPrecisionType

if TYPE_CHECKING:
    from hls4ml.backends.common.lowering import LoweringContext


def _set_output(impl: LayerImpl, value: str) -> None:
    impl.statics = [(kind, name, value if name == 'output' else old) for kind, name, old in impl.statics]


def _add_lookup(
    impl: LayerImpl, context: LoweringContext, layer: Layer, var: str, values: np.ndarray, precision: FixedPrecisionType
) -> None:
    name = f't{context.index[layer.name]}'
    where = f'{layer.describe()}, {var} lookup'
    impl.arrays.append(const_array(name, context.type_name(layer, var), values, precision, context.family, where))
    impl.arguments.append(name)


def lower_som_lookup(layer: Layer, context: LoweringContext, impl: LayerImpl) -> LayerImpl:
    """Adds the lookup array (and its constants) for outputs 'activities' and hexagonal 'coordinates'."""
    attributes, types = layer.attributes, layer.types
    if attributes['output'] == 'activities':
        table = activity_table(attributes, types['accum'], types['table'], context.family)
        roots = table.root_type or FixedPrecisionType(1, 1, False)  # declared always, read by squared_euclidean
        impl.statics += [('unsigned', 'table_size', str(table.size)), ('int', 'table_shift', str(table.shift))]
        impl.typedefs += [
            ('table_t', context.type_name(layer, 'table')),
            ('index_t', table.index_type.spelling(context.family)),
            ('root_t', roots.spelling(context.family)),
        ]
        _add_lookup(impl, context, layer, 'table', table.values.to_double(), table.values.type)
    elif attributes['output'] == 'coordinates' and attributes.get('topology', 'rectangular') == 'hexagonal':
        result = types['result']
        assert isinstance(result, FixedPrecisionType)
        values = quantize(unit_coordinates(attributes['grid'], 'hexagonal'), result, context.family).to_double()
        _set_output(impl, 'nnet::som_unit_coordinates')
        _add_lookup(impl, context, layer, 'result', values.reshape(-1), result)
    return impl
