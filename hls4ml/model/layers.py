"""Every layer kind of the IR, one record each: what it holds, accepts, computes and how it is typed.

A `KindRecord` gathers the IR-side facts of one kind: its typed variables and their defaults, its
weights, the config keys it accepts and the settings they set, the choices of its attributes, its
shape rules (`shape_rules.py`), its precision rule (`precision_rules.py`, run by `infer_precision`)
and its reference kernel (`interpreter_*.py`, the test oracle). The backend side (lowering, stream
header) is one `KindLowering` in `hls4ml/backends/common/kinds.py`, the estimator rule one entry in
`hls4ml/estimate/model.py`; `test/unit/test_kind_records.py` fails naming any part a kind lacks.
How to add a kind: docs/adding-a-layer.md. Kind names (`kinds.Kind`) are hls4ml 1.x's IR class
names, so `LayerType` configs written for it still match; config keys are its 1.x per-layer keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from hls4ml.model import interpreter_kernels as kernels
from hls4ml.model import interpreter_spatial as spatial
from hls4ml.model import interpreter_structure as structure
from hls4ml.model import precision_maps, precision_rules
from hls4ml.model import shape_rules as rules
from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import (
    ACTIVATIONS,
    MERGE_OPERATIONS,
    PARAMETRIZED_ACTIVATIONS,
    POOL_OPERATIONS,
    RESOM_COMBINES,
    RESOM_DISTANCES,
    RESOM_OUTPUTS,
    RESOM_SOURCES,
    RESOM_TYPES,
    ROUTER_OUTPUTS,
    SOFT_TOPK_MODES,
    SOFTMAX_IMPLEMENTATIONS,
    SOM_DISTANCES,
    SOM_IMPLEMENTATIONS,
    SOM_OUTPUTS,
    SOM_TOPOLOGIES,
    TOPK_OUTPUTS,
    Kind,
)
from hls4ml.model.pass_context import PassContext

Shape = tuple[int, ...]
ShapeRule = Callable[[Layer, list[Shape]], Shape]
WeightRule = Callable[[Layer], dict[str, Shape]]
PrecisionRule = Callable[[Graph, Layer, PassContext], None]
Reference = Callable[[Layer, list[FixedArray], Graph, str], FixedArray]

COMMON_KEYS = ('Precision', 'Trace')
TABLE_KEYS = ('TableSize', 'ReuseFactor')
PRODUCT_KEYS = (*COMMON_KEYS, 'ReuseFactor', 'Strategy')
CONV_KEYS = (*PRODUCT_KEYS, 'ParallelizationFactor')
PRODUCT_SETTINGS = ('reuse_factor', 'strategy')
CONV_SETTINGS = (*PRODUCT_SETTINGS, 'parallelization_factor')
DEFAULT_TABLE_PRECISION = 'fixed<18,8,TRN,WRAP,0>'
DEFAULT_SOFTMAX_PRECISION = 'fixed<18,8,RND,SAT,0>'
PRODUCT_TYPES = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}
RESULT_ONLY = {'result': 'auto'}
SUM_TYPES = {'result': 'auto', 'accum': 'auto'}
ROUTER_TYPES = {
    'result': 'auto',
    'exp_table': DEFAULT_SOFTMAX_PRECISION,
    'inv_table': DEFAULT_SOFTMAX_PRECISION,
    'accum': DEFAULT_SOFTMAX_PRECISION,
}


@dataclass(frozen=True)
class KindRecord:
    """The IR-side facts of one layer kind."""

    kind: Kind
    type_defaults: Mapping[str, str]  # typed variable -> default precision ('auto' = inferred by a pass)
    weights: tuple[str, ...]
    config_keys: tuple[str, ...]  # hls4ml 1.x per-layer keys it accepts
    output_shape: ShapeRule
    precision_rule: PrecisionRule  # sets its 'auto' types (`precision_rules.keep_config`: none to set)
    reference: Reference | None  # its numpy reference kernel; None for a port (the caller gives its values)
    settings: tuple[str, ...] = ()  # `config.LayerSettings` fields copied into its attributes
    weight_shapes: WeightRule = rules.no_weights
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # attribute -> values (default first)
    ignored_precisions: tuple[str, ...] = ()  # hls4ml 1.x keys accepted for compatibility, unused here

    @property
    def name(self) -> str:
        return self.kind.value

    @property
    def port(self) -> bool:
        """A model input: nothing is computed, lowered or estimated for it."""
        return self.reference is None


def _move(kind: Kind, shape: ShapeRule, reference: Reference) -> KindRecord:
    """A kind that moves values without arithmetic: it keeps its input type."""
    return KindRecord(kind, RESULT_ONLY, (), COMMON_KEYS, shape, precision_rules.copy_input, reference)


def _spatial_move(kind: Kind, rank: int) -> KindRecord:
    return _move(kind, rules.spatial_shape('n_chan', rank), structure.edge)


def _conv(kind: Kind, rank: int, depthwise: bool = False) -> KindRecord:
    return KindRecord(
        kind,
        PRODUCT_TYPES,
        ('weight', 'bias'),
        CONV_KEYS,
        rules.spatial_shape('n_filt', rank),
        precision_rules.dense,
        spatial.convolution,
        CONV_SETTINGS,
        rules.conv_weights(rank, depthwise),
    )


def _pooling(kind: Kind, shape: ShapeRule, reference: Reference, keys: tuple[str, ...]) -> KindRecord:
    pool = {'pool_op': POOL_OPERATIONS}
    return KindRecord(kind, SUM_TYPES, (), keys, shape, precision_rules.pooling, reference, choices=pool)


def _activation(
    kind: Kind, types: dict[str, str], rule: PrecisionRule, reference: Reference, **facts: Any
) -> KindRecord:
    """A one-input kind of the input's shape (activations, batch normalization, quantizers)."""
    keys = facts.pop('keys', (*COMMON_KEYS, 'ReuseFactor'))
    return KindRecord(kind, types, facts.pop('weights', ()), keys, rules.same_shape, rule, reference, **facts)


_RECORDS = (
    # sources
    KindRecord(Kind.INPUT, RESULT_ONLY, (), COMMON_KEYS, rules.input_shape, precision_rules.keep_config, None),
    # matrix products
    KindRecord(
        Kind.DENSE,
        PRODUCT_TYPES,
        ('weight', 'bias'),
        PRODUCT_KEYS,
        rules.dense_shape,
        precision_rules.dense,
        kernels.dense,
        PRODUCT_SETTINGS,
        rules.dense_weights,
    ),
    KindRecord(Kind.DOT, SUM_TYPES, (), COMMON_KEYS, rules.dot_shape, precision_rules.dot, structure.dot),
    # convolutions (channels last; 'same' padding is explicit in pad_* attributes)
    _conv(Kind.CONV1D, 1),
    _conv(Kind.CONV2D, 2),
    _conv(Kind.DEPTHWISE_CONV1D, 1, depthwise=True),
    _conv(Kind.DEPTHWISE_CONV2D, 2, depthwise=True),
    # pooling
    _pooling(Kind.POOLING1D, rules.spatial_shape('n_chan', 1), spatial.pooling, (*COMMON_KEYS, 'ReuseFactor')),
    _pooling(Kind.POOLING2D, rules.spatial_shape('n_chan', 2), spatial.pooling, (*COMMON_KEYS, 'ReuseFactor')),
    _pooling(Kind.GLOBAL_POOLING1D, rules.global_pooling_shape(1), spatial.global_pooling, COMMON_KEYS),
    _pooling(Kind.GLOBAL_POOLING2D, rules.global_pooling_shape(2), spatial.global_pooling, COMMON_KEYS),
    # moving values without arithmetic
    _spatial_move(Kind.ZERO_PADDING1D, 1),
    _spatial_move(Kind.ZERO_PADDING2D, 2),
    _spatial_move(Kind.CROPPING1D, 1),
    _spatial_move(Kind.CROPPING2D, 2),
    _spatial_move(Kind.RESIZE, 1),  # UpSampling1D (nearest)
    _spatial_move(Kind.RESIZE2D, 2),
    _move(Kind.RESHAPE, rules.reshape_shape, structure.copy),
    _move(Kind.TRANSPOSE, rules.transpose_shape, structure.transpose),
    KindRecord(
        Kind.CONCATENATE,
        RESULT_ONLY,
        (),
        COMMON_KEYS,
        rules.concatenate_shape,
        precision_rules.merge,
        structure.concatenate,
    ),
    # io_stream fan-out, inserted by a pass: its type is its input's, set by the pass
    KindRecord(Kind.CLONE, RESULT_ONLY, (), COMMON_KEYS, rules.same_shape, precision_rules.keep_config, structure.copy),
    # element-wise arithmetic
    KindRecord(
        Kind.MERGE,
        RESULT_ONLY,
        (),
        COMMON_KEYS,
        rules.merge_shape,
        precision_rules.merge,
        structure.merge_values,
        choices={'op': MERGE_OPERATIONS},
    ),
    _activation(
        Kind.BATCH_NORMALIZATION,
        {'result': 'auto', 'scale': 'auto', 'bias': 'auto'},
        precision_rules.batchnorm,
        kernels.batchnorm,
        weights=('scale', 'bias'),
        weight_shapes=rules.per_element_weights('scale', 'bias'),
    ),
    # heterogeneous fixed-point quantizer (HGQ2): value j written into its own fixed<k+i+f, k+i> of
    # triple j % n_params (weights keep_negative, integer_bits, fraction_bits), with the attributes'
    # rounding and overflow (WRAP, SAT, SAT_SYM); the result is their exact container
    # (hls4ml/model/quantizer.py, docs/quantization.md)
    _activation(
        Kind.FIXED_POINT_QUANTIZER,
        RESULT_ONLY,
        precision_rules.quantizer,
        kernels.quantizer,
        keys=COMMON_KEYS,
        weights=('keep_negative', 'integer_bits', 'fraction_bits'),
        weight_shapes=rules.quantizer_weights,
    ),
    # activations
    _activation(
        Kind.ACTIVATION,
        {'result': 'auto', 'table': DEFAULT_TABLE_PRECISION},
        precision_rules.activation,
        kernels.activation,
        keys=(*COMMON_KEYS, *TABLE_KEYS),
        settings=('table_size',),
        choices={'activation': ACTIVATIONS},
    ),
    # a lookup table over the whole input grid (HGQ2's QUnaryFunctionLUT): weights 'table' (entry k for
    # the input (table_start + k) * 2**-table_shift, computed by the frontend), each input reads its own
    _activation(
        Kind.UNARY_LUT,
        {'result': 'auto', 'table': 'auto'},
        precision_rules.keep_config,
        kernels.unary_lut,
        weights=('table',),
        weight_shapes=rules.lut_weights,
    ),
    _activation(
        Kind.PARAMETRIZED_ACTIVATION,
        {'result': 'auto', 'param': 'auto', 'table': DEFAULT_TABLE_PRECISION},
        precision_rules.parametrized,
        kernels.parametrized,
        keys=(*COMMON_KEYS, *TABLE_KEYS),
        settings=('table_size',),
        choices={'activation': PARAMETRIZED_ACTIVATIONS},
    ),
    _activation(
        Kind.PRELU,
        {'result': 'auto', 'param': 'auto'},
        precision_rules.prelu,
        kernels.prelu,
        weights=('alpha',),
        weight_shapes=rules.per_element_weights('alpha'),
    ),
    _activation(
        Kind.HARD_ACTIVATION,
        {'result': 'auto', 'param': 'auto'},
        precision_rules.hard_activation,
        kernels.hard_activation,
    ),
    _activation(
        Kind.SOFTMAX,
        {
            'result': 'auto',
            'exp_table': DEFAULT_SOFTMAX_PRECISION,
            'inv_table': DEFAULT_SOFTMAX_PRECISION,
            'accum': DEFAULT_SOFTMAX_PRECISION,
        },
        precision_rules.keep_config,
        kernels.softmax,
        keys=(*COMMON_KEYS, *TABLE_KEYS, 'Implementation', 'Skip'),
        settings=('table_size', 'implementation', 'skip'),
        choices={'implementation': SOFTMAX_IMPLEMENTATIONS},
        # hls4ml's softmax has a 'table' and an 'inv_inp' type that this kernel does not use: the
        # sum is kept in accum and indexes inv_table exactly (see docs/kernels.md)
        ignored_precisions=('table', 'inv_inp'),
    ),
    # self-organizing map: best-matching unit of a codebook (docs/som.md); table_size: the activity
    # table (output 'activities'); strategy: of Implementation 'dense' (its scores are a Dense layer)
    KindRecord(
        Kind.SOM,
        {'result': 'auto', 'accum': 'auto', 'codebook': 'auto', 'label': 'auto', 'table': 'auto'},
        ('codebook', 'labels'),
        (*PRODUCT_KEYS, 'TableSize', 'Implementation'),
        rules.som_shape,
        precision_maps.som,
        kernels.som,
        ('reuse_factor', 'strategy', 'table_size', 'implementation'),
        rules.som_weights,
        choices={
            'implementation': SOM_IMPLEMENTATIONS,
            'distance': SOM_DISTANCES,
            'output': SOM_OUTPUTS,
            'topology': SOM_TOPOLOGIES,
        },
    ),
    # two SOMs (inputs x, y) associated by a Hebbian lateral matrix (docs/resom.md); table_size: both
    # maps' activity tables
    KindRecord(
        Kind.RESOM,
        {'result': 'auto', **dict.fromkeys(RESOM_TYPES, 'auto')},
        ('codebook_x', 'codebook_y', 'lateral', 'labels'),
        (*COMMON_KEYS, 'ReuseFactor', 'TableSize'),
        rules.resom_shape,
        precision_maps.resom,
        kernels.resom,
        ('reuse_factor', 'table_size'),
        rules.resom_weights,
        choices={
            'distance': RESOM_DISTANCES,
            'source': RESOM_SOURCES,
            'combine': RESOM_COMBINES,
            'output': RESOM_OUTPUTS,
        },
    ),
    # selection (n_in, k, output, magnitude: rank by |x|, largest (False: the k smallest); ties: the
    # lower index wins)
    KindRecord(
        Kind.TOPK,
        RESULT_ONLY,
        (),
        COMMON_KEYS,
        rules.topk_shape,
        precision_rules.topk,
        kernels.topk,
        choices={'output': TOPK_OUTPUTS},
    ),
    # sparse soft top-k (n_in, k, l: a power of two, mode, iterations of the search)
    KindRecord(
        Kind.SOFT_TOPK,
        RESULT_ONLY,
        (),
        COMMON_KEYS,
        rules.soft_topk_shape,
        precision_rules.soft_topk,
        kernels.soft_topk,
        choices={'mode': SOFT_TOPK_MODES},
    ),
    # token-choice router over n_in expert logits (k, renormalize, output; lower index wins)
    KindRecord(
        Kind.ROUTER,
        ROUTER_TYPES,
        (),
        (*COMMON_KEYS, 'TableSize'),
        rules.router_shape,
        precision_rules.router,
        kernels.router,
        ('table_size',),
        choices={'output': ROUTER_OUTPUTS},
    ),
    # expert-choice router over a group (n_tokens, n_in experts): each expert keeps its `capacity` best tokens
    KindRecord(
        Kind.EXPERT_CHOICE_ROUTER,
        ROUTER_TYPES,
        (),
        (*COMMON_KEYS, 'TableSize'),
        rules.expert_choice_shape,
        precision_rules.keep_config,
        kernels.expert_choice,
        ('table_size',),
    ),
)

LAYER_KINDS: Mapping[str, KindRecord] = MappingProxyType({record.kind: record for record in _RECORDS})
# the values of config key 'Implementation' per kind, the default first
IMPLEMENTATIONS: dict[str, tuple[str, ...]] = {
    record.kind: record.choices['implementation'] for record in _RECORDS if 'implementation' in record.choices
}


def is_port(layer: Layer) -> bool:
    """A model input (nothing to compute, lower or estimate); False for a kind without a record."""
    record = LAYER_KINDS.get(layer.kind)
    return record is not None and record.port
