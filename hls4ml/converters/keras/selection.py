"""Selection: `keras.ops.top_k(x, k, sorted=True)` (an operation of class TopK in a functional model), the
same after a softmax as a router (router_pattern.py), and the layers of `hls4ml.nn.keras_moe`
(TopKRouter, ExpertChoiceRouter, SparseSoftTopK).

Keras returns (values, indices); the IR has one output per layer, so the handler emits a values
layer (named after the operation) and an indices layer (`<name>_indices`), and the parser drops
whichever the model does not read. Ties: the lower index first, as in Keras and TensorFlow.
"""

from __future__ import annotations

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, array_of, handles
from hls4ml.converters.pointwise import pointwise_dense
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.reference.soft_topk import SOFT_TOPK_P_CHOICES, check_strength, soft_topk_power


@handles('TopK', produces=(Kind.TOPK,))
def top_k(source: Source) -> list[Layer]:
    """Both outputs, in Keras's output order (the parser maps output tensor i to layer i)."""
    shape, k = source.input_shapes[0], int(source.layer.k)
    if len(shape) != 1:
        raise UnsupportedLayer(f'{source.origin}: top_k of shape {shape} is not supported (only vectors)')
    if not 1 <= k <= shape[0]:
        raise UnsupportedLayer(f'{source.origin}: k={k} must be between 1 and {shape[0]}')
    attributes = {'n_in': shape[0], 'k': k, 'magnitude': False}
    values = source.make(Kind.TOPK, output='values', **attributes)
    indices = source.make(Kind.TOPK, output='indices', **attributes)
    indices.name, indices.outputs = f'{source.name}_indices', [f'{source.name}_indices']
    return [values, indices]


def router_outputs(source: Source, renormalize: bool) -> list[Layer]:
    """A top-k of softmax probabilities matched as a router (router_pattern.py), its input the logits:
    Router layers for the weights and the indices, in Keras's output order, named as top_k's."""
    shape, k = source.input_shapes[0], int(source.layer.k)
    if len(shape) != 1 or not 1 <= k <= shape[0]:
        raise UnsupportedLayer(f'{source.origin}: a router with k={k} over logits of shape {shape} (only vectors)')
    attributes = {'n_in': shape[0], 'k': k, 'renormalize': renormalize}
    weights = source.make(Kind.ROUTER, output='weights', **attributes)
    indices = source.make(Kind.ROUTER, output='indices', **attributes)
    indices.name, indices.outputs = f'{source.name}_indices', [f'{source.name}_indices']
    return [weights, indices]


KERAS_MOE_MODULE = 'hls4ml.nn.keras_moe'


def _moe_layer(source: Source, what: str, rank: int | tuple[int, ...] = 1) -> tuple[int, ...]:
    """The input shape of one of the `hls4ml.nn.keras_moe` layers (only theirs, of the given rank(s))."""
    if type(source.layer).__module__ != KERAS_MOE_MODULE:
        raise UnsupportedLayer(f'{source.origin}: only the {what} layer of {KERAS_MOE_MODULE} is supported')
    shape = source.input_shapes[0]
    if len(shape) not in ((rank,) if isinstance(rank, int) else rank):
        expected = {1: 'one vector', 2: '(tokens, experts)', (1, 2): 'one vector or (tokens, features)'}[rank]
        raise UnsupportedLayer(f'{source.origin}: {what} of shape {shape} is not supported ({expected} per sample)')
    return shape


@handles('TopKRouter', produces=(Kind.DENSE, Kind.CONV1D, Kind.ROUTER))
def topk_router(source: Source) -> list[Layer]:
    """The gate matrix as a Dense layer `<name>_gate` (a pointwise Conv1D on (tokens, features)), then
    the Router (named after the Keras layer), each token routed on its own."""
    shape = _moe_layer(source, 'TopKRouter', rank=(1, 2))
    layer = source.layer
    kernel = array_of(layer.kernel)
    bias = np.zeros(layer.num_experts) if layer.bias is None else array_of(layer.bias)
    if len(shape) == 1:
        gate = source.make(Kind.DENSE, n_in=shape[0], n_out=layer.num_experts, weights={'weight': kernel, 'bias': bias})
    else:
        kind, weights, attributes = pointwise_dense(tuple(shape[:-1]), kernel, bias)
        gate = source.make(kind, weights=weights, **attributes)
    gate.name, gate.outputs, gate.source_class = f'{source.name}_gate', [f'{source.name}_gate'], ''
    attributes = {'n_in': layer.num_experts, 'k': layer.k, 'renormalize': layer.renormalize}
    if getattr(layer, 'capacity', 0):
        attributes['capacity'] = layer.capacity
    if getattr(layer, 'sinkhorn_iterations', 0):
        attributes['sinkhorn_iterations'] = layer.sinkhorn_iterations
    router = source.make(Kind.ROUTER, inputs=[gate.name], output=layer.output_mode, **attributes)
    return [gate, router]


@handles('SparseSoftTopK', produces=(Kind.SOFT_TOPK,))
def sparse_soft_topk(source: Source) -> list[Layer]:
    """One SoftTopK layer (any positive l; p = 2, or 4/3 with mode 'mask')."""
    (n_in,) = _moe_layer(source, 'SparseSoftTopK')
    layer = source.layer
    if not 1 <= layer.k <= n_in:
        raise UnsupportedLayer(f'{source.origin}: k={layer.k} must be between 1 and {n_in}')
    try:
        strength = check_strength(layer.l)
    except ValueError as error:
        raise UnsupportedLayer(f'{source.origin}: {error}') from error
    if soft_topk_power(layer.p, layer.mode) is None:
        raise UnsupportedLayer(f'{source.origin}: p={layer.p} with mode {layer.mode!r}: {SOFT_TOPK_P_CHOICES}')
    attributes = {'n_in': n_in, 'k': layer.k, 'l': strength, 'mode': layer.mode, 'iterations': layer.iterations}
    return [source.make(Kind.SOFT_TOPK, p=2.0 if soft_topk_power(layer.p, layer.mode) == 1 else 4 / 3, **attributes)]


@handles('ExpertChoiceRouter', produces=(Kind.EXPERT_CHOICE_ROUTER,))
def expert_choice_router(source: Source) -> list[Layer]:
    """One ExpertChoiceRouter layer over the (tokens, experts) logits of a group."""
    tokens, experts = _moe_layer(source, 'ExpertChoiceRouter', rank=2)
    capacity = source.layer.capacity
    if not 1 <= capacity <= tokens:
        raise UnsupportedLayer(f'{source.origin}: capacity={capacity} must be between 1 and the {tokens} tokens')
    soft = {'l': source.layer.l, 'iterations': source.layer.iterations} if getattr(source.layer, 'l', 0) else {}
    if soft and getattr(source.layer, 'p', 2.0) != 2:
        soft['p'] = source.layer.p  # the shape rule refuses a p the kernels do not compute
    return [source.make(Kind.EXPERT_CHOICE_ROUTER, n_tokens=tokens, n_in=experts, capacity=capacity, **soft)]


@handles('Absolute', produces=(Kind.BATCH_NORMALIZATION, Kind.MERGE))
def absolute(source: Source) -> list[Layer]:
    """`keras.ops.abs(x)` as max(x, -x): a negation `<name>_negated` and a maximum, both exact, so that
    top-k by magnitude (`keras.ops.top_k(keras.ops.abs(x), k)`) converts."""
    size = int(np.prod(source.input_shapes[0]))
    weights = {'scale': -np.ones(size), 'bias': np.zeros(size)}
    negated = source.make(Kind.BATCH_NORMALIZATION, n_in=size, weights=weights)
    negated.name, negated.outputs, negated.source_class = f'{source.name}_negated', [f'{source.name}_negated'], ''
    return [negated, source.make(Kind.MERGE, inputs=[source.inputs[0], negated.name], op='maximum')]
