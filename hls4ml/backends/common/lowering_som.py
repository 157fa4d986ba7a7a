"""Lowering of the SOM outputs that read a lookup array (docs/som.md): the exp table of 'activities'
and the unit coordinates of a hexagonal map's 'coordinates'; and the arrays of Implementation
'dense'. `lower_som` calls `lower_som_scores` (dense form) and `lower_som_lookup`; `folded_strategy`
is the Resource field of the distance form and of ReSOM."""

from __future__ import annotations

import numpy as np

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Layer
from hls4ml.model.reference.som import activity_table, score_biases, unit_coordinates
from hls4ml.model.types import FixedPrecisionType


def _set_output(impl: LayerImpl, value: str) -> None:
    impl.statics = [(kind, name, value if name == 'output' else old) for kind, name, old in impl.statics]


def _add_lookup(
    impl: LayerImpl, context: LoweringContext, layer: Layer, var: str, values: np.ndarray, precision: FixedPrecisionType
) -> None:
    name = f't{context.index[layer.name]}'
    where = f'{layer.describe()}, {var} lookup'
    impl.arrays.append(const_array(name, context.type_name(layer, var), values, precision, context.family, where))
    impl.arguments.append(name)


def _exact_doubles(biases: FixedArray, layer: Layer) -> np.ndarray:
    """The biases as doubles, refused unless every one is exact (the C++ arrays are written as doubles)."""
    values = biases.to_double()
    back = np.asarray(quantize(values, biases.type).raw, dtype=object)
    if not np.array_equal(back, np.asarray(biases.raw, dtype=object)):
        raise ValueError(
            f'{layer.describe()}: the score biases -|w_n|^2/2 of its codebook type are not exact doubles '
            "(53 bits); use a narrower codebook type or Implementation 'distance'"
        )
    return values


def folded_strategy(layer: Layer) -> list[tuple[str, str, str]]:
    """The config field of the Resource strategy of a SOM's distance stage or a ReSOM (distances and
    lateral products folded by the reuse factor, nnet_som.h som_fold). Latency writes nothing: the
    config struct's default, so Latency projects stay byte-identical."""
    if layer.attributes.get('strategy', 'latency') == 'resource':
        return [('unsigned', 'strategy', 'nnet::resource')]
    return []


def lower_som_scores(layer: Layer, context: LoweringContext, impl: LayerImpl) -> None:
    """The dense form's arguments: the codebook transposed to Dense's [n_in][n_units] layout (in
    codebook_t) and the exact biases -|w_n|^2/2 in their own type (bias_t, `score_biases`); the Dense
    strategy and the zero count the multiplier limit uses."""
    codebook_type = layer.types['codebook']
    assert isinstance(codebook_type, FixedPrecisionType)
    biases = score_biases(
        quantize(layer.weights['codebook'], codebook_type, context.family), layer.attributes['distance']
    )
    values = _exact_doubles(biases, layer)
    index, where = context.index[layer.name], layer.describe()
    transposed = layer.weights['codebook'].T
    weights = const_array(
        f'w{index}',
        context.type_name(layer, 'codebook'),
        transposed,
        codebook_type,
        context.family,
        f"{where}, weights 'codebook' (transposed)",
    )
    bias_type = biases.type.spelling(context.family)
    impl.arrays += [
        weights,
        const_array(f'b{index}', bias_type, values, biases.type, context.family, f'{where}, score biases'),
    ]
    impl.arguments += [weights.name, f'b{index}']
    impl.statics += [
        ('unsigned', 'strategy', f'nnet::{layer.attributes.get("strategy", "latency")}'),
        ('unsigned', 'n_zeros', str(weights.zeros)),
    ]
    impl.typedefs.append(('bias_t', bias_type))


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
