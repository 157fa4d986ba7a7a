"""The reference interpreter: runs the IR graph with the numpy reference kernels, bit for bit like
the generated firmware. It is the test oracle for `predict()` and needs no compiler.

    outputs, per_layer = interpret(hls_model, x)        # FixedArray per output and per layer
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hls4ml.model import reference
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.interpreter_spatial import SPATIAL_KERNELS
from hls4ml.model.interpreter_structure import COMBINE_KINDS, MOVE_KINDS, combine, move
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.layers import LOSSLESS_ACTIVATIONS
from hls4ml.model.quantizer import triples_of
from hls4ml.model.reference.resom import layer_setup as resom_setup
from hls4ml.model.reference.soft_topk import layer_soft_topk_types
from hls4ml.model.types import FixedPrecisionType

Kernel = Callable[[Layer, FixedArray, Graph, str], FixedArray]


def _weights(layer: Layer, name: str, var: str, family: str) -> FixedArray:
    return quantize(layer.weights[name].reshape(-1), layer.types[var], family)


def _dense(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    weights = quantize(layer.weights['weight'], layer.types['weight'], family)
    biases = _weights(layer, 'bias', 'bias', family)
    return reference.dense(x, weights, biases, layer.types['accum'], layer.types['result'])


def _batchnorm(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    scale, bias = _weights(layer, 'scale', 'scale', family), _weights(layer, 'bias', 'bias', family)
    return reference.normalize(x, scale, bias, layer.types['result'])


def _tables(layer: Layer, graph: Graph) -> dict:
    source = graph.input_type(layer)
    assert isinstance(source, FixedPrecisionType)
    return layer_tables(layer, source)


def _activation(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    activation, result = layer.attributes['activation'], layer.types['result']
    if activation in LOSSLESS_ACTIVATIONS:
        return getattr(reference, activation)(x, result)
    spec = _tables(layer, graph)['']
    if activation == 'selu':
        return reference.selu(x, layer.types['param'], spec, result)
    return getattr(reference, activation)(x, spec, result)


def _unary_lut(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    return reference.unary_lut(x, _tables(layer, graph)[''], layer.types['result'])


def _parametrized(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    activation, parameter = layer.attributes['activation'], layer.attributes['activ_param']
    param, result = layer.types['param'], layer.types['result']
    if activation == 'elu':
        return reference.elu(x, parameter, param, _tables(layer, graph)[''], result)
    return getattr(reference, activation)(x, parameter, param, result)


def _prelu(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    return reference.prelu(x, _weights(layer, 'alpha', 'param', family), layer.types['result'])


def _quantizer(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    result = layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    return reference.fixed_point_quantizer(x, triples_of(layer), result)


def _hard_activation(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    attributes = layer.attributes
    return reference.hard_sigmoid(
        x, attributes['slope'], attributes['shift'], layer.types['param'], layer.types['result']
    )


def _softmax(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    implementation, result = layer.attributes['implementation'], layer.types['result']
    if implementation == 'argmax':
        return reference.softmax_argmax(x, result)
    tables = _tables(layer, graph)
    if implementation == 'stable':
        max_minus_x = bool(layer.attributes.get('max_minus_x'))  # HGQ2's QSoftmax tables
        return reference.softmax_stable(
            x, tables['exp_'], tables['inv_'], layer.types['accum'], result, max_minus_x=max_minus_x
        )
    return reference.softmax_latency(x, tables['exp_'], tables['inv_'], layer.types['accum'], result)


def _topk(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    attributes = layer.attributes
    return reference.topk(
        x,
        attributes['k'],
        attributes['output'],
        layer.types['result'],
        attributes['magnitude'],
        attributes.get('largest', True),
    )


def _soft_topk(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    attributes, source, result = layer.attributes, graph.input_type(layer), layer.types['result']
    assert isinstance(source, FixedPrecisionType) and isinstance(result, FixedPrecisionType)
    types = layer_soft_topk_types(layer, source)
    return reference.soft_topk(
        x, attributes['k'], attributes['l'], attributes['mode'], attributes['iterations'], types, result
    )


def _expert_choice(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    attributes, tables = layer.attributes, _tables(layer, graph)
    accum, result = layer.types['accum'], layer.types['result']
    return reference.expert_choice(
        x, attributes['n_in'], attributes['capacity'], tables['exp_'], tables['inv_'], accum, result
    )


def _router(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    attributes, tables = layer.attributes, _tables(layer, graph)
    return reference.router(
        x,
        attributes['k'],
        attributes['renormalize'],
        attributes['output'],
        tables['exp_'],
        tables['inv_'],
        layer.types['accum'],
        layer.types['result'],
    )


def _som(layer: Layer, x: FixedArray, graph: Graph, family: str) -> FixedArray:
    codebook = quantize(layer.weights['codebook'], layer.types['codebook'], family)
    labels = _weights(layer, 'labels', 'label', family) if 'labels' in layer.weights else None
    types = layer.types
    return reference.som(x, codebook, labels, layer.attributes, types['accum'], types['result'], types.get('table'))


def _resom(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    types, tables = resom_setup(layer, family)
    names = ('codebook_x', 'codebook_y', 'lateral')
    weights = {name: quantize(layer.weights[name], layer.types[name], family) for name in names}
    weights['labels'] = quantize(layer.weights.get('labels', np.zeros(1)), layer.types['label'], family)
    return reference.resom((inputs[0], inputs[1]), weights, layer.attributes, types, tables)


MULTI_INPUT_KERNELS = {'ReSOM': _resom}  # kernels of several inputs that are not merges

KERNELS: dict[str, Kernel] = {
    **SPATIAL_KERNELS,
    **dict.fromkeys(MOVE_KINDS, move),
    'Dense': _dense,
    'BatchNormalization': _batchnorm,
    'Activation': _activation,
    'UnaryLUT': _unary_lut,
    'ParametrizedActivation': _parametrized,
    'PReLU': _prelu,
    'HardActivation': _hard_activation,
    'FixedPointQuantizer': _quantizer,
    'Softmax': _softmax,
    'SOM': _som,
    'TopK': _topk,
    'SoftTopK': _soft_topk,
    'Router': _router,
    'ExpertChoiceRouter': _expert_choice,
}


def interpret(model: Any, x: Any, family: str | None = None) -> tuple[list[FixedArray], dict[str, FixedArray]]:
    """Outputs (one FixedArray of shape (n, size) per model output) and every layer's output."""
    graph: Graph = model.graph
    family = family or model.backend.family
    arrays = list(x) if isinstance(x, (list, tuple)) and len(graph.inputs) > 1 else [x]
    values: dict[str, FixedArray] = {}
    for tensor, array in zip(graph.inputs, arrays, strict=True):
        layer = graph.producer(tensor)
        flat = np.asarray(array, dtype=np.float64).reshape(len(array), -1)
        values[tensor] = quantize(flat, layer.types['result'], family)
    for layer in graph.layers.values():
        if layer.kind in COMBINE_KINDS:
            values[layer.outputs[0]] = combine(layer, [values[name] for name in layer.inputs], graph, family)
        elif layer.kind in MULTI_INPUT_KERNELS:
            inputs = [values[name] for name in layer.inputs]
            values[layer.outputs[0]] = MULTI_INPUT_KERNELS[layer.kind](layer, inputs, graph, family)
        elif layer.kind != 'Input':
            output = KERNELS[layer.kind](layer, values[layer.inputs[0]], graph, family)
            values.update(dict.fromkeys(layer.outputs, output))  # a Clone's outputs are all the same values
    per_layer = {layer.name: values[layer.outputs[0]] for layer in graph.layers.values()}
    return [values[name] for name in graph.outputs], per_layer
