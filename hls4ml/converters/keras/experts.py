"""The mixture-of-experts layers of `hls4ml.nn.keras_experts`: SparseMoE, a gate Dense and one IR MoE
layer computing only the routed experts in firmware (docs/moe.md, "Conditional experts"); SoftMoE,
its stages as Dense, Transpose, Softmax, Einsum, Reshape and EinsumDense layers ("Soft MoE")."""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, array_of, handles
from hls4ml.converters.pointwise import pointwise_dense
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.kinds.record import KindRecord

KERAS_EXPERTS_MODULE = 'hls4ml.nn.keras_experts'


@handles('SparseMoE', produces=(Kind.DENSE, Kind.CONV1D, Kind.MOE))
def sparse_moe(source: Source) -> list[Layer]:
    """The gate matrix as a Dense layer `<name>_gate` (a pointwise Conv1D on (tokens, features)), then
    the MoE (named after the Keras layer) reading the features and the gate's logits."""
    layer, shape = source.layer, source.input_shapes[0]
    if type(layer).__module__ != KERAS_EXPERTS_MODULE or len(shape) not in (1, 2):
        raise UnsupportedLayer(
            f'{source.origin}: only {KERAS_EXPERTS_MODULE}.SparseMoE on one vector or (tokens, features) per sample'
        )
    gate_kernel = array_of(layer.gate_kernel)
    gate_bias = np.zeros(layer.num_experts) if layer.gate_bias_weight is None else array_of(layer.gate_bias_weight)
    if len(shape) == 1:
        weights = {'weight': gate_kernel, 'bias': gate_bias}
        gate = source.make(Kind.DENSE, n_in=shape[0], n_out=layer.num_experts, weights=weights)
    else:
        kind, weights, attributes = pointwise_dense(tuple(shape[:-1]), gate_kernel, gate_bias)
        gate = source.make(kind, weights=weights, **attributes)
    gate.name, gate.outputs, gate.source_class = f'{source.name}_gate', [f'{source.name}_gate'], ''
    attributes = {'n_in': shape[-1], 'n_out': layer.units, 'n_experts': layer.num_experts, 'k': layer.k}
    attributes['n_hidden'] = layer.hidden_units or 0
    experts = {'weight': array_of(layer.kernel), 'bias': array_of(layer.bias)}
    if layer.hidden_units:
        experts.update(weight2=array_of(layer.kernel2), bias2=array_of(layer.bias2))
    inputs = [source.inputs[0], gate.name]
    moe = source.make(Kind.MOE, inputs=inputs, weights=experts, renormalize=layer.renormalize, **attributes)
    return [gate, moe]


@handles('SoftMoE', produces=(Kind.CONV1D, Kind.TRANSPOSE, Kind.SOFTMAX, Kind.EINSUM, Kind.RESHAPE, Kind.EINSUM_DENSE))
def soft_moe(source: Source) -> list[Layer]:
    """The stages of docs/moe.md "Soft MoE", each one IR layer `<name>_<stage>`, the last named `<name>`."""
    layer, shape = source.layer, source.input_shapes[0]
    if type(layer).__module__ != KERAS_EXPERTS_MODULE or len(shape) != 2:
        raise UnsupportedLayer(f'{source.origin}: Soft MoE takes one group of tokens (tokens, features) per sample')
    tokens, features = shape
    experts, per_expert, slots = layer.num_experts, layer.slots_per_expert, layer.num_experts * layer.slots_per_expert
    made: list[Layer] = []

    def add(stage: str, kind: KindRecord, inputs: list[str], **attributes: Any) -> str:
        name = f'{source.name}_{stage}' if stage else source.name
        made.append(Source(layer, name, inputs, []).make(kind, inputs=inputs, **attributes))
        made[-1].source_class = '' if stage else made[-1].source_class
        return name

    x = source.inputs[0]
    conv, weights, conv_attributes = pointwise_dense((tokens,), array_of(layer.slots), np.zeros(slots))
    logits = add('logits', conv, [x], weights=weights, **conv_attributes)
    transposed = add('dispatch_transpose', Kind.TRANSPOSE, [logits], perm=(1, 0))
    dispatch = add('dispatch', Kind.SOFTMAX, [transposed], n_in=tokens * slots, n_slice=tokens, axis=-1)
    combine = add('combine', Kind.SOFTMAX, [logits], n_in=tokens * slots, n_slice=slots, axis=-1)
    slot_inputs = add('slot_inputs', Kind.EINSUM, [dispatch, x], equation='mt,td->md')
    grouped = add('slot_groups', Kind.RESHAPE, [slot_inputs], target_shape=(experts, per_expert, features))
    kernel, bias = (
        array_of(layer.kernel),
        np.broadcast_to(array_of(layer.bias)[:, np.newaxis], (experts, per_expert, layer.units)),
    )
    expert_weights = {'weight': kernel, 'bias': np.ascontiguousarray(bias).reshape(-1)}
    dense = {'equation': 'esd,edo->eso', 'kernel_shape': kernel.shape, 'n_out': bias.size}
    outputs = add('experts', Kind.EINSUM_DENSE, [grouped], weights=expert_weights, **dense)
    flat = add('slot_outputs', Kind.RESHAPE, [outputs], target_shape=(slots, layer.units))
    add('', Kind.EINSUM, [combine, flat], equation='tm,mo->to')
    return made
