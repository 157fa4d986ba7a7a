"""Handlers of the Keras 3 preprocessing layers that are a fixed affine map per value: Rescaling and
Normalization. Both become a BatchNormalization (y = scale * x + bias per element), whose scale and
bias are written into types fitted to them (so a scale like 1/255 is as exact as its type allows)."""

from __future__ import annotations

import math

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, array_of, handles
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind


def per_element(source: Source, values: np.ndarray, what: str) -> np.ndarray:
    """`values` broadcast over the input (channels last, as the IR), flattened."""
    shape = source.input_shapes[0]
    values = np.asarray(values, dtype=np.float64)
    while values.ndim > len(shape) and values.shape[0] == 1:  # Keras keeps a batch axis of 1
        values = values[0]
    try:
        return np.broadcast_to(values, shape).reshape(-1).copy()
    except ValueError as error:
        raise UnsupportedLayer(f'{source.origin}: its {what} of shape {values.shape} does not fit {shape}') from error


def affine(source: Source, scale: np.ndarray, bias: np.ndarray) -> list[Layer]:
    n_in = math.prod(source.input_shapes[0])
    weights = {'scale': per_element(source, scale, 'scale'), 'bias': per_element(source, bias, 'offset')}
    return [source.make(Kind.BATCH_NORMALIZATION, n_in=n_in, weights=weights)]


@handles('Rescaling', produces=(Kind.BATCH_NORMALIZATION,))
def rescaling(source: Source) -> list[Layer]:
    """inputs * scale + offset (scale and offset: numbers or arrays broadcast over the input)."""
    config = source.config
    return affine(source, np.asarray(config['scale']), np.asarray(config['offset']))


@handles('Normalization', produces=(Kind.BATCH_NORMALIZATION,))
def normalization(source: Source) -> list[Layer]:
    """(x - mean) / max(sqrt(variance), epsilon), or with invert=True mean + x * max(sqrt(variance),
    epsilon), Keras' formula and its epsilon (keras.config.epsilon())."""
    import keras

    layer = source.layer
    if getattr(layer, 'mean', None) is None:
        raise UnsupportedLayer(f'{source.origin}: the layer has no mean and variance yet; adapt() or build it first')
    mean, variance = array_of(layer.mean), array_of(layer.variance)
    deviation = np.maximum(np.sqrt(variance), keras.config.epsilon())
    if source.config.get('invert'):
        return affine(source, deviation, mean)
    return affine(source, 1.0 / deviation, -mean / deviation)
