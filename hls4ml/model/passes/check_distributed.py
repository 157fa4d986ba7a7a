"""Check the layers of Strategy 'distributed_arithmetic' at conversion, before anything is written.

The adder graph (backends/common/distributed.py) forms each output's exact sum of products and adds it
into accum_t once; the Latency strategy adds the products one by one. Both give the same bits when no
step of Latency rounds (every product lies on accum_t's grid) and either accum_t wraps (modular sums
agree in any order) or no partial sum can leave its range. Any other accum_t is refused by name.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from hls4ml.model.config import DISTRIBUTED
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import DEPTHWISE_CONVOLUTIONS, Kind
from hls4ml.model.passes import PassContext
from hls4ml.model.types import FixedPrecisionType, SaturationMode

INSTALL_HINT = "Strategy 'distributed_arithmetic' needs the da4ml package: pip install 'hls4ml[da]'"


def check_distributed(graph: Graph, context: PassContext) -> None:
    """Requires: resolved types (after infer_precision). After: every distributed-arithmetic layer has an
    accum_t with which its adder graph computes Latency's bits (checked in the 'ap' family's weights; the
    lowering checks again in the backend's own), and the solver is installed (else an ImportError)."""
    layers = [layer for layer in graph.layers.values() if layer.attributes.get('strategy') == DISTRIBUTED]
    if layers and importlib.util.find_spec('da4ml') is None:
        raise ImportError(f'{INSTALL_HINT} ({", ".join(layer.describe() for layer in layers)})')
    for layer in layers:
        check_accumulator(graph, layer, 'ap')


def layer_matrix(layer: Layer, family: str) -> tuple[np.ndarray, int]:
    """The layer's weights as exact integers (object array, rows = the inputs of one output) and the
    weight type's fractional bits: Dense [n_in, n_out]; a convolution [window (kh, kw, c), n_filt], a
    depthwise one expanded with zeros to the whole window."""
    precision = layer.types['weight']
    assert isinstance(precision, FixedPrecisionType)
    raw = np.asarray(quantize(layer.weights['weight'], precision, family).raw, dtype=object).ravel()
    if layer.kind == Kind.DENSE:
        return raw.reshape(-1, layer.attributes['n_out']), precision.fractional
    if layer.kind in DEPTHWISE_CONVOLUTIONS:
        channels = layer.attributes['n_chan']  # the weights: [kh][kw][c] or [kh][kw][c][m]
        multiplier = layer.attributes['n_filt'] // channels
        taps = raw.reshape(-1, channels, multiplier)
        positions = taps.shape[0]
        full = np.zeros((positions, channels, channels * multiplier), dtype=object)
        for channel in range(channels):
            full[:, channel, channel * multiplier : (channel + 1) * multiplier] = taps[:, channel, :]
        return full.reshape(positions * channels, channels * multiplier), precision.fractional
    return raw.reshape(-1, layer.attributes['n_filt']), precision.fractional


def trailing_zeros(value: int) -> int:
    return (value & -value).bit_length() - 1


def check_accumulator(graph: Graph, layer: Layer, family: str) -> None:
    """Refuse (ValueError naming the layer) an accum_t with which the adder graph's exact sum and the
    Latency strategy's step-by-step sum could differ: a product off accum_t's grid (a rounding step),
    or an overflow of a saturating accum_t."""
    matrix, weight_fractional = layer_matrix(layer, family)
    data, accum = graph.input_type(layer), layer.types['accum']
    assert isinstance(data, FixedPrecisionType) and isinstance(accum, FixedPrecisionType)
    nonzero = [int(value) for value in matrix.ravel() if value]
    if not nonzero:
        return
    needed = data.fractional + weight_fractional - min(trailing_zeros(value) for value in nonzero)
    if accum.fractional < needed:
        raise ValueError(
            f"{layer.describe()}: Strategy 'distributed_arithmetic' needs accum_t ({accum}) to hold every "
            f'product exactly, with at least {needed} fractional bits; it has {accum.fractional} (Latency rounds '
            "every product into it, the adder graph sums them exactly). Set its accum precision to 'auto' "
            f"(hls_config['LayerName'][{layer.name!r}]['Precision']['accum'], or Model Precision "
            "{'default': ..., 'accum': 'auto'}: exact unless Precision 'maximum' caps it) or a wider one, or use "
            "Strategy 'Latency'"
        )
    if accum.saturation_mode is SaturationMode.WRAP and accum.saturation_bits == 0:
        return  # modular sums: the order of the additions does not matter
    if not _partial_sums_fit(layer, matrix, data, accum, family):
        raise ValueError(
            f"{layer.describe()}: Strategy 'distributed_arithmetic' with a saturating accum_t ({accum}) that a "
            'partial sum can overflow: Latency saturates step by step, the adder graph once, and the results '
            "could differ. Use a wrapping or a wider accum precision (the 'auto' accum cannot overflow) or "
            "Strategy 'Latency'"
        )


def _partial_sums_fit(
    layer: Layer, matrix: np.ndarray, data: FixedPrecisionType, accum: FixedPrecisionType, family: str
) -> bool:
    """Whether every partial sum bias_j + (any of the products of output j) stays within accum_t, for
    every input in the input type's range: then no step saturates and every order gives the same sum."""
    weight = layer.types['weight']
    assert isinstance(weight, FixedPrecisionType)
    bias = np.asarray(quantize(layer.weights['bias'], accum, family).raw, dtype=object)
    scale = data.fractional + weight.fractional - accum.fractional  # products -> accum_t's raw units
    low_products = np.minimum(matrix * data.raw_min, matrix * data.raw_max)
    high_products = np.maximum(matrix * data.raw_min, matrix * data.raw_max)
    for column in range(matrix.shape[1]):
        lowest = _in_units(int(np.minimum(low_products[:, column], 0).sum()), scale) + int(bias[column])
        highest = _in_units(int(np.maximum(high_products[:, column], 0).sum()), scale) + int(bias[column])
        if lowest < accum.raw_min or highest > accum.raw_max:
            return False
    return True


def _in_units(value: int, scale: int) -> int:
    """value * 2**-scale, exact: the sums lie on accum_t's grid (checked before)."""
    return value >> scale if scale >= 0 else value << -scale
