"""Fold a BatchNormalization into the Dense that feeds it: W' = W * scale, b' = b * scale + shift."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import Kind
from hls4ml.model.passes import PassContext
from hls4ml.model.types import FixedPrecisionType, PrecisionType, UnspecifiedPrecisionType


def fuse_batchnorm(graph: Graph, context: PassContext) -> None:
    """Requires: types from the config. After: every BatchNormalization whose input is the only use of
    a Dense's output is gone, its scale and shift folded into the Dense, whose result type becomes
    the batch normalization's. Folding needs the Dense accumulator to be 'auto' (it is then sized
    for the folded weights; as in hls4ml, explicit types keep both layers), explicit weight or bias
    types that hold the folded values, and neither layer traced nor the Dense output a model output.
    A batch normalization marked `rescale` (a float scale applied to integers, converters/onnx) stays:
    folding it would turn the exact integer weights into rounded products.
    A Dense marked `quantized_weights` (a quantization-aware frontend's exact weights, HGQ2) is never
    folded into: the folded products would be rounded into its weight types.
    """
    for layer in list(graph.layers.values()):
        if layer.kind != Kind.BATCH_NORMALIZATION or layer.attributes.get('rescale'):
            continue
        dense = graph.producer(layer.inputs[0])
        if dense.kind != Kind.DENSE or len(graph.consumers(dense.outputs[0])) != 1:
            continue
        if dense.attributes.get('quantized_weights'):
            continue
        if dense.outputs[0] in graph.outputs or dense.attributes.get('trace') or layer.attributes.get('trace'):
            continue
        if not isinstance(dense.types['accum'], UnspecifiedPrecisionType):
            continue
        weight = dense.weights['weight'] * layer.weights['scale'][np.newaxis, :]
        bias = dense.weights['bias'] * layer.weights['scale'] + layer.weights['bias']
        if not (_fits(weight, dense.types['weight']) and _fits(bias, dense.types['bias'])):
            continue
        dense.weights.update(weight=weight, bias=bias)
        dense.types['result'] = layer.types['result']
        graph.remove_layer(layer)


def _fits(values: np.ndarray, precision: PrecisionType) -> bool:
    """Whether quantizing `values` into `precision` neither saturates nor wraps."""
    if not isinstance(precision, FixedPrecisionType):
        return True
    if values.size == 0:
        return True
    low, high = float(values.min()), float(values.max())
    raw = quantize(np.array([low, high]), precision.replace(saturation_mode='SAT')).raw
    exact_limits = quantize(np.array([low, high]), precision.replace(saturation_mode='WRAP', saturation_bits=0)).raw
    return bool((raw == exact_limits).all())
