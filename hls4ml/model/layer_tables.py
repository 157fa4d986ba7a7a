"""Which lookup tables a layer uses, chosen from its types (shared by the lowering and the interpreter)."""

from __future__ import annotations

from hls4ml.model.ir import Layer
from hls4ml.model.kinds import ROUTERS, Kind
from hls4ml.model.tables import TableSpec, activation_table, explicit_table, softmax_tables
from hls4ml.model.types import FixedPrecisionType


def layer_tables(layer: Layer, input_type: FixedPrecisionType) -> dict[str, TableSpec]:
    """The tables of a layer, keyed by their config-struct prefix ('' for one-table activations)."""
    size = layer.attributes.get('table_size', 1024)
    if layer.kind == Kind.UNARY_LUT or 'exp_table' in layer.weights:
        return explicit_tables(layer)
    if layer.kind == Kind.SOFTMAX:
        implementation = layer.attributes['implementation']
        if implementation == 'argmax':
            return {}
        exp_spec, inv_spec = softmax_tables(
            input_type,
            layer.types['exp_table'],
            layer.types['inv_table'],
            layer.types['accum'],
            layer.attributes['n_in'],
            size,
            implementation,
        )
        return {'exp_': exp_spec, 'inv_': inv_spec}
    if layer.kind in ROUTERS:  # stable softmax over k kept (renormalize) or n_in logits
        attributes = layer.attributes
        exp_spec, inv_spec = softmax_tables(
            input_type,
            layer.types['exp_table'],
            layer.types['inv_table'],
            layer.types['accum'],
            attributes['k'] if attributes.get('renormalize') else attributes['n_in'],
            size,
            'stable',
        )
        return {'exp_': exp_spec, 'inv_': inv_spec}
    return {'': activation_table(layer.attributes['activation'], input_type, layer.types['table'], size)}


def explicit_tables(layer: Layer) -> dict[str, TableSpec]:
    """The tables a frontend computed itself (HGQ2): weights '<prefix>table' with the grid attributes
    '<prefix>table_start', '<prefix>table_shift' and optionally '<prefix>table_index' (the index type);
    a UnaryLUT has one table (prefix ''), a softmax two."""
    prefixes = ('',) if layer.kind == Kind.UNARY_LUT else ('exp_', 'inv_')
    if layer.kind == Kind.SOFTMAX and layer.attributes.get('implementation', 'stable') != 'stable':
        raise ValueError(
            f"{layer.describe()}: its tables were computed for the 'stable' implementation, "
            f"not {layer.attributes['implementation']!r}; remove 'Implementation' from its config"
        )
    return {
        prefix: explicit_table(
            f'{layer.name} {prefix}table',
            layer.attributes[f'{prefix}table_start'],
            layer.attributes[f'{prefix}table_shift'],
            layer.weights[f'{prefix}table'],
            layer.types[f'{prefix}table'],
            layer.attributes.get(f'{prefix}table_index'),
        )
        for prefix in prefixes
    }
