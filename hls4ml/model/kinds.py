"""The names of the layer kinds and the choices of their attributes: plain data, imported by everything.

`Kind` names every IR layer kind. Its values are hls4ml 1.x's IR class names, so `layer.kind`,
`layer.class_name` and the `LayerType` keys of a config stay the strings 1.x users write, and a
`Kind` compares and hashes equal to its string (`Kind.DENSE == 'Dense'`). Code names kinds through
`Kind`, never as string literals, so a typo fails at import and `grep Kind.SOM` finds every use.
Everything else about a kind is its record in `hls4ml/model/layers.py` (how to add one:
docs/adding-a-layer.md). This module imports nothing, so the reference kernels, the passes and the
records themselves can all import it.
"""

from __future__ import annotations

from enum import Enum


class Kind(str, Enum):
    """An IR layer kind; `str`, `repr` and f-strings print it as its value ('Dense') would print."""

    # sources
    INPUT = 'Input'
    # matrix products
    DENSE = 'Dense'
    DOT = 'Dot'
    # convolutions (channels last; 'same' padding is explicit in pad_* attributes)
    CONV1D = 'Conv1D'
    CONV2D = 'Conv2D'
    DEPTHWISE_CONV1D = 'DepthwiseConv1D'
    DEPTHWISE_CONV2D = 'DepthwiseConv2D'
    # pooling (pool_op: POOL_OPERATIONS)
    POOLING1D = 'Pooling1D'
    POOLING2D = 'Pooling2D'
    GLOBAL_POOLING1D = 'GlobalPooling1D'
    GLOBAL_POOLING2D = 'GlobalPooling2D'
    # moving values without arithmetic
    ZERO_PADDING1D = 'ZeroPadding1D'
    ZERO_PADDING2D = 'ZeroPadding2D'
    CROPPING1D = 'Cropping1D'
    CROPPING2D = 'Cropping2D'
    RESIZE = 'Resize'  # UpSampling1D (nearest); 'Resize' as in hls4ml
    RESIZE2D = 'Resize2D'
    RESHAPE = 'Reshape'
    TRANSPOSE = 'Transpose'
    CONCATENATE = 'Concatenate'
    CLONE = 'Clone'  # io_stream fan-out, inserted by a pass
    # element-wise arithmetic
    MERGE = 'Merge'  # op: MERGE_OPERATIONS
    BATCH_NORMALIZATION = 'BatchNormalization'
    FIXED_POINT_QUANTIZER = 'FixedPointQuantizer'  # HGQ2's heterogeneous quantizer
    # activations
    ACTIVATION = 'Activation'  # activation: ACTIVATIONS
    UNARY_LUT = 'UnaryLUT'
    PARAMETRIZED_ACTIVATION = 'ParametrizedActivation'  # activation: PARAMETRIZED_ACTIVATIONS
    PRELU = 'PReLU'
    HARD_ACTIVATION = 'HardActivation'  # hard_sigmoid
    SOFTMAX = 'Softmax'
    # self-organizing maps (docs/som.md, docs/resom.md)
    SOM = 'SOM'
    RESOM = 'ReSOM'
    # selection (docs/topk.md, docs/moe.md)
    TOPK = 'TopK'
    SOFT_TOPK = 'SoftTopK'
    ROUTER = 'Router'
    EXPERT_CHOICE_ROUTER = 'ExpertChoiceRouter'

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:  # lists of kinds in messages print as lists of names did
        return repr(self.value)


CONVOLUTIONS = (Kind.CONV1D, Kind.CONV2D, Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D)
DEPTHWISE_CONVOLUTIONS = (Kind.DEPTHWISE_CONV1D, Kind.DEPTHWISE_CONV2D)
POOLINGS = (Kind.POOLING1D, Kind.POOLING2D)
GLOBAL_POOLINGS = (Kind.GLOBAL_POOLING1D, Kind.GLOBAL_POOLING2D)
ROUTERS = (Kind.ROUTER, Kind.EXPERT_CHOICE_ROUTER)
# the spatial kinds by rank (1-D, 2-D), for frontends that know the rank of an operation
CONV_OF_RANK = {1: Kind.CONV1D, 2: Kind.CONV2D}
DEPTHWISE_CONV_OF_RANK = {1: Kind.DEPTHWISE_CONV1D, 2: Kind.DEPTHWISE_CONV2D}
POOLING_OF_RANK = {1: Kind.POOLING1D, 2: Kind.POOLING2D}
GLOBAL_POOLING_OF_RANK = {1: Kind.GLOBAL_POOLING1D, 2: Kind.GLOBAL_POOLING2D}
ZERO_PADDING_OF_RANK = {1: Kind.ZERO_PADDING1D, 2: Kind.ZERO_PADDING2D}
CROPPING_OF_RANK = {1: Kind.CROPPING1D, 2: Kind.CROPPING2D}

# ---- the choices of attributes -------------------------------------------------------------------
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
