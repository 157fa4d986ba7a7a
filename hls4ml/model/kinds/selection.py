"""Selection: hard top-k, sparse soft top-k and the mixture-of-experts routers (docs/topk.md,
docs/moe.md). Each kind is one block of `Selection`: its rules, its reference kernel, its record."""

from __future__ import annotations

import math

from hls4ml.model import reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.activations import DEFAULT_SOFTMAX_PRECISION
from hls4ml.model.kinds.record import COMMON_KEYS, RESULT_ONLY, KindRecord, fixed_input_type
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import copy_input, input_fixed, is_auto, keep_config, unsigned_integer
from hls4ml.model.reference.sinkhorn import DEFAULT_PLAN_BITS
from hls4ml.model.reference.soft_router import (
    SOFT_ROUTER_MASK_ON,
    SOFT_ROUTER_OUTPUTS,
    check_soft_router,
    layer_soft_router_settings,
    soft_expert_choice_types,
    soft_router_tables,
)
from hls4ml.model.reference.soft_topk import SOFT_TOPK_MODES, layer_soft_topk_types, soft_topk_power
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER, layer_soft_topk_cubic_types, soft_topk_cubic
from hls4ml.model.tables import TableSpec, softmax_tables
from hls4ml.model.types import FixedPrecisionType, parse_precision

# hard top-k: what the one output tensor holds (docs/topk.md); 'masked' is x where selected, 0 elsewhere
TOPK_OUTPUTS = ('values', 'indices', 'mask', 'masked')
# token-choice MoE router (docs/moe.md): dense gates (n_in, 0 where not routed), the k gates, their experts
ROUTER_OUTPUTS = ('gates', 'weights', 'indices')
ROUTER_TYPES = {
    'result': 'auto',
    'exp_table': DEFAULT_SOFTMAX_PRECISION,
    'inv_table': DEFAULT_SOFTMAX_PRECISION,
    'accum': DEFAULT_SOFTMAX_PRECISION,
}

# the soft router's own types: the mask and m e are set by its precision rule; p (probabilities in [0, 1])
SOFT_ROUTER_TYPES = {'mask': 'auto', 'weight': 'auto', 'probability': 'fixed<18,2,RND,SAT>'}


def router_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
    """The stable softmax's tables over the k kept logits (renormalize) or all n_in of them."""
    attributes, types = layer.attributes, layer.types
    n_values = attributes['k'] if attributes.get('renormalize') else attributes['n_in']
    size = attributes.get('table_size', 1024)
    exp_spec, inv_spec = softmax_tables(
        source, types['exp_table'], types['inv_table'], types['accum'], n_values, size, 'stable'
    )
    return {'exp_': exp_spec, 'inv_': inv_spec}


def _soft_router_shape(layer: Layer, inputs: list[shapes.Shape]) -> shapes.Shape:
    """The shape rule's shape, then the settings as the reference computes them (`check_soft_router`)."""
    shape = shapes.soft_router_shape(layer, inputs)
    try:
        check_soft_router(layer.attributes)
    except ValueError as error:
        raise ValueError(f'{layer.describe()}: {error}') from error
    return shape


def _expert_choice_shape(layer: Layer, inputs: list[shapes.Shape]) -> shapes.Shape:
    """The shape rule's shape; soft expert choice (l > 0): the soft top-k decides which l and iterations
    its kernel computes (`soft_expert_choice_types` on a probe type)."""
    shape = shapes.expert_choice_shape(layer, inputs)
    attributes = layer.attributes
    if attributes.get('l', 0):
        try:
            if not 1 <= attributes['iterations'] <= 64:
                raise ValueError(f'iterations={attributes["iterations"]} must be 1..64')
            probe = FixedPrecisionType(16, 6)
            sizes = (attributes['n_tokens'], attributes['capacity'])
            soft_expert_choice_types(probe, *sizes, attributes['l'], attributes['iterations'], attributes.get('p', 2.0))
        except ValueError as error:
            raise ValueError(f'{layer.describe()}: soft expert choice: {error}') from error
    return shape


class Selection:
    """The selection kinds (`Kind` inherits them)."""

    # ---- TopK: the k largest (magnitude: by |x|; largest False: the k smallest); lower index wins ----

    @staticmethod
    def _topk_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Selected values keep the input type; indices an unsigned integer type holding n_in - 1; mask 0/1."""
        if not is_auto(layer.types['result']):
            return
        output = layer.attributes['output']
        if output == 'indices':
            layer.types['result'] = unsigned_integer(layer.attributes['n_in'] - 1)
        elif output == 'mask':
            layer.types['result'] = unsigned_integer(1)
        else:
            copy_input(graph, layer, context)

    @staticmethod
    def _topk_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        attributes = layer.attributes
        return reference.topk(
            inputs[0],
            attributes['k'],
            attributes['output'],
            layer.types['result'],
            attributes['magnitude'],
            attributes.get('largest', True),
        )

    TOPK = KindRecord(
        'TopK',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.topk_shape,
        precision_rule=_topk_types,
        reference=_topk_reference,
        choices={'output': TOPK_OUTPUTS},
    )

    # ---- SoftTopK: sparse soft top-k (n_in, k, l > 0, mode, p = 2 or 4/3 (mask), iterations of the search) ----

    @staticmethod
    def _soft_topk_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """The mask: ufixed<F+1,1> with F = the input's fraction bits + log2(1/l), within 8..24 (the ramp's
        natural resolution); by magnitude: the input's integer bits and 4 more fraction bits."""
        source = input_fixed(graph, layer, context)
        if source is None or not is_auto(layer.types['result']):
            return
        if layer.attributes['mode'] == 'mask':
            fraction = min(max(source.fractional - round(math.log2(layer.attributes['l'])), 8), 24)
            layer.types['result'] = FixedPrecisionType(fraction + 1, 1, False)
        else:
            layer.types['result'] = FixedPrecisionType(source.width + 4, source.integer, source.signed)

    @staticmethod
    def _soft_topk_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        attributes, result = layer.attributes, layer.types['result']
        assert isinstance(result, FixedPrecisionType)
        k, mode, iterations = attributes['k'], attributes['mode'], attributes['iterations']
        if soft_topk_power(attributes.get('p', 2.0), mode) == CUBIC_POWER:
            cubic = layer_soft_topk_cubic_types(layer, fixed_input_type(graph, layer))
            return soft_topk_cubic(inputs[0], k, attributes['l'], iterations, cubic, result)
        types = layer_soft_topk_types(layer, fixed_input_type(graph, layer))
        return reference.soft_topk(inputs[0], k, attributes['l'], mode, iterations, types, result)

    SOFT_TOPK = KindRecord(
        'SoftTopK',
        types=RESULT_ONLY,
        config_keys=COMMON_KEYS,
        output_shape=shapes.soft_topk_shape,
        precision_rule=_soft_topk_types,
        reference=_soft_topk_reference,
        choices={'mode': SOFT_TOPK_MODES},
        # the rule's resolution (the ramp's, or the input's plus 4 bits); the search types follow its fraction bits
        exact_types={'result': 'outputs round at its LSB and the search types follow its fraction bits'},
    )

    # ---- Router: token-choice router over n_in expert logits (k, renormalize, output; lower index wins)

    @staticmethod
    def _router_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """Expert indices: an unsigned integer type holding n_in - 1; gates keep the default (as softmax)."""
        if is_auto(layer.types['result']) and layer.attributes['output'] == 'indices':
            layer.types['result'] = unsigned_integer(layer.attributes['n_in'] - 1)

    @staticmethod
    def _router_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        attributes, tables = layer.attributes, router_tables(layer, fixed_input_type(graph, layer))
        return reference.router(
            inputs[0],
            attributes['k'],
            attributes['renormalize'],
            attributes['output'],
            tables['exp_'],
            tables['inv_'],
            layer.types['accum'],
            layer.types['result'],
            n_in=attributes['n_in'],
            capacity=attributes.get('capacity', 0),
            sinkhorn=(attributes.get('sinkhorn_iterations', 0), attributes.get('sinkhorn_bits', DEFAULT_PLAN_BITS)),
        )

    ROUTER = KindRecord(
        'Router',
        types=ROUTER_TYPES,
        config_keys=(*COMMON_KEYS, 'TableSize'),
        output_shape=shapes.router_shape,
        precision_rule=_router_types,
        reference=_router_reference,
        settings=('table_size',),
        choices={'output': ROUTER_OUTPUTS},
        tables=router_tables,
    )

    # ---- ExpertChoiceRouter: over a group (n_tokens, n_in experts), each expert keeps its `capacity`
    # best tokens

    @staticmethod
    def _expert_choice_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        attributes, tables = layer.attributes, router_tables(layer, fixed_input_type(graph, layer))
        accum, result = layer.types['accum'], layer.types['result']
        soft = (attributes.get('l', 0.0), attributes.get('iterations', 12), attributes.get('p', 2.0))
        return reference.expert_choice(
            inputs[0], attributes['n_in'], attributes['capacity'], tables['exp_'], tables['inv_'], accum, result, soft
        )

    EXPERT_CHOICE_ROUTER = KindRecord(
        'ExpertChoiceRouter',
        types=ROUTER_TYPES,
        config_keys=(*COMMON_KEYS, 'TableSize'),
        output_shape=_expert_choice_shape,
        precision_rule=keep_config,
        reference=_expert_choice_reference,
        settings=('table_size',),
        tables=router_tables,
    )

    # ---- SoftTopKRouter: token choice with a sparse soft top-k mask (B.5.8): k, l, p, iterations, k_max,
    # mask_on, renormalize, output ('gates' or 'overflow')

    @staticmethod
    def _soft_router_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        """The mask as SoftTopK's of its keys; m e exact (fraction bits of both, integer bits for a sum
        up to k_max); the overflow count an unsigned integer holding n_in."""
        source = input_fixed(graph, layer, context)
        if source is None:
            return
        attributes, types = layer.attributes, layer.types
        if is_auto(types['mask']):
            keys = source if attributes['mask_on'] == 'logits' else parse_precision(types['probability'])
            assert isinstance(keys, FixedPrecisionType)
            fraction = min(max(keys.fractional - round(math.log2(attributes['l'])), 8), 24)
            types['mask'] = FixedPrecisionType(fraction + 1, 1, False)
        if is_auto(types['weight']):
            exponential = parse_precision(types['exp_table'])
            mask = parse_precision(types['mask'])
            assert isinstance(exponential, FixedPrecisionType) and isinstance(mask, FixedPrecisionType)
            fraction = mask.fractional + exponential.fractional
            whole = max(int(attributes['k_max']).bit_length(), 1) + 1
            types['weight'] = FixedPrecisionType(fraction + whole, whole, False)
        if is_auto(types['result']) and attributes['output'] == 'overflow':
            types['result'] = unsigned_integer(attributes['n_in'])

    @staticmethod
    def _soft_router_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        settings = layer_soft_router_settings(layer, fixed_input_type(graph, layer))
        return reference.soft_router(inputs[0], settings, layer.attributes['n_in'])

    SOFT_TOPK_ROUTER = KindRecord(
        'SoftTopKRouter',
        types={**ROUTER_TYPES, 'norm_table': DEFAULT_SOFTMAX_PRECISION, **SOFT_ROUTER_TYPES},
        config_keys=(*COMMON_KEYS, 'TableSize'),
        output_shape=_soft_router_shape,
        precision_rule=_soft_router_types,
        reference=_soft_router_reference,
        settings=('table_size',),
        choices={'output': SOFT_ROUTER_OUTPUTS, 'mask_on': SOFT_ROUTER_MASK_ON},
        tables=soft_router_tables,
        exact_types=('mask', 'weight'),
    )
