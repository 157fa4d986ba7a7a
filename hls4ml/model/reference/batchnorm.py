"""Reference of `nnet::normalize` (batch normalization at inference)."""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.types import PrecisionType


def normalize(x: FixedArray, scale: FixedArray, bias: FixedArray, result_type: str | PrecisionType) -> FixedArray:
    """res_i = x_i * scale_c + bias_c with c = i % n_scale_bias, one write into the result type."""
    x = as_samples(x)
    channel = np.arange(x.shape[1]) % scale.shape[0]
    return (x * take(scale, channel) + take(bias, channel)).cast(result_type)
