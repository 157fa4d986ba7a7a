"""Lowering of the sequence kinds (`hls4ml/model/kinds/sequence.py`): layer normalization, embedding."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.sequence import LAYERNORM_INTERNALS


@lowering(Kind.LAYER_NORMALIZATION, stream='nnet_layernorm_stream.h')
def lower_layernorm(layer: Layer, context: LoweringContext) -> LayerImpl:
    """Scale and bias as constant arrays, eps * n**4 as a double argument written into variance_t (the
    kernel's V = n Q + eps n**4, nnet_layernorm.h)."""
    impl = context.start(layer, 'nnet_layernorm.h', 'nnet::layernorm_config', 'nnet::layernorm')
    n_slice = layer.attributes['n_slice']
    impl.statics += [
        ('unsigned', 'n_slice', str(n_slice)),
        ('unsigned', 'io_type', context.io_type),
        ('unsigned', 'reuse_factor', str(layer.attributes.get('reuse_factor', 1))),
    ]
    variables = (*LAYERNORM_INTERNALS, 'scale', 'bias')
    impl.typedefs += [(f'{var}_t', context.type_name(layer, var)) for var in variables]
    impl.arguments += [
        context.array(impl, layer, 's', 'scale', 'scale'),
        context.array(impl, layer, 'b', 'bias', 'bias'),
        repr(float(layer.attributes['epsilon'] * n_slice**4)),
    ]
    return impl


@lowering(Kind.EMBEDDING, stream='nnet_embedding_stream.h')
def lower_embedding(layer: Layer, context: LoweringContext) -> LayerImpl:
    """The table as one constant array (a ROM), flat row by row."""
    impl = context.start(layer, 'nnet_embedding.h', 'nnet::embedding_config', 'nnet::embedding')
    impl.statics += [
        ('unsigned', 'n_vocab', str(layer.attributes['n_vocab'])),
        ('unsigned', 'n_dim', str(layer.attributes['n_dim'])),
        ('unsigned', 'io_type', context.io_type),
    ]
    impl.typedefs.append(('embeddings_t', context.type_name(layer, 'embeddings')))
    impl.arguments.append(context.array(impl, layer, 'e', 'embeddings', 'embeddings'))
    return impl
