"""A SoftTopK layer's accuracy contract in one place: its exact float64 solution (the oracle) and the
bound on |firmware - exact| that docs/topk.md derives, for p = 2 (mask, magnitude) and p = 4/3."""

from __future__ import annotations

import numpy as np

from hls4ml.model.ir import Layer
from hls4ml.model.reference.soft_topk import layer_soft_topk_types, soft_topk_error_bound, soft_topk_power
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER, layer_soft_topk_cubic_types, soft_topk_cubic_error_bound
from hls4ml.model.reference.soft_topk_exact import (
    soft_topk_magnitude_exact,
    soft_topk_mask_exact,
    soft_topk_mask_general,
)
from hls4ml.model.types import FixedPrecisionType


def _is_cubic(layer: Layer) -> bool:
    return soft_topk_power(layer.attributes.get('p', 2.0), layer.attributes['mode']) == CUBIC_POWER


def layer_error_bound(layer: Layer, source: FixedPrecisionType) -> float:
    """The largest |output - exact| the layer's firmware can show on inputs of type `source`."""
    attributes, result = layer.attributes, layer.types['result']
    assert isinstance(result, FixedPrecisionType)
    strength, iterations = attributes['l'], attributes['iterations']
    if _is_cubic(layer):
        cubic = layer_soft_topk_cubic_types(layer, source)
        rounded, bracket = soft_topk_cubic_error_bound(cubic, result, strength, attributes['n_in'])
    else:
        types = layer_soft_topk_types(layer, source)
        rounded, bracket = soft_topk_error_bound(types, result, strength, attributes['mode'])
    return rounded + bracket * 2.0**-iterations


def layer_exact(layer: Layer, x: np.ndarray) -> np.ndarray:
    """The exact solution of the layer (with its own l, not the firmware's) for the rows of x."""
    attributes = layer.attributes
    k, strength = attributes['k'], attributes['l']
    if _is_cubic(layer):
        return soft_topk_mask_general(x, k, strength, 4 / 3)
    if attributes['mode'] == 'mask':
        return soft_topk_mask_exact(x, k, strength)
    return soft_topk_magnitude_exact(x, k, strength)
