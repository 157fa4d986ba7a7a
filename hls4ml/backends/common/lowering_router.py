"""Lowering of the routers added after the top-k work's first two (docs/moe.md): the sparse-soft-top-k
router (`nnet_router_soft.h`). One config struct carries the soft top-k mask's part (its internal types,
l and its constants, the polish's reciprocal table, as `lower_soft_topk` prints them for SoftTopK) and the
router's part (k_max, the keys, the normalisation, the three lookup tables)."""

from __future__ import annotations

import math

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import emit_tables
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.soft_router import (
    layer_soft_router_settings,
    mask_key_types,
    soft_expert_choice_types,
    soft_router_tables,
)
from hls4ml.model.reference.soft_topk import SoftTopKTypes, soft_topk_constants, soft_topk_reciprocals
from hls4ml.model.types import FixedPrecisionType

SOFT_TOPK_ALIASES = {
    'keys': 'abs_t',
    'threshold': 'threshold_t',
    'sum': 'sum_t',
    'param': 'param_t',
    'recip': 'recip_t',
}


def _input_type(layer: Layer, context: LoweringContext) -> FixedPrecisionType:
    precision = context.graph.input_type(layer)
    assert isinstance(precision, FixedPrecisionType)
    return precision


def soft_topk_part(
    layer: Layer, context: LoweringContext, impl: LayerImpl, sizes: tuple[int, int], mode: str, types: SoftTopKTypes
) -> None:
    """The soft top-k fields of a config struct, as `nnet::soft_topk` reads them: (n, k) = `sizes`, the mode,
    the iterations, the firmware's l (`types.strength`) and its constants, the internal types, and the
    polish's reciprocal table as the layer's next argument. Shared by SoftTopK and the soft routers."""
    n_values, k = sizes
    impl.statics += [
        ('unsigned', 'k', str(k)),
        ('unsigned', 'mode', f'nnet::soft_topk_{mode}'),
        ('unsigned', 'iterations', str(layer.attributes['iterations'])),
        ('bool', 'magnitude', 'false'),
        ('unsigned', 'recip_size', str((n_values + 1) * (k + 1))),
    ]
    impl.statics += [
        ('constexpr double', name, repr(value)) for name, value in soft_topk_constants(k, types.strength).items()
    ]
    aliases = {**SOFT_TOPK_ALIASES, **({'magnitude': 'magnitude_t'} if mode == 'magnitude' else {})}
    for alias, typedef in aliases.items():
        precision: FixedPrecisionType = getattr(types, alias)
        impl.typedefs.append((typedef, precision.spelling(context.family)))
    name = f'r{context.index[layer.name]}'
    values = soft_topk_reciprocals(n_values, k, types.strength, mode)
    where = f'{layer.describe()}, reciprocal table'
    impl.arrays.append(
        const_array(name, types.recip.spelling(context.family), values, types.recip, context.family, where)
    )
    impl.arguments.append(name)


def soft_expert_mask_part(layer: Layer, context: LoweringContext, impl: LayerImpl) -> None:
    """Soft expert choice: the soft top-k of every expert's column (n_tokens probabilities, k = capacity),
    its types from `soft_expert_choice_types` of the result type."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    n_tokens, capacity = attributes['n_tokens'], attributes['capacity']
    mask, types = soft_expert_choice_types(result, n_tokens, capacity, attributes['l'], attributes['iterations'])
    soft_topk_part(layer, context, impl, (n_tokens, capacity), 'mask', types)
    impl.typedefs.append(('mask_t', mask.spelling(context.family)))


@lowering(Kind.SOFT_TOPK_ROUTER, stream='nnet_router_soft_stream.h')
def lower_soft_router(layer: Layer, context: LoweringContext) -> LayerImpl:
    """One token's n_in logits per row (n_rows rows when the logits are (tokens, n_in)); the exp,
    reciprocal and renormalisation tables, then the mask's reciprocal table (the kernel's argument order)."""
    impl = context.start(layer, 'nnet_router_soft.h', 'nnet::soft_router_config', 'nnet::soft_router')
    attributes = layer.attributes
    source = _input_type(layer, context)
    settings = layer_soft_router_settings(layer, source)
    shape = context.graph.tensors[layer.outputs[0]].shape
    impl.statics[-1] = ('unsigned', 'n_in', str(attributes['n_in']))  # one token's logits
    impl.statics += [
        ('unsigned', 'k_max', str(attributes['k_max'])),
        ('unsigned', 'n_out', str(shape[-1])),
        ('unsigned', 'n_rows', str(math.prod(shape[:-1]))),
        ('unsigned', 'mask_on', f'nnet::soft_router_{attributes["mask_on"]}'),
        ('bool', 'renormalize', 'true' if attributes['renormalize'] else 'false'),
        ('unsigned', 'output', f'nnet::soft_router_{attributes["output"]}'),
        ('unsigned', 'table_size', str(settings.exp_spec.size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    for var, typedef in (('accum', 'accum_t'), ('mask', 'mask_t'), ('probability', 'prob_t'), ('weight', 'weight_t')):
        impl.typedefs.append((typedef, context.type_name(layer, var)))
    emit_tables(layer, context, impl, soft_router_tables(layer, source))
    sizes = (attributes['n_in'], attributes['k'])
    soft_topk_part(layer, context, impl, sizes, 'mask', mask_key_types(settings, source, attributes['n_in']))
    return impl
