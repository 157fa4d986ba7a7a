"""Numpy reference kernels: one function per C++ kernel of `templates/nnet/`, bit-exact by construction.

Each function takes `FixedArray` inputs of shape (n_samples, n) (vectorised over samples), the
layer's weights and parameters and the precision types of its config struct, and returns a
`FixedArray` of the result type. Every write into a declared C++ variable is a `.cast(type)` here,
in the same order, and every C++ expression is the same full-precision `FixedArray` operation, so
the C++ and the reference give identical raw bits in both type families. The accumulation
semantics are written down in docs/kernels.md.
"""

from hls4ml.model.reference.activations import (
    bipolar,
    clipped_relu,
    hard_sigmoid,
    hard_swish,
    leaky_relu,
    linear,
    prelu,
    relu,
    thresholded_relu,
)
from hls4ml.model.reference.batchnorm import normalize
from hls4ml.model.reference.conv import conv1d, conv2d, depthwise_conv1d, depthwise_conv2d
from hls4ml.model.reference.dense import dense
from hls4ml.model.reference.pooling import global_pooling1d, global_pooling2d, pooling1d, pooling2d
from hls4ml.model.reference.quantizer import fixed_point_quantizer
from hls4ml.model.reference.resom import resom
from hls4ml.model.reference.router import expert_choice, router
from hls4ml.model.reference.soft_router import soft_router
from hls4ml.model.reference.soft_topk import soft_topk
from hls4ml.model.reference.softmax import softmax_argmax, softmax_latency, softmax_stable
from hls4ml.model.reference.som import som
from hls4ml.model.reference.table_activations import (
    elu,
    gelu,
    gelu_tanh,
    selu,
    sigmoid,
    silu,
    softplus,
    softsign,
    tanh,
    unary_lut,
)
from hls4ml.model.reference.topk import topk

__all__ = [
    'bipolar',
    'clipped_relu',
    'conv1d',
    'conv2d',
    'depthwise_conv1d',
    'depthwise_conv2d',
    'global_pooling1d',
    'global_pooling2d',
    'pooling1d',
    'pooling2d',
    'dense',
    'fixed_point_quantizer',
    'gelu',
    'gelu_tanh',
    'silu',
    'elu',
    'hard_sigmoid',
    'hard_swish',
    'leaky_relu',
    'linear',
    'normalize',
    'prelu',
    'relu',
    'resom',
    'selu',
    'sigmoid',
    'softmax_argmax',
    'softmax_latency',
    'softmax_stable',
    'softplus',
    'som',
    'softsign',
    'tanh',
    'unary_lut',
    'thresholded_relu',
    'topk',
    'router',
    'expert_choice',
    'soft_router',
    'soft_topk',
]
