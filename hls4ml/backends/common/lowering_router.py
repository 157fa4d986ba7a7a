"""Lowering of the routers added after the top-k work's first two (docs/moe.md): the sparse-soft-top-k
router (`nnet_router_soft.h`). One config struct carries the soft top-k mask's part (its internal types,
l and its constants, the polish's reciprocal table, as `lower_soft_topk` prints them for SoftTopK) and the
router's part (k_max, the keys, the normalisation, the three lookup tables). With p = 4/3 the mask's part is
the cubic kernel's (`soft_topk_cubic_part`, as `lower_soft_topk` prints it) and the functions are the
`_cubic` ones, which take no reciprocal table; p = 2 prints what it printed before p = 4/3 existed."""

from __future__ import annotations

import math

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import emit_tables
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.soft_router import (
    MaskTypes,
    is_cubic,
    layer_soft_router_settings,
    mask_key_types,
    soft_expert_choice_types,
    soft_router_tables,
)
from hls4ml.model.reference.soft_topk import SoftTopKTypes, soft_topk_constants, soft_topk_reciprocals
from hls4ml.model.reference.soft_topk_cubic import CubicTypes, soft_topk_cubic_constants
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


# the cubic kernel's internal types (soft_topk_cubic.py's CubicTypes fields) and their typedef names
CUBIC_ALIASES = {
    'keys': 'abs_t',
    'threshold': 'threshold_t',
    'param': 'param_t',
    'ramp': 'ramp_t',
    'cube': 'cube_t',
    'sum': 'sum_t',
}


def soft_topk_cubic_part(
    layer: Layer,
    context: LoweringContext,
    impl: LayerImpl,
    k: int,
    types: CubicTypes,
    extra: tuple[tuple[str, str, str], ...] = (),
) -> None:
    """The fields `nnet::soft_topk_cubic` reads (p = 4/3): k, the iterations, then the `extra` statics of
    the caller, 1 / l as a double (the kernel rounds it into param_t) and the internal types; no table.
    Shared by SoftTopK and the soft routers."""
    impl.statics += [
        ('unsigned', 'k', str(k)),
        ('unsigned', 'iterations', str(layer.attributes['iterations'])),
        ('bool', 'magnitude', 'false'),
        *extra,
    ]
    constants = soft_topk_cubic_constants(layer.attributes['l'])
    impl.statics += [('constexpr double', name, repr(value)) for name, value in constants.items()]
    for alias, typedef in CUBIC_ALIASES.items():
        precision: FixedPrecisionType = getattr(types, alias)
        impl.typedefs.append((typedef, precision.spelling(context.family)))


def soft_mask_part(
    layer: Layer, context: LoweringContext, impl: LayerImpl, sizes: tuple[int, int], types: MaskTypes
) -> None:
    """The mask's fields by its kernel: the cubic one's for p = 4/3, `soft_topk_part`'s (mode mask) for p = 2."""
    if isinstance(types, CubicTypes):
        soft_topk_cubic_part(layer, context, impl, sizes[1], types)
    else:
        soft_topk_part(layer, context, impl, sizes, 'mask', types)


def soft_function(layer: Layer, function: str) -> str:
    """The kernel's name: `function` for p = 2, its `_cubic` twin (no reciprocal table) for p = 4/3."""
    return f'{function}_cubic' if is_cubic(layer.attributes.get('p', 2.0)) else function


def soft_expert_mask_part(layer: Layer, context: LoweringContext, impl: LayerImpl) -> None:
    """Soft expert choice: the soft top-k of every expert's column (n_tokens probabilities, k = capacity),
    its types from `soft_expert_choice_types` of the result type."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    n_tokens, capacity = attributes['n_tokens'], attributes['capacity']
    strength, iterations, p = attributes['l'], attributes['iterations'], attributes.get('p', 2.0)
    mask, types = soft_expert_choice_types(result, n_tokens, capacity, strength, iterations, p)
    soft_mask_part(layer, context, impl, (n_tokens, capacity), types)
    impl.typedefs.append(('mask_t', mask.spelling(context.family)))


@lowering(Kind.SOFT_TOPK_ROUTER, stream='nnet_router_soft_stream.h')
def lower_soft_router(layer: Layer, context: LoweringContext) -> LayerImpl:
    """One token's n_in logits per row (n_rows rows when the logits are (tokens, n_in)); the exp,
    reciprocal and renormalisation tables, then the mask's reciprocal table (the kernel's argument order)."""
    function = soft_function(layer, 'nnet::soft_router')
    impl = context.start(layer, 'nnet_router_soft.h', 'nnet::soft_router_config', function)
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
    soft_mask_part(layer, context, impl, sizes, mask_key_types(settings, source, attributes['n_in']))
    return impl
