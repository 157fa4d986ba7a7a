"""Matrix products and convolutions: sums of products of the input with weights (Dot: with a second
input). Each kind is one block of `Products`: its rules, its reference kernel, its record."""

from __future__ import annotations

from hls4ml.model import reference
from hls4ml.model import shape_rules as shapes
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds.record import COMMON_KEYS, PRODUCT_KEYS, PRODUCT_SETTINGS, KindRecord, weights_of
from hls4ml.model.pass_context import PassContext
from hls4ml.model.precision_rules import affine_types, magnitude, set_sum_types, sum_type, two_input_types
from hls4ml.model.reference import merge

PRODUCT_TYPES = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}
CONV_KEYS = (*PRODUCT_KEYS, 'ParallelizationFactor')
CONV_SETTINGS = (*PRODUCT_SETTINGS, 'parallelization_factor')


def product_types(graph: Graph, layer: Layer, context: PassContext) -> None:
    """Dense and the convolutions: weights fitted to their values, overflow-free accumulator and result."""
    affine_types(graph, layer, context, 'weight', summed=True)


def _pads(layer: Layer) -> tuple[int, ...]:
    two_d = 'in_height' in layer.attributes
    names = ('pad_top', 'pad_bottom', 'pad_left', 'pad_right') if two_d else ('pad_left', 'pad_right')
    return tuple(layer.attributes[name] for name in names)


def _convolve(layer: Layer, x: FixedArray, family: str, depthwise: bool) -> FixedArray:
    """conv1d/conv2d or their depthwise forms (a depthwise kernel gets its depth multiplier 1 axis)."""
    attributes, kernel = layer.attributes, layer.weights['weight']
    if depthwise:
        kernel = kernel.reshape(*kernel.shape, 1)  # (window..., n_chan, depth multiplier 1)
    weights = quantize(kernel, layer.types['weight'], family)
    biases = quantize(layer.weights['bias'], layer.types['bias'], family)
    two_d = 'in_height' in attributes
    name = ('depthwise_' if depthwise else '') + ('conv2d' if two_d else 'conv1d')
    geometry = (
        {
            'in_height': attributes.get('in_height'),
            'in_width': attributes['in_width'],
            'strides': (attributes.get('stride_height', 1), attributes['stride_width']),
        }
        if two_d
        else {'stride': attributes['stride_width']}
    )
    types = layer.types
    kernel_function = getattr(reference, name)
    return kernel_function(x, weights, biases, types['accum'], types['result'], padding=_pads(layer), **geometry)


def convolution(name: str, rank: int, depthwise: bool = False) -> KindRecord:
    """A convolution (channels last; 'same' padding is explicit in the pad_* attributes)."""

    def run(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        return _convolve(layer, inputs[0], family, depthwise)

    return KindRecord(
        name,
        types=PRODUCT_TYPES,
        config_keys=CONV_KEYS,
        output_shape=shapes.spatial_shape('n_filt', rank),
        precision_rule=product_types,
        reference=run,
        weights=('weight', 'bias'),
        settings=CONV_SETTINGS,
        weight_shapes=shapes.conv_weights(rank, depthwise),
    )


class Products:
    """The matrix products and convolutions (`Kind` inherits them)."""

    # ---- Dense: y = x W + b ------------------------------------------------------------------------

    @staticmethod
    def _dense_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        weights = quantize(layer.weights['weight'], layer.types['weight'], family)
        biases = weights_of(layer, 'bias', 'bias', family)
        return reference.dense(inputs[0], weights, biases, layer.types['accum'], layer.types['result'])

    DENSE = KindRecord(
        'Dense',
        types=PRODUCT_TYPES,
        config_keys=PRODUCT_KEYS,
        output_shape=shapes.dense_shape,
        precision_rule=product_types,
        reference=_dense_reference,
        weights=('weight', 'bias'),
        settings=PRODUCT_SETTINGS,
        weight_shapes=shapes.dense_weights,
    )

    # ---- Dot: the dot product of two vectors (n_in values each) -------------------------------------

    @staticmethod
    def _dot_types(graph: Graph, layer: Layer, context: PassContext) -> None:
        operands = two_input_types(graph, layer)
        if operands is None:
            return
        first, second = operands
        bound = layer.attributes['n_in'] * magnitude(first) * magnitude(second)
        signed = first.signed or second.signed
        set_sum_types(layer, sum_type(first.fractional + second.fractional, bound, signed, context))

    @staticmethod
    def _dot_reference(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
        first, second = inputs
        return merge.dot1d(first, second, layer.types['accum'], layer.types['result'])

    DOT = KindRecord(
        'Dot',
        types={'result': 'auto', 'accum': 'auto'},
        config_keys=COMMON_KEYS,
        output_shape=shapes.dot_shape,
        precision_rule=_dot_types,
        reference=_dot_reference,
    )

    # ---- convolutions (channels last; 'same' padding is explicit in pad_* attributes) ---------------
    CONV1D = convolution('Conv1D', 1)
    CONV2D = convolution('Conv2D', 2)
    DEPTHWISE_CONV1D = convolution('DepthwiseConv1D', 1, depthwise=True)
    DEPTHWISE_CONV2D = convolution('DepthwiseConv2D', 2, depthwise=True)
