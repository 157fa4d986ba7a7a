"""Every layer kind of the IR, in one table: its typed variables, weights, config keys and shape rule.

How to add a kind: add a `LayerKind` to `LAYER_KINDS` (group it with its relatives), give it a
shape rule, then a frontend handler that emits it, a reference kernel, and a lowering.
Config keys are the hls4ml 1.x per-layer keys the kind accepts (besides `Precision`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hls4ml.model.ir import Layer

Shape = tuple[int, ...]
COMMON_KEYS = ('Precision', 'Trace')
TABLE_KEYS = ('TableSize', 'ReuseFactor')
DEFAULT_TABLE_PRECISION = 'fixed<18,8,TRN,WRAP,0>'
DEFAULT_SOFTMAX_PRECISION = 'fixed<18,8,RND,SAT,0>'

TABLE_ACTIVATIONS = ('sigmoid', 'tanh', 'softplus', 'softsign', 'elu', 'selu')
LOSSLESS_ACTIVATIONS = ('linear', 'relu')
ACTIVATIONS = (*LOSSLESS_ACTIVATIONS, *TABLE_ACTIVATIONS)
PARAMETRIZED_ACTIVATIONS = ('leaky_relu', 'thresholded_relu', 'elu')
SOFTMAX_IMPLEMENTATIONS = ('stable', 'latency', 'argmax')


@dataclass(frozen=True)
class LayerKind:
    name: str
    type_defaults: dict[str, str]  # typed variable -> default precision ('auto' = inferred by a pass)
    weights: tuple[str, ...]
    config_keys: tuple[str, ...]
    output_shape: Callable[[Layer, list[Shape]], Shape]
    ignored_precisions: tuple[str, ...] = ()  # hls4ml 1.x keys accepted for compatibility, unused here

    def weight_shapes(self, layer: Layer) -> dict[str, Shape]:
        """The shape each weight array must have."""
        if self.name == 'Dense':
            return {
                'weight': (layer.attributes['n_in'], layer.attributes['n_out']),
                'bias': (layer.attributes['n_out'],),
            }
        return {name: (layer.attributes['n_in'],) for name in self.weights}


def _same_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    return inputs[0]


def _input_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    return tuple(layer.attributes['shape'])


def _dense_shape(layer: Layer, inputs: list[Shape]) -> Shape:
    (shape,) = inputs
    if shape[-1] != layer.attributes['n_in']:
        raise ValueError(
            f'{layer.describe()}: input has {shape[-1]} features, the weights expect {layer.attributes["n_in"]}'
        )
    return (*shape[:-1], layer.attributes['n_out'])


LAYER_KINDS: dict[str, LayerKind] = {
    kind.name: kind
    for kind in (
        # sources
        LayerKind('Input', {'result': 'auto'}, (), COMMON_KEYS, _input_shape),
        # matrix products
        LayerKind(
            'Dense',
            {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'},
            ('weight', 'bias'),
            (*COMMON_KEYS, 'ReuseFactor', 'Strategy'),
            _dense_shape,
        ),
        # element-wise normalisation
        LayerKind(
            'BatchNormalization',
            {'result': 'auto', 'scale': 'auto', 'bias': 'auto'},
            ('scale', 'bias'),
            (*COMMON_KEYS, 'ReuseFactor'),
            _same_shape,
        ),
        # activations
        LayerKind(
            'Activation',
            {'result': 'auto', 'table': DEFAULT_TABLE_PRECISION},
            (),
            (*COMMON_KEYS, *TABLE_KEYS),
            _same_shape,
        ),
        LayerKind(
            'ParametrizedActivation',
            {'result': 'auto', 'param': 'auto', 'table': DEFAULT_TABLE_PRECISION},
            (),
            (*COMMON_KEYS, *TABLE_KEYS),
            _same_shape,
        ),
        LayerKind(
            'PReLU',
            {'result': 'auto', 'param': 'auto'},
            ('alpha',),
            (*COMMON_KEYS, 'ReuseFactor'),
            _same_shape,
        ),
        LayerKind(
            'HardActivation',
            {'result': 'auto', 'param': 'auto'},
            (),
            (*COMMON_KEYS, 'ReuseFactor'),
            _same_shape,
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
            _same_shape,
            # hls4ml's softmax has a 'table' and an 'inv_inp' type that this kernel does not use: the
            # sum is kept in accum and indexes inv_table exactly (see docs/kernels.md)
            ignored_precisions=('table', 'inv_inp'),
        ),
    )
}


def kind_of(layer: Layer) -> LayerKind:
    return LAYER_KINDS[layer.kind]
