"""The mixture-of-experts layers of `hls4ml.nn.keras_experts` (SparseMoE): a gate Dense and one IR MoE
layer, computing only the routed experts in firmware (docs/moe.md, "Conditional experts")."""

from __future__ import annotations

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, array_of, handles
from hls4ml.converters.pointwise import pointwise_dense
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind

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
