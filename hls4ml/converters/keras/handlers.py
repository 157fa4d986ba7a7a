"""One handler per Keras 3 layer class: Keras layer -> IR layers.

A handler receives a `Source` (the Keras layer, its IR input tensor names and shapes) and returns
the IR layers it becomes: usually one, two when an activation is fused (`Dense(activation='relu')`
becomes a Dense and an Activation named `<name>_relu`, as in hls4ml), none for layers removed at
conversion (Dropout). Handlers know nothing about backends or C++.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.converters.keras.quantized import dequantized_kernel, quantization_mode
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import ACTIVATIONS, Kind, KindRecord


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
HANDLERS: dict[str, Handler] = {}
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
            HANDLERS[class_name] = handler
            PRODUCES[class_name] = produces
        return handler

    return register


def array_of(variable: Any) -> np.ndarray:
    """A Keras variable as a float64 numpy array."""
    import keras

    return np.asarray(keras.ops.convert_to_numpy(variable), dtype=np.float64)


def _features(source: Source) -> int:
    shape = source.input_shapes[0]
    if len(shape) != 1:
        raise UnsupportedLayer(f'{source.origin}: inputs of shape {shape} are not supported yet (only 1-D features)')
    return shape[0]


@handles('InputLayer', produces=(Kind.INPUT,))
def input_layer(source: Source) -> list[Layer]:
    shape = tuple(source.layer.batch_shape[1:])
    if any(dim is None for dim in shape):
        raise UnsupportedLayer(
            f'{source.origin}: every input dimension must be fixed, got {shape}; '
            'give keras.Input(shape=...) a size for each axis'
        )
    return [source.make(Kind.INPUT, inputs=[], shape=shape)]


# the kinds `activation_layers` makes: the `produces` of every handler that calls it
ACTIVATION_KINDS = (Kind.ACTIVATION, Kind.PARAMETRIZED_ACTIVATION, Kind.HARD_ACTIVATION, Kind.SOFTMAX)


def activation_layers(source: Source, name: str) -> list[Layer]:
    n_in = int(np.prod(source.input_shapes[0]))
    if name == 'elu':  # the elu kernels take their alpha: Keras' 'elu' is alpha 1
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='elu', n_in=n_in, activ_param=1.0)]
    if name in ACTIVATIONS:
        return [source.make(Kind.ACTIVATION, activation=name, n_in=n_in)]
    if name == 'softmax':
        if len(source.input_shapes[0]) != 1:
            raise UnsupportedLayer(
                f'{source.origin}: softmax of a tensor of shape {source.input_shapes[0]} is not supported yet '
                '(only 1-D inputs)'
            )
        return [source.make(Kind.SOFTMAX, n_in=n_in, axis=-1)]
    if name == 'leaky_relu':
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='leaky_relu', n_in=n_in, activ_param=0.2)]
    if name in ('hard_sigmoid', 'hard_silu', 'hard_swish'):  # gate relu6(x + 3) / 6; hard_silu is x * gate
        function = 'hard_sigmoid' if name == 'hard_sigmoid' else 'hard_swish'
        return [source.make(Kind.HARD_ACTIVATION, activation=function, n_in=n_in, slope=1 / 6, shift=0.5)]
    if name == 'relu6':
        return [source.make(Kind.PARAMETRIZED_ACTIVATION, activation='clipped_relu', n_in=n_in, activ_param=6.0)]
    raise UnsupportedLayer(f"{source.origin}: activation '{name}' is not supported")


@handles('Dense', produces=(Kind.DENSE, *ACTIVATION_KINDS))
def dense(source: Source) -> list[Layer]:
    n_in = _features(source)
    if quantization_mode(source.layer) is None:
        kernel = array_of(source.layer.kernel)
    else:  # weight-only int8 / int4 (the other modes are refused before any handler runs)
        kernel = dequantized_kernel(source.layer)
    n_out = kernel.shape[1]
    bias = array_of(source.layer.bias) if source.layer.use_bias else np.zeros(n_out)
    layer = source.make(Kind.DENSE, n_in=n_in, n_out=n_out, weights={'weight': kernel, 'bias': bias})
    return [layer, *fused_activation(source, source.config['activation'], (n_out,))]


def fused_activation(source: Source, activation: Any, shape: tuple[int, ...]) -> list[Layer]:
    """The activation layer that follows a layer with `activation=` set, named `<name>_<activation>`."""
    name = _activation_name(source, activation)
    if name == 'linear':
        return []
    follower = Source(source.layer, f'{source.name}_{name}', [source.name], [shape])
    layers = activation_layers(follower, name)
    for layer in layers:  # a layer of its own: LayerType / LayerName entries of the Keras layer do not apply
        layer.source_class = ''
    return layers


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


@handles('Softmax', produces=(Kind.SOFTMAX,))
def softmax(source: Source) -> list[Layer]:
    axis = source.config.get('axis', -1)
    if axis not in (-1, len(source.input_shapes[0])) and axis != [-1]:
        raise UnsupportedLayer(f'{source.origin}: softmax over axis {axis} is not supported (only the last axis)')
    return activation_layers(source, 'softmax')


@handles('BatchNormalization', produces=(Kind.BATCH_NORMALIZATION,))
def batch_normalization(source: Source) -> list[Layer]:
    layer, config = source.layer, source.config
    if config.get('axis') not in (-1, [-1], len(source.input_shapes[0])):
        raise UnsupportedLayer(f'{source.origin}: batch normalization over axis {config.get("axis")} is not supported')
    n_in = int(np.prod(source.input_shapes[0]))
    mean = array_of(layer.moving_mean)
    variance = array_of(layer.moving_variance)
    gamma = array_of(layer.gamma) if config.get('scale', True) else np.ones_like(mean)
    beta = array_of(layer.beta) if config.get('center', True) else np.zeros_like(mean)
    scale = gamma / np.sqrt(variance + float(config['epsilon']))
    bias = beta - mean * scale
    per_element = {
        'scale': np.broadcast_to(scale, source.input_shapes[0]).reshape(-1).copy(),
        'bias': np.broadcast_to(bias, source.input_shapes[0]).reshape(-1).copy(),
    }
    return [source.make(Kind.BATCH_NORMALIZATION, n_in=n_in, weights=per_element)]
