"""Reference of the heterogeneous quantizer (`templates/nnet/nnet_quantizer.h`, kind FixedPointQuantizer).

It follows the definition, not the kernel's steps: the values sharing a (k, i, f) triple are written
into that triple's own type `fixed<k+i+f, k+i>` with the quantizer's modes, then into the container;
pruned triples give 0 (`hls4ml.model.quantizer`). The kernel computes the same with integer
arithmetic on shared types, so the C-simulation tests compare two independent constructions.
"""

from __future__ import annotations

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.fixed.cast import canonical
from hls4ml.model.quantizer import Triples, element_type
from hls4ml.model.reference.arrays import as_samples, take
from hls4ml.model.types import FixedPrecisionType


def fixed_point_quantizer(x: FixedArray, triples: Triples, result_type: FixedPrecisionType) -> FixedArray:
    """Every value j quantized with triple j % n_params, written into `result_type` (exact)."""
    x = as_samples(x)
    size = x.shape[1]
    index = np.arange(size) % triples.keep_negative.size
    keys = np.stack([triples.keep_negative[index], triples.integer[index], triples.fraction[index]], axis=1)
    live = triples.live[index]
    raw = np.zeros(x.shape, dtype=object)
    for key in np.unique(keys[live], axis=0):
        columns = np.flatnonzero(live & (keys == key).all(axis=1))
        keep_negative, integer, fraction = (int(value) for value in key)
        precision = element_type(keep_negative, integer, fraction, triples.rounding, triples.overflow)
        raw[:, columns] = take(x, (slice(None), columns)).cast(precision).cast(result_type).raw
    return FixedArray(canonical(raw, result_type), result_type, x.family)
