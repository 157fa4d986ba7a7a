"""Every layer kind of the IR, in one table: its typed variables, weights, config keys and shape rules.

How to add a kind: add a `LayerKind` to `LAYER_KINDS` (group it with its relatives), give it shape
rules (`shape_rules.py`), then a frontend handler that emits it, a reference kernel, and a lowering.
Config keys are the hls4ml 1.x per-layer keys the kind accepts (besides `Precision`).
Kind names are hls4ml 1.x's IR class names, so `LayerType` configs written for it still match.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hls4ml.model import shape_rules as rules
from hls4ml.model.ir import Layer

Shape = tuple[int, ...]
COMMON_KEYS = ('Precision', 'Trace')
TABLE_KEYS = ('TableSize', 'ReuseFactor')
PRODUCT_KEYS = (*COMMON_KEYS, 'ReuseFactor', 'Strategy')
CONV_KEYS = (*PRODUCT_KEYS, 'ParallelizationFactor')
DEFAULT_TABLE_PRECISION = 'fixed<18,8,TRN,WRAP,0>'
DEFAULT_SOFTMAX_PRECISION = 'fixed<18,8,RND,SAT,0>'
PRODUCT_TYPES = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}
RESULT_ONLY = {'result': 'auto'}

# activations: read from a lookup table (nnet_activation_table.h) or computed exactly (nnet_activation.h);
# bipolar is sign(x) with sign(0) = +1 (QONNX BipolarQuant)
TABLE_ACTIVATIONS = ('sigmoid', 'tanh', 'softplus', 'softsign', 'elu', 'selu')
LOSSLESS_ACTIVATIONS = ('linear', 'relu', 'bipolar')
ACTIVATIONS = (*LOSSLESS_ACTIVATIONS, *TABLE_ACTIVATIONS)
PARAMETRIZED_ACTIVATIONS = ('leaky_relu', 'thresholded_relu', 'elu')
SOFTMAX_IMPLEMENTATIONS = ('stable', 'latency', 'argmax')
MERGE_OPERATIONS = ('add', 'subtract', 'multiply', 'average', 'maximum', 'minimum')
POOL_OPERATIONS = ('max', 'average')
SOM_DISTANCES = ('squared_euclidean', 'manhattan', 'chebyshev', 'cosine')
SOM_OUTPUTS = ('index', 'coordinates', 'one_hot', 'distances', 'label', 'activities', 'quantized')
SOM_TOPOLOGIES = ('rectangular', 'hexagonal')  # hexagonal: 'coordinates' are MiniSom's Euclidean ones
# how the SOM finds its BMU: distances and an argmin, or (squared Euclidean, cosine) a Dense layer of
# scores w_n.x - |w_n|^2/2 and an argmax, with Dense's strategy and reuse factor (docs/som.md)
SOM_IMPLEMENTATIONS = ('distance', 'dense')
# the values of config key 'Implementation' per kind, the default first
IMPLEMENTATIONS = {'Softmax': SOFTMAX_IMPLEMENTATIONS, 'SOM': SOM_IMPLEMENTATIONS}
# ReSOM (docs/resom.md): lateral input from all activities or the winner's column; combined by product
# or mean; outputs the class, the global winner (x units first), the two per-map winners, or activities
RESOM_DISTANCES = ('squared_euclidean', 'manhattan', 'chebyshev')  # activities: exp(-(d_n - d_bmu) / beta)
RESOM_SOURCES = ('all', 'bmu')
RESOM_COMBINES = ('product', 'sum')
RESOM_OUTPUTS = ('label', 'index', 'winners', 'activities')
RESOM_TYPES = ('accum_x', 'accum_y', 'codebook_x', 'codebook_y', 'lateral', 'lateral_accum', 'activity', 'label')
# hard top-k: what the one output tensor holds (docs/topk.md); 'masked' is x where selected, 0 elsewhere
TOPK_OUTPUTS = ('values', 'indices', 'mask', 'masked')
# sparse soft top-k, p = 2 (docs/topk.md): the soft mask in [0, 1], or x scaled towards 0 by magnitude
SOFT_TOPK_MODES = ('mask', 'magnitude')
# token-choice MoE router (docs/moe.md): dense gates (n_in, 0 where not routed), the k gates, their experts
ROUTER_OUTPUTS = ('gates', 'weights', 'indices')
ROUTER_TYPES = {
    'result': 'auto',
    'exp_table': DEFAULT_SOFTMAX_PRECISION,
    'inv_table': DEFAULT_SOFTMAX_PRECISION,
    'accum': DEFAULT_SOFTMAX_PRECISION,
}


@dataclass(frozen=True)
class LayerKind:
    name: str
    type_defaults: dict[str, str]  # typed variable -> default precision ('auto' = inferred by a pass)
    weights: tuple[str, ...]
    config_keys: tuple[str, ...]
    output_shape: Callable[[Layer, list[Shape]], Shape]
    weight_shapes: Callable[[Layer], dict[str, Shape]] = rules.no_weights
    ignored_precisions: tuple[str, ...] = ()  # hls4ml 1.x keys accepted for compatibility, unused here


def _spatial(name: str, rank: int, types: dict[str, str], keys: tuple[str, ...], channels: str = 'n_chan') -> LayerKind:
    return LayerKind(name, types, (), keys, rules.spatial_shape(channels, rank))


def _conv(name: str, rank: int, depthwise: bool = False) -> LayerKind:
    return LayerKind(
        name,
        PRODUCT_TYPES,
        ('weight', 'bias'),
        CONV_KEYS,
        rules.spatial_shape('n_filt', rank),
        rules.conv_weights(rank, depthwise),
    )


LAYER_KINDS: dict[str, LayerKind] = {
    kind.name: kind
    for kind in (
        # sources
        LayerKind('Input', RESULT_ONLY, (), COMMON_KEYS, rules.input_shape),
        # matrix products
        LayerKind('Dense', PRODUCT_TYPES, ('weight', 'bias'), PRODUCT_KEYS, rules.dense_shape, rules.dense_weights),
        LayerKind('Dot', {'result': 'auto', 'accum': 'auto'}, (), COMMON_KEYS, rules.dot_shape),
        # convolutions (channels last; 'same' padding is explicit in pad_* attributes)
        _conv('Conv1D', 1),
        _conv('Conv2D', 2),
        _conv('DepthwiseConv1D', 1, depthwise=True),
        _conv('DepthwiseConv2D', 2, depthwise=True),
        # pooling (pool_op 'max' or 'average')
        _spatial('Pooling1D', 1, {'result': 'auto', 'accum': 'auto'}, (*COMMON_KEYS, 'ReuseFactor')),
        _spatial('Pooling2D', 2, {'result': 'auto', 'accum': 'auto'}, (*COMMON_KEYS, 'ReuseFactor')),
        LayerKind(
            'GlobalPooling1D', {'result': 'auto', 'accum': 'auto'}, (), COMMON_KEYS, rules.global_pooling_shape(1)
        ),
        LayerKind(
            'GlobalPooling2D', {'result': 'auto', 'accum': 'auto'}, (), COMMON_KEYS, rules.global_pooling_shape(2)
        ),
        # moving values without arithmetic
        _spatial('ZeroPadding1D', 1, RESULT_ONLY, COMMON_KEYS),
        _spatial('ZeroPadding2D', 2, RESULT_ONLY, COMMON_KEYS),
        _spatial('Cropping1D', 1, RESULT_ONLY, COMMON_KEYS),
        _spatial('Cropping2D', 2, RESULT_ONLY, COMMON_KEYS),
        _spatial('Resize', 1, RESULT_ONLY, COMMON_KEYS),  # UpSampling1D (nearest); 'Resize' as in hls4ml
        _spatial('Resize2D', 2, RESULT_ONLY, COMMON_KEYS),
        LayerKind('Reshape', RESULT_ONLY, (), COMMON_KEYS, rules.reshape_shape),
        LayerKind('Transpose', RESULT_ONLY, (), COMMON_KEYS, rules.transpose_shape),
        LayerKind('Concatenate', RESULT_ONLY, (), COMMON_KEYS, rules.concatenate_shape),
        LayerKind('Clone', RESULT_ONLY, (), COMMON_KEYS, rules.same_shape),  # io_stream fan-out, inserted by a pass
        # element-wise arithmetic
        LayerKind('Merge', RESULT_ONLY, (), COMMON_KEYS, rules.merge_shape),  # op: MERGE_OPERATIONS
        LayerKind(
            'BatchNormalization',
            {'result': 'auto', 'scale': 'auto', 'bias': 'auto'},
            ('scale', 'bias'),
            (*COMMON_KEYS, 'ReuseFactor'),
            rules.same_shape,
            rules.per_element_weights('scale', 'bias'),
        ),
        # heterogeneous fixed-point quantizer (HGQ2): value j written into its own fixed<k+i+f, k+i> of
        # triple j % n_params (weights keep_negative, integer_bits, fraction_bits), with the attributes'
        # rounding and overflow (WRAP, SAT, SAT_SYM); the result is their exact container
        # (hls4ml/model/quantizer.py, docs/quantization.md)
        LayerKind(
            'FixedPointQuantizer',
            RESULT_ONLY,
            ('keep_negative', 'integer_bits', 'fraction_bits'),
            COMMON_KEYS,
            rules.same_shape,
            rules.quantizer_weights,
        ),
        # activations
        LayerKind(
            'Activation',
            {'result': 'auto', 'table': DEFAULT_TABLE_PRECISION},
            (),
            (*COMMON_KEYS, *TABLE_KEYS),
            rules.same_shape,
        ),
        # a lookup table over the whole input grid (HGQ2's QUnaryFunctionLUT): weights 'table' (entry k for
        # the input (table_start + k) * 2**-table_shift, computed by the frontend), each input reads its own
        LayerKind(
            'UnaryLUT',
            {'result': 'auto', 'table': 'auto'},
            ('table',),
            (*COMMON_KEYS, 'ReuseFactor'),
            rules.same_shape,
            rules.lut_weights,
        ),
        LayerKind(
            'ParametrizedActivation',
            {'result': 'auto', 'param': 'auto', 'table': DEFAULT_TABLE_PRECISION},
            (),
            (*COMMON_KEYS, *TABLE_KEYS),
            rules.same_shape,
        ),
        LayerKind(
            'PReLU',
            {'result': 'auto', 'param': 'auto'},
            ('alpha',),
            (*COMMON_KEYS, 'ReuseFactor'),
            rules.same_shape,
            rules.per_element_weights('alpha'),
        ),
        LayerKind(
            'HardActivation', {'result': 'auto', 'param': 'auto'}, (), (*COMMON_KEYS, 'ReuseFactor'), rules.same_shape
        ),
        LayerKind(
            'Softmax',
            {
                'result': 'auto',
                'exp_table': DEFAULT_SOFTMAX_PRECISION,
                'inv_table': DEFAULT_SOFTMAX_PRECISION,
                'accum': DEFAULT_SOFTMAX_PRECISION,
            },
            (),
            (*COMMON_KEYS, *TABLE_KEYS, 'Implementation', 'Skip'),
            rules.same_shape,
            # hls4ml's softmax has a 'table' and an 'inv_inp' type that this kernel does not use: the
            # sum is kept in accum and indexes inv_table exactly (see docs/kernels.md)
            ignored_precisions=('table', 'inv_inp'),
        ),
        # self-organizing map: best-matching unit of a codebook (docs/som.md)
        LayerKind(
            'SOM',
            {'result': 'auto', 'accum': 'auto', 'codebook': 'auto', 'label': 'auto', 'table': 'auto'},
            ('codebook', 'labels'),
            (*PRODUCT_KEYS, 'TableSize', 'Implementation'),  # Strategy: of Implementation 'dense'
            rules.som_shape,
            rules.som_weights,
        ),
        # two SOMs (inputs x, y) associated by a Hebbian lateral matrix (docs/resom.md)
        LayerKind(
            'ReSOM',
            {'result': 'auto', **dict.fromkeys(RESOM_TYPES, 'auto')},
            ('codebook_x', 'codebook_y', 'lateral', 'labels'),
            (*COMMON_KEYS, 'ReuseFactor', 'TableSize'),
            rules.resom_shape,
            rules.resom_weights,
        ),
        # selection (n_in, k, output: TOPK_OUTPUTS, magnitude: rank by |x|, largest (False: the k smallest);
        # ties: the lower index wins)
        LayerKind('TopK', RESULT_ONLY, (), COMMON_KEYS, rules.topk_shape),
        # sparse soft top-k (n_in, k, l: a power of two, mode: SOFT_TOPK_MODES, iterations of the search)
        LayerKind('SoftTopK', RESULT_ONLY, (), COMMON_KEYS, rules.soft_topk_shape),
        # token-choice router over n_in expert logits (k, renormalize, output: ROUTER_OUTPUTS; lower index wins)
        LayerKind('Router', ROUTER_TYPES, (), (*COMMON_KEYS, 'TableSize'), rules.router_shape),
        # expert-choice router over a group (n_tokens, n_in experts): each expert keeps its `capacity` best tokens
        LayerKind('ExpertChoiceRouter', ROUTER_TYPES, (), (*COMMON_KEYS, 'TableSize'), rules.expert_choice_shape),
    )
}


def kind_of(layer: Layer) -> LayerKind:
    return LAYER_KINDS[layer.kind]
