"""Reference kernels of the IR kinds as the interpreter calls them: `kernel(layer, inputs, graph, family)`.

Each reads the layer's attributes, weights (quantized into their types) and types, and calls the
numpy reference kernel (`hls4ml/model/reference/`) that mirrors its C++ kernel. The kind's record
(`layers.py`) names its kernel; the convolutions and pooling are in `interpreter_spatial.py`, the
layers that move or combine values in `interpreter_structure.py`.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model import reference
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LOSSLESS_ACTIVATIONS
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.quantizer import triples_of
from hls4ml.model.reference.resom import layer_setup as resom_setup
from hls4ml.model.reference.soft_topk import layer_soft_topk_types
from hls4ml.model.types import FixedPrecisionType


def weights_of(layer: Layer, name: str, var: str, family: str) -> FixedArray:
    return quantize(layer.weights[name].reshape(-1), layer.types[var], family)


def dense(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    weights = quantize(layer.weights['weight'], layer.types['weight'], family)
    biases = weights_of(layer, 'bias', 'bias', family)
    return reference.dense(x, weights, biases, layer.types['accum'], layer.types['result'])


def batchnorm(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    scale, bias = weights_of(layer, 'scale', 'scale', family), weights_of(layer, 'bias', 'bias', family)
    return reference.normalize(x, scale, bias, layer.types['result'])


def tables_of(layer: Layer, graph: Graph) -> dict:
    source = graph.input_type(layer)
    assert isinstance(source, FixedPrecisionType)
    return layer_tables(layer, source)


def activation(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    activation, result = layer.attributes['activation'], layer.types['result']
    if activation in LOSSLESS_ACTIVATIONS:
        return getattr(reference, activation)(x, result)
    spec = tables_of(layer, graph)['']
    if activation == 'selu':
        return reference.selu(x, layer.types['param'], spec, result)
    return getattr(reference, activation)(x, spec, result)


def unary_lut(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    return reference.unary_lut(x, tables_of(layer, graph)[''], layer.types['result'])


def parametrized(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    activation, parameter = layer.attributes['activation'], layer.attributes['activ_param']
    param, result = layer.types['param'], layer.types['result']
    if activation == 'elu':
        return reference.elu(x, parameter, param, tables_of(layer, graph)[''], result)
    return getattr(reference, activation)(x, parameter, param, result)


def prelu(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    return reference.prelu(x, weights_of(layer, 'alpha', 'param', family), layer.types['result'])


def quantizer(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    result = layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    return reference.fixed_point_quantizer(x, triples_of(layer), result)


def hard_activation(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes = layer.attributes
    return reference.hard_sigmoid(
        x, attributes['slope'], attributes['shift'], layer.types['param'], layer.types['result']
    )


def softmax(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    implementation, result = layer.attributes['implementation'], layer.types['result']
    if implementation == 'argmax':
        return reference.softmax_argmax(x, result)
    tables = tables_of(layer, graph)
    if implementation == 'stable':
        max_minus_x = bool(layer.attributes.get('max_minus_x'))  # HGQ2's QSoftmax tables
        return reference.softmax_stable(
            x, tables['exp_'], tables['inv_'], layer.types['accum'], result, max_minus_x=max_minus_x
        )
    return reference.softmax_latency(x, tables['exp_'], tables['inv_'], layer.types['accum'], result)


def topk(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes = layer.attributes
    return reference.topk(
        x,
        attributes['k'],
        attributes['output'],
        layer.types['result'],
        attributes['magnitude'],
        attributes.get('largest', True),
    )


def soft_topk(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes, source, result = layer.attributes, graph.input_type(layer), layer.types['result']
    assert isinstance(source, FixedPrecisionType) and isinstance(result, FixedPrecisionType)
    types = layer_soft_topk_types(layer, source)
    return reference.soft_topk(
        x, attributes['k'], attributes['l'], attributes['mode'], attributes['iterations'], types, result
    )


def expert_choice(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes, tables = layer.attributes, tables_of(layer, graph)
    accum, result = layer.types['accum'], layer.types['result']
    return reference.expert_choice(
        x, attributes['n_in'], attributes['capacity'], tables['exp_'], tables['inv_'], accum, result
    )


def router(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    attributes, tables = layer.attributes, tables_of(layer, graph)
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


def som(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    x = inputs[0]
    codebook = quantize(layer.weights['codebook'], layer.types['codebook'], family)
    labels = weights_of(layer, 'labels', 'label', family) if 'labels' in layer.weights else None
    types = layer.types
    return reference.som(x, codebook, labels, layer.attributes, types['accum'], types['result'], types.get('table'))


def resom(layer: Layer, inputs: list[FixedArray], graph: Graph, family: str) -> FixedArray:
    types, tables = resom_setup(layer, family)
    names = ('codebook_x', 'codebook_y', 'lateral')
    weights = {name: quantize(layer.weights[name], layer.types[name], family) for name in names}
    weights['labels'] = quantize(layer.weights.get('labels', np.zeros(1)), layer.types['label'], family)
    return reference.resom((inputs[0], inputs[1]), weights, layer.attributes, types, tables)
