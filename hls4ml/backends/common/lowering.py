"""Lowering shared by every backend: each IR layer -> a `LayerImpl` (config struct, kernel call, arrays).

One function per layer kind (its `KindLowering` in `kinds.py` names it), computing everything the
templates print. Generated identifiers are index-based (`layer3_out`, `config3`, `w3`,
`layer3_result_t`), so no layer name can collide with another symbol; names appear in comments and
trace keys only. This file holds the products, activations, softmax, top-k and SOM; the other kinds
are in the `lowering_*.py` files beside it.
"""

from __future__ import annotations

import numpy as np

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.lowering_distributed import add_adder_graph
from hls4ml.backends.common.lowering_som import folded_strategy, lower_som_lookup, lower_som_scores
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.backends.common.tables import lower_softmax, lower_table_activation
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import TABLE_ACTIVATIONS, Kind
from hls4ml.model.kinds.activations import softmax_row
from hls4ml.model.types import FixedPrecisionType


def literal(value: float) -> str:
    """A double literal the C++ conversion into a param type quantizes like the Python twin."""
    return repr(float(value))


@lowering(Kind.DENSE, stream='nnet_dense_stream.h')
def lower_dense(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_dense.h', 'nnet::dense_config', 'nnet::dense')
    attributes = layer.attributes
    impl.statics += [
        ('unsigned', 'n_out', str(attributes['n_out'])),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'strategy', f'nnet::{attributes["strategy"]}'),
        ('unsigned', 'reuse_factor', str(attributes['reuse_factor'])),
    ]
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in ('accum', 'weight', 'bias')]
    impl.arguments += [
        context.array(impl, layer, 'w', 'weight', 'weight'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
    ]
    zeros = impl.arrays[0].zeros
    impl.statics.append(('unsigned', 'n_zeros', str(zeros)))
    add_adder_graph(impl, layer, context)
    return impl


@lowering(Kind.BATCH_NORMALIZATION, stream='nnet_activation_stream.h')
def lower_batchnorm(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_batchnorm.h', 'nnet::batchnorm_config', 'nnet::normalize')
    impl.statics += [
        ('unsigned', 'n_scale_bias', str(layer.weights['scale'].size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    impl.typedefs += [
        ('scale_t', context.type_name(layer, 'scale')),
        ('bias_t', context.type_name(layer, 'bias')),
    ]
    impl.arguments += [
        context.array(impl, layer, 's', 'scale', 'scale'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
    ]
    return impl


def _activation_impl(layer: Layer, context: LoweringContext, function: str, header: str) -> LayerImpl:
    impl = context.start(layer, header, 'nnet::activ_config', f'nnet::{function}')
    impl.statics.append(('unsigned', 'io_type', context.io_type))
    if 'param' in layer.types:
        impl.typedefs.append(('param_t', context.type_name(layer, 'param')))
    return impl


@lowering(Kind.ACTIVATION, stream='nnet_activation_stream.h')
def lower_activation(layer: Layer, context: LoweringContext) -> LayerImpl:
    activation = layer.attributes['activation']
    if activation in TABLE_ACTIVATIONS:
        impl = _activation_impl(layer, context, activation, 'nnet_activation_table.h')
        return lower_table_activation(layer, context, impl, activation)
    return _activation_impl(layer, context, activation, 'nnet_activation.h')


@lowering(Kind.UNARY_LUT, stream='nnet_activation_stream.h')
def lower_unary_lut(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = _activation_impl(layer, context, 'unary_lut', 'nnet_activation_table.h')
    return lower_table_activation(layer, context, impl, 'unary_lut')


@lowering(Kind.PARAMETRIZED_ACTIVATION, stream='nnet_activation_stream.h')
def lower_parametrized(layer: Layer, context: LoweringContext) -> LayerImpl:
    activation = layer.attributes['activation']
    if activation == 'elu':
        impl = _activation_impl(layer, context, 'elu', 'nnet_activation_table.h')
        impl.arguments.append(literal(layer.attributes['activ_param']))
        return lower_table_activation(layer, context, impl, 'elu')
    impl = _activation_impl(layer, context, activation, 'nnet_activation.h')
    impl.arguments.append(literal(layer.attributes['activ_param']))
    return impl


@lowering(Kind.PRELU, stream='nnet_activation_stream.h')
def lower_prelu(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = _activation_impl(layer, context, 'prelu', 'nnet_activation.h')
    impl.arguments.append(context.array(impl, layer, 'a', 'alpha', 'param'))
    return impl


@lowering(Kind.HARD_ACTIVATION, stream='nnet_activation_stream.h')
def lower_hard_activation(layer: Layer, context: LoweringContext) -> LayerImpl:
    function = layer.attributes.get('activation', 'hard_sigmoid')
    impl = _activation_impl(layer, context, function, 'nnet_activation.h')
    impl.arguments += [literal(layer.attributes['slope']), literal(layer.attributes['shift'])]
    return impl


@lowering(Kind.SOFTMAX, stream='nnet_activation_stream.h')
def lower_softmax_layer(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_softmax.h', 'nnet::softmax_config', 'nnet::softmax')
    impl.statics.append(('unsigned', 'io_type', context.io_type))
    row = softmax_row(layer)
    if row != layer.attributes['n_in']:  # rows along the last axis (else the kernel's default: one row)
        impl.statics.append(('unsigned', 'n_slice', str(row)))
    return lower_softmax(layer, context, impl)


@lowering(Kind.TOPK, stream='nnet_topk_stream.h')
def lower_topk(layer: Layer, context: LoweringContext) -> LayerImpl:
    impl = context.start(layer, 'nnet_topk.h', 'nnet::topk_config', 'nnet::topk')
    attributes = layer.attributes
    impl.statics += [
        ('unsigned', 'k', str(attributes['k'])),
        ('unsigned', 'n_out', str(context.graph.tensors[layer.outputs[0]].size)),
        ('unsigned', 'output', f'nnet::topk_{attributes["output"]}'),
        ('bool', 'magnitude', 'true' if attributes['magnitude'] else 'false'),
        ('bool', 'largest', 'true' if attributes.get('largest', True) else 'false'),
        ('unsigned', 'io_type', context.io_type),
    ]
    return impl


@lowering(Kind.SOM, stream='nnet_som_stream.h')
def lower_som(layer: Layer, context: LoweringContext) -> LayerImpl:
    """Codebook and labels as constant arrays; without output 'label' the labels are zeros (unused).
    Implementation 'dense': nnet::som_dense with the transposed codebook and biases (`lower_som_scores`)."""
    attributes = layer.attributes
    dense = attributes.get('implementation', 'distance') == 'dense'
    impl = context.start(layer, 'nnet_som.h', 'nnet::som_config', 'nnet::som_dense' if dense else 'nnet::som')
    impl.statics += [
        ('unsigned', 'n_units', str(attributes['n_units'])),
        ('unsigned', 'n_cols', str(attributes['grid'][1])),
        ('unsigned', 'n_out', str(context.graph.tensors[layer.outputs[0]].size)),
        ('unsigned', 'distance', f'nnet::som_{attributes["distance"]}'),
        ('unsigned', 'output', f'nnet::som_{attributes["output"]}'),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'reuse_factor', str(attributes.get('reuse_factor', 1))),
    ]
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in ('accum', 'codebook', 'label')]
    if dense:
        lower_som_scores(layer, context, impl)
    else:
        impl.statics += folded_strategy(layer)
        impl.arguments.append(context.array(impl, layer, 'w', 'codebook', 'codebook'))
    labels = layer.weights.get('labels', np.zeros(attributes['n_units']))
    label_type = layer.types['label']
    assert isinstance(label_type, FixedPrecisionType)
    name = f'l{context.index[layer.name]}'
    where = f"{layer.describe()}, weights 'labels'"
    impl.arrays.append(const_array(name, context.type_name(layer, 'label'), labels, label_type, context.family, where))
    impl.arguments.append(name)
    return lower_som_lookup(layer, context, impl)  # activities, hexagonal coordinates: a fifth array
