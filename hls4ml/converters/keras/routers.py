"""The routers of `hls4ml.nn.keras_routers` (docs/moe.md): `SoftTopKRouter` is its gate matrix as a Dense
layer `<name>_gate` (a pointwise Conv1D on (tokens, features)) and one IR SoftTopKRouter layer."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, array_of, handles
from hls4ml.converters.pointwise import pointwise_dense
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.soft_router import check_soft_router

KERAS_ROUTERS_MODULE = 'hls4ml.nn.keras_routers'


def _gate(source: Source, shape: tuple[int, ...]) -> Layer:
    """The gate matrix (and bias) as Dense `<name>_gate`, or a pointwise Conv1D per token."""
    layer = source.layer
    kernel = array_of(layer.kernel)
    bias = np.zeros(layer.num_experts) if layer.bias is None else array_of(layer.bias)
    if len(shape) == 1:
        gate = source.make(Kind.DENSE, n_in=shape[0], n_out=layer.num_experts, weights={'weight': kernel, 'bias': bias})
    else:
        kind, weights, attributes = pointwise_dense(tuple(shape[:-1]), kernel, bias)
        gate = source.make(kind, weights=weights, **attributes)
    gate.name, gate.outputs, gate.source_class = f'{source.name}_gate', [f'{source.name}_gate'], ''
    return gate


@handles('SoftTopKRouter', produces=(Kind.DENSE, Kind.CONV1D, Kind.SOFT_TOPK_ROUTER))
def soft_topk_router(source: Source) -> list[Layer]:
    """The gate, then the SoftTopKRouter (named after the Keras layer), each token routed on its own."""
    if type(source.layer).__module__ != KERAS_ROUTERS_MODULE:
        raise UnsupportedLayer(f'{source.origin}: only the SoftTopKRouter layer of {KERAS_ROUTERS_MODULE} is supported')
    shape = tuple(source.input_shapes[0])
    if len(shape) not in (1, 2):
        raise UnsupportedLayer(f'{source.origin}: SoftTopKRouter of shape {shape} (one vector or (tokens, features))')
    attributes = {'n_in': source.layer.num_experts, **source.layer.settings}
    try:
        check_soft_router(attributes)
    except ValueError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from error
    gate = _gate(source, shape)
    return [gate, source.make(Kind.SOFT_TOPK_ROUTER, inputs=[gate.name], **attributes)]
