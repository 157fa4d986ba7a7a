"""One handler per Keras 3 layer class: Keras layer -> IR layers.

A handler receives a `Source` (the Keras layer, its IR input tensor names and shapes) and returns
the IR layers it becomes: usually one, two when an activation is fused (`Dense(activation='relu')`
becomes a Dense and an Activation named `<name>_relu`, as in hls4ml), none for layers removed at
conversion (Dropout). Handlers know nothing about backends or C++.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.keras.quantized import dequantized_kernel, quantization_mode
from hls4ml.converters.keras.values import numpy_of
from hls4ml.converters.pointwise import convolution_rows, pointwise_dense
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import ACTIVATIONS, Kind, KindRecord
from hls4ml.model.types import IntegerPrecisionType


class UnsupportedLayer(ValueError):
    """A Keras layer (or one of its settings) that the compiler cannot convert."""


@dataclass
class Source:
    layer: Any  # the Keras layer
    name: str  # its sanitised IR name
    inputs: list[str]  # IR tensor names
    input_shapes: list[tuple[int, ...]]
    config_override: dict[str, Any] | None = None  # for IR layers a handler derives from a part of the Keras layer

    @property
    def config(self) -> dict[str, Any]:
        return self.layer.get_config() if self.config_override is None else self.config_override

    def output_shape(self, layer: Layer) -> tuple[int, ...]:
        """The output shape of an IR layer this source made (its kind's shape rule)."""
        from hls4ml.model.kinds import LAYER_KINDS

        return LAYER_KINDS[layer.kind].output_shape(layer, self.input_shapes)

    @property
    def origin(self) -> str:
        return f"'{self.layer.name}' ({type(self.layer).__name__})"

    def make(self, kind: KindRecord, **attributes: Any) -> Layer:
        weights = attributes.pop('weights', {})
        inputs = attributes.pop('inputs', self.inputs)
        return Layer(
            self.name,
            kind,
            inputs,
            [self.name],
            attributes,
            weights,
            source_name=self.layer.name,
            source_class=type(self.layer).__name__,
        )


Handler = Callable[[Source], list[Layer]]
# The modules that register the rarer classes, imported at the first class not registered yet: an MLP or a CNN
# converts without loading attention, HGQ, the maps, the experts or the recurrent layers. The common ones are
# imported with the package (keras/__init__.py).
LATER = (
    'attention',
    'einsum',
    'experts',
    'gathers',
    'hgq',
    'hgq_tables',
    'preprocessing',
    'recurrent',
    'routers',
    'som',
    'transposed',
)


def register_all() -> None:
    """Import every module that registers handlers (those of `LATER` once; later calls cost a lookup each)."""
    for module in LATER:
        importlib.import_module(f'{__package__}.{module}')


class _Handlers(dict[str, Handler]):
    """Keras class -> handler; a class not registered yet registers the `LATER` modules first."""

    def __missing__(self, class_name: str) -> Handler:
        register_all()
        if not super().__contains__(class_name):
            raise KeyError(class_name)
        return super().__getitem__(class_name)

    def __contains__(self, class_name: object) -> bool:
        if not super().__contains__(class_name):
            register_all()
        return super().__contains__(class_name)


HANDLERS: dict[str, Handler] = _Handlers()
PRODUCES: dict[str, tuple[str, ...]] = {}  # Keras class -> the IR kinds its handler can emit (for docs)
REMOVED = (
    'Dropout',
    'SpatialDropout1D',
    'SpatialDropout2D',
    'GaussianDropout',
    'GaussianNoise',
    'AlphaDropout',
)


def handles(*class_names: str, produces: tuple[str, ...]) -> Callable[[Handler], Handler]:
    """Register `handler` for the Keras classes; `produces` lists the IR kinds it may emit."""

    def register(handler: Handler) -> Handler:
        for class_name in class_names:
            if dict.__contains__(HANDLERS, class_name):  # a second module would replace the first one's handler
                raise ValueError(f'two handlers for the Keras class {class_name!r}: {handler.__module__}')
            HANDLERS[class_name] = handler
            PRODUCES[class_name] = produces
        return handler

    return register


def array_of(variable: Any) -> np.ndarray:
    """A Keras variable as a float64 numpy array."""
    return np.asarray(numpy_of(variable), dtype=np.float64)


@handles('InputLayer', produces=(Kind.INPUT,))
def input_layer(source: Source) -> list[Layer]:
    shape = tuple(source.layer.batch_shape[1:])
    if any(dim is None for dim in shape):
        raise UnsupportedLayer(
            f'{source.origin}: every input dimension must be fixed, got {shape}; '
            'give keras.Input(shape=...) a size for each axis'
        )
    layer = source.make(Kind.INPUT, inputs=[], shape=shape)
    dtype = str(getattr(source.layer, 'dtype', 'float32'))
    if dtype.startswith(('int', 'uint')):  # integer inputs (indices of an Embedding) keep their integer type
        width = int(dtype.removeprefix('u').removeprefix('int'))
        layer.types['result'] = IntegerPrecisionType(width, not dtype.startswith('u'))
    elif dtype == 'bool':  # a mask (MultiHeadAttention's attention_mask): one bit
        layer.types['result'] = IntegerPrecisionType(1, False)
    return [layer]


# the kinds `activation_layers` makes: the `produces` of every handler that calls it
ACTIVATION_KINDS = (Kind.ACTIVATION, Kind.PARAMETRIZED_ACTIVATION, Kind.HARD_ACTIVATION, Kind.SOFTMAX)


def activation_layers(source: Source, name: str) -> list[Layer]:
    n_in = int(np.prod(source.input_shapes[0]))
    if name == 'elu':  # the elu kernels take their alpha: Keras' 'elu' is alpha 1
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='elu', n_in=n_in, activ_param=1.0)]
    if name in ACTIVATIONS:
        return [source.make(Kind.ACTIVATION, activation=name, n_in=n_in)]
    if name == 'softmax':
        return softmax_layers(source, -1)
    if name == 'leaky_relu':
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='leaky_relu', n_in=n_in, activ_param=0.2)]
    if name in ('hard_sigmoid', 'hard_silu', 'hard_swish'):  # gate relu6(x + 3) / 6; hard_silu is x * gate
        function = 'hard_sigmoid' if name == 'hard_sigmoid' else 'hard_swish'
        return [source.make(Kind.HARD_ACTIVATION, activation=function, n_in=n_in, slope=1 / 6, shift=0.5)]
    if name == 'relu6':
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='clipped_relu', n_in=n_in, activ_param=6.0)]
    raise UnsupportedLayer(f"{source.origin}: activation '{name}' is not supported")


@handles('Dense', produces=(Kind.DENSE, Kind.CONV1D, Kind.CONV2D, Kind.RESHAPE, *ACTIVATION_KINDS))
def dense(source: Source) -> list[Layer]:
    if quantization_mode(source.layer) is None:
        kernel = array_of(source.layer.kernel)
    else:  # weight-only int8 / int4 (the other modes are refused before any handler runs)
        kernel = dequantized_kernel(source.layer)
    n_out = kernel.shape[1]
    bias = array_of(source.layer.bias) if source.layer.use_bias else np.zeros(n_out)
    return dense_layers(source, kernel, bias, source.config['activation'])


def dense_layers(source: Source, kernel: np.ndarray, bias: np.ndarray, activation: Any = 'linear') -> list[Layer]:
    """A Dense on a vector; on a tensor of higher rank, Keras applies it along the last axis: the
    pointwise convolution of `converters/pointwise.py`, between two Reshapes for 3 or more row axes.
    The layer named after the Keras layer is the product, so its LayerName entry reaches it."""
    shape = source.input_shapes[0]
    n_out = kernel.shape[1]
    if len(shape) == 1:
        layer = source.make(Kind.DENSE, n_in=shape[0], n_out=n_out, weights={'weight': kernel, 'bias': bias})
        return [layer, *fused_activation(source, activation, (n_out,))]
    rows = convolution_rows(tuple(shape[:-1]))
    kind, weights, attributes = pointwise_dense(rows, kernel, bias)
    before: list[Layer] = []
    inputs = source.inputs
    if rows != tuple(shape[:-1]):
        flat = Source(source.layer, f'{source.name}_rows', source.inputs, source.input_shapes)
        before = [_own_layer(flat.make(Kind.RESHAPE, target_shape=(*rows, shape[-1])))]
        inputs = [flat.name]
    product = source.make(kind, inputs=inputs, weights=weights, **attributes)
    after = fused_activation(source, activation, (*rows, n_out))
    if rows == tuple(shape[:-1]):
        return [*before, product, *after]
    last = after[-1].name if after else source.name
    restore = Source(source.layer, f'{source.name}_unrows', [last], [(*rows, n_out)])
    return [*before, product, *after, _own_layer(restore.make(Kind.RESHAPE, target_shape=(*shape[:-1], n_out)))]


def _own_layer(layer: Layer) -> Layer:
    """A layer a handler adds beside the one named after the Keras layer: its LayerType and LayerName
    entries (a Dense's Strategy, say) are not for this layer."""
    layer.source_class = ''
    return layer


def fused_activation(source: Source, activation: Any, shape: tuple[int, ...]) -> list[Layer]:
    """The activation layer that follows a layer with `activation=` set, named `<name>_<activation>`."""
    name = _activation_name(source, activation)
    if name == 'linear':
        return []
    follower = Source(source.layer, f'{source.name}_{name}', [source.name], [shape])
    # a layer of its own: LayerType / LayerName entries of the Keras layer do not apply
    return [_own_layer(layer) for layer in activation_layers(follower, name)]


def _activation_name(source: Source, activation: Any) -> str:
    if isinstance(activation, str):
        return activation
    if isinstance(activation, dict) and isinstance(activation.get('config'), str):
        return activation['config']
    name = getattr(activation, '__name__', None)
    if name:
        return name
    raise UnsupportedLayer(f'{source.origin}: activation {activation!r} is not supported')


@handles('Activation', produces=ACTIVATION_KINDS)
def activation(source: Source) -> list[Layer]:
    return activation_layers(source, _activation_name(source, source.config['activation']))


@handles('ReLU', produces=(Kind.ACTIVATION, Kind.PARAMETRIZED_ACTIVATION))
def relu(source: Source) -> list[Layer]:
    """Keras' ReLU(max_value, negative_slope, threshold) with at most one of the three set; max_value
    alone is a clipped relu (relu6 is max_value=6)."""
    config = source.config
    ceiling = config.get('max_value')
    slope, threshold = float(config.get('negative_slope') or 0), float(config.get('threshold') or 0)
    if sum(bool(value) for value in (ceiling is not None, slope, threshold)) > 1:
        raise UnsupportedLayer(
            f'{source.origin}: ReLU(max_value={ceiling}, negative_slope={slope}, threshold={threshold}) is not '
            'supported: set at most one of the three (or split the layer)'
        )
    n_in = int(np.prod(source.input_shapes[0]))
    if ceiling is not None:
        if float(ceiling) <= 0:
            raise UnsupportedLayer(f'{source.origin}: ReLU(max_value={ceiling}) must have a positive max_value')
        return [
            source.make(Kind.PARAMETRIZED_ACTIVATION, activation='clipped_relu', n_in=n_in, activ_param=float(ceiling))
        ]
    if slope:
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='leaky_relu', n_in=n_in, activ_param=slope)]
    if threshold:
        return [
            source.make(Kind.PARAMETRIZED_ACTIVATION, activation='thresholded_relu', n_in=n_in, activ_param=threshold)
        ]
    return activation_layers(source, 'relu')


@handles('LeakyReLU', produces=(Kind.PARAMETRIZED_ACTIVATION,))
def leaky_relu(source: Source) -> list[Layer]:
    slope = float(source.config['negative_slope'])
    n_in = int(np.prod(source.input_shapes[0]))
    return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='leaky_relu', n_in=n_in, activ_param=slope)]


@handles('ELU', produces=(Kind.PARAMETRIZED_ACTIVATION,))
def elu(source: Source) -> list[Layer]:
    n_in = int(np.prod(source.input_shapes[0]))
    return [
        source.make(
            Kind.PARAMETRIZED_ACTIVATION, activation='elu', n_in=n_in, activ_param=float(source.config['alpha'])
        )
    ]


@handles('PReLU', produces=(Kind.PRELU,))
def prelu(source: Source) -> list[Layer]:
    shape = source.input_shapes[0]
    alpha = np.broadcast_to(array_of(source.layer.alpha), shape).reshape(-1).copy()
    return [source.make(Kind.PRELU, n_in=int(np.prod(shape)), weights={'alpha': alpha})]


@handles('Softmax', produces=(Kind.SOFTMAX, Kind.TRANSPOSE))
def softmax(source: Source) -> list[Layer]:
    axis = source.config.get('axis', -1)
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    if len(axes) != 1:
        raise UnsupportedLayer(f'{source.origin}: softmax over several axes {axis} is not supported (one axis)')
    return softmax_layers(source, int(axes[0]))


def softmax_layers(source: Source, axis: int) -> list[Layer]:
    """Softmax over `axis` (of the sample, Keras counts the batch axis: 1 is the first): rows of the
    last axis (attribute n_slice); another axis is moved last by a Transpose and back by another."""
    shape = source.input_shapes[0]
    position = axis % (len(shape) + 1) - 1 if axis >= 0 else axis % len(shape)
    if not 0 <= position < len(shape):
        raise UnsupportedLayer(f'{source.origin}: softmax over axis {axis} (the batch axis) is not supported')
    row = {'n_in': int(np.prod(shape)), 'n_slice': shape[position], 'axis': -1}
    if position == len(shape) - 1:
        return [source.make(Kind.SOFTMAX, **row)]
    if len(shape) > 3:
        raise UnsupportedLayer(
            f'{source.origin}: softmax over axis {axis} of a {len(shape)}-D tensor is not supported (any axis of '
            'a tensor of up to 3 axes, or the last axis)'
        )
    perm = tuple(index for index in range(len(shape)) if index != position) + (position,)
    moved = Source(source.layer, f'{source.name}_axis_last', source.inputs, source.input_shapes)
    before = _own_layer(moved.make(Kind.TRANSPOSE, perm=perm))
    middle = source.make(Kind.SOFTMAX, inputs=[moved.name], **row)
    back = Source(source.layer, f'{source.name}_axis_back', [source.name], [tuple(shape[i] for i in perm)])
    restore = tuple(perm.index(index) for index in range(len(shape)))
    return [before, middle, _own_layer(back.make(Kind.TRANSPOSE, perm=restore))]


@handles('BatchNormalization', produces=(Kind.BATCH_NORMALIZATION,))
def batch_normalization(source: Source) -> list[Layer]:
    """Per-element scale and shift; the statistics lie along one axis (the last, or the channels of a
    channels-first tensor: axis=1), broadcast over the others."""
    layer, config, shape = source.layer, source.config, source.input_shapes[0]
    axes = config.get('axis', -1)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    if len(axes) != 1 or not -len(shape) <= int(axes[0]) <= len(shape) or int(axes[0]) == 0:
        raise UnsupportedLayer(f'{source.origin}: batch normalization over axis {config.get("axis")} is not supported')
    along = [1] * len(shape)
    along[int(axes[0]) - 1 if int(axes[0]) > 0 else int(axes[0])] = -1  # Keras counts the batch axis as 0
    n_in = int(np.prod(shape))
    mean = array_of(layer.moving_mean)
    variance = array_of(layer.moving_variance)
    gamma = array_of(layer.gamma) if config.get('scale', True) else np.ones_like(mean)
    beta = array_of(layer.beta) if config.get('center', True) else np.zeros_like(mean)
    scale = gamma / np.sqrt(variance + float(config['epsilon']))
    bias = beta - mean * scale
    per_element = {
        'scale': np.broadcast_to(scale.reshape(along), shape).reshape(-1).copy(),
        'bias': np.broadcast_to(bias.reshape(along), shape).reshape(-1).copy(),
    }
    return [source.make(Kind.BATCH_NORMALIZATION, n_in=n_in, weights=per_element)]


@handles('LayerNormalization', produces=(Kind.LAYER_NORMALIZATION,))
def layer_normalization(source: Source) -> list[Layer]:
    """Over the last axis, with epsilon, center (beta) and scale (gamma); docs/sequence.md."""
    layer, config, shape = source.layer, source.config, source.input_shapes[0]
    axes = config.get('axis', -1)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    if [axis % (len(shape) + 1) for axis in axes] != [len(shape)]:
        raise UnsupportedLayer(
            f'{source.origin}: layer normalization over axis {config.get("axis")} of inputs of shape {shape} is not '
            'supported (only the last axis, axis=-1)'
        )
    if config.get('rms_scaling'):
        raise UnsupportedLayer(f'{source.origin}: rms_scaling=True is not supported (the mean is subtracted)')
    n = shape[-1]
    gamma = array_of(layer.gamma) if config.get('scale', True) else np.ones(n)
    beta = array_of(layer.beta) if config.get('center', True) else np.zeros(n)
    attributes = {'n_in': int(np.prod(shape)), 'n_slice': n, 'epsilon': float(config.get('epsilon', 1e-3))}
    return [source.make(Kind.LAYER_NORMALIZATION, weights={'scale': gamma, 'bias': beta}, **attributes)]


@handles('Embedding', produces=(Kind.EMBEDDING,))
def embedding(source: Source) -> list[Layer]:
    """Integer indices -> rows of the table (docs/sequence.md: an index outside the table gives zeros)."""
    config, shape = source.config, source.input_shapes[0]
    if config.get('mask_zero'):
        raise UnsupportedLayer(
            f'{source.origin}: mask_zero=True is not supported (the mask would change what later layers compute)'
        )
    table = array_of(source.layer.embeddings)
    n_vocab, n_dim = table.shape
    attributes = {'n_in': int(np.prod(shape)), 'n_vocab': n_vocab, 'n_dim': n_dim}
    return [source.make(Kind.EMBEDDING, weights={'embeddings': table}, **attributes)]
