"""Dense and convolutions as da4ml adder graphs, with the accumulator semantics of `nnet::dense`.

The C++ computes acc = (accum_t) bias; acc += x_i * w_i (each += a write into accum_t); res = (result_t) acc.
Three exact ways to build that, the cheapest that applies:

* exact: every product lies on accum_t's grid, and either accum_t wraps or no partial sum can leave its
  range; then every write is the identity (or a wrap, which commutes with the sum), and the whole sum is
  one constant matrix-vector product for da4ml's CMVM solver (shift-and-add, no multipliers);
* wrapping: accum_t wraps but products lose fraction bits; each product is written into accum_t on its
  own (its rounding), then the sum wraps once: wrapping is modular, so the order does not matter;
* in order: accum_t saturates and a partial sum may overflow; the sum is built term by term, in the C++
  order, each step written into accum_t.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import Quantizer, quantizer
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.reference.conv import padded_image, window_slice

SOLVER = {'search_all_decompose_dc': False}  # da4ml's CMVM search: ~8x faster, within 1% of the full search


def constants(layer: Layer, name: str, var: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Weights `name` written into the layer's type `var`, as exact float64 values."""
    values = quantize(layer.weights[name], layer.types[var], 'ap').to_double()
    return values.reshape(shape) if shape is not None else values


def dense_traced(x: Any, weights: np.ndarray, biases: np.ndarray, layer: Layer) -> Any:
    """Rows of `x` (shape (rows, n_in), FixedVariableArray) times `weights` (n_in, n_out), plus `biases`,
    with the accumulator and result writes of `layer` (see the module docstring)."""
    where = layer.describe()
    accum = quantizer(layer.types['accum'], f'{where} accum type')
    result = quantizer(layer.types['result'], f'{where} result type')
    return result.apply(accumulated(x, weights, biases, accum))


def accumulated(x: Any, weights: np.ndarray, biases: np.ndarray, accum: Quantizer) -> Any:
    """acc = (accum_t) bias; acc += x_i * w_i, each += a write into accum_t: the value of acc after the sum."""
    if _exact(x, weights, biases, accum):
        return accum.apply(_product(x, weights) + biases)
    if accum.overflow == 'WRAP':
        return _wrapping(x, weights, biases, accum)
    return _in_order(x, weights, biases, accum)


def _product(x: Any, weights: np.ndarray) -> Any:
    """x @ weights by one adder graph solved once for all rows (a convolution's pixels share their
    kernel): the solver sees each input's widest interval over the rows, then the same graph is applied
    to every row, whose own intervals set its adders' widths."""
    from da4ml.cmvm import solve
    from da4ml.types import QInterval

    rows = np.asarray(x._vars)
    if rows.shape[0] == 1:
        return x @ weights
    lows = np.vectorize(lambda v: float(v.low))(rows).min(axis=0)
    highs = np.vectorize(lambda v: float(v.high))(rows).max(axis=0)
    steps = np.vectorize(lambda v: float(v.step))(rows).min(axis=0)
    intervals = [QInterval(*bounds) for bounds in zip(lows, highs, steps, strict=True)]
    latencies = [max(float(v.latency) for v in column) for column in rows.T]
    graph = solve(np.ascontiguousarray(weights.astype(np.float32)), qintervals=intervals, latencies=latencies, **SOLVER)
    return _array(x, [list(graph(row)) for row in rows])


def _fraction_bits(values: np.ndarray) -> int:
    """The fraction bits the finest of `values` needs."""
    bits = 0
    for value in np.unique(np.abs(values[values != 0])):
        while value * 2.0**bits != math.floor(value * 2.0**bits):
            bits += 1
    return bits


def _bounds(x: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Per element of `x`: lowest and highest value, and the fraction bits of the finest step."""
    flat = np.asarray(x._vars)
    low = np.vectorize(lambda v: float(v.low))(flat)
    high = np.vectorize(lambda v: float(v.high))(flat)
    steps = [float(v.step) for v in flat.ravel() if v.high != v.low]
    fraction = max((int(-math.log2(step)) for step in steps), default=0)
    return low, high, fraction


def _exact(x: Any, weights: np.ndarray, biases: np.ndarray, accum: Quantizer) -> bool:
    """Every write into accum_t is the identity (or, for WRAP, a wrap of the final sum)."""
    if np.any(weights.astype(np.float32) != weights):  # the CMVM solver reads float32 weights
        return False
    low, high, fraction = _bounds(x)
    needed = max(fraction + _fraction_bits(weights), _fraction_bits(biases))
    if needed > accum.fraction:
        return False
    if accum.overflow == 'WRAP':
        return True
    if not accum.signed:  # an unsigned saturating accumulator: partial sums must stay >= 0, in order
        return False
    top = 2.0**accum.integer - 2.0**-accum.fraction
    extreme = np.maximum(np.abs(low), np.abs(high))  # per row and input
    spread = extreme @ np.abs(weights) + np.abs(biases)  # any partial sum lies within +-spread
    return bool(np.all(spread <= top))


def _wrapping(x: Any, weights: np.ndarray, biases: np.ndarray, accum: Quantizer) -> Any:
    """Each product written into accum_t, then one modular sum (WRAP commutes with addition)."""
    rows, columns = [], weights.shape[1]
    flat = np.asarray(x._vars)
    for row in flat:
        sums = []
        for column in range(columns):
            terms = [
                accum.apply(value * float(weight))
                for value, weight in zip(row, weights[:, column], strict=True)
                if weight
            ]
            sums.append(accum.apply(sum(terms, accum.apply(_constant(x, biases[column])))))
        rows.append(sums)
    return _array(x, rows)


def _in_order(x: Any, weights: np.ndarray, biases: np.ndarray, accum: Quantizer) -> Any:
    """The sum term by term in the C++ order, each partial sum written into accum_t."""
    rows = []
    for row in np.asarray(x._vars):
        sums = []
        for column in range(weights.shape[1]):
            acc = accum.apply(_constant(x, biases[column]))
            for value, weight in zip(row, weights[:, column], strict=True):
                if weight:
                    acc = accum.apply(acc + value * float(weight))
            sums.append(acc)
        rows.append(sums)
    return _array(x, rows)


def _constant(x: Any, value: float) -> Any:
    first = np.asarray(x._vars).ravel()[0]
    return type(first).from_const(float(value), hwconf=first.hwconf)


def _array(like: Any, rows: list[list[Any]]) -> Any:
    return type(like)(np.array(rows, dtype=object), like.solver_options, hwconf=like.hwconf)


# ---- Dense ----------------------------------------------------------------------------------------


def trace_dense(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    n_in, n_out = layer.attributes['n_in'], layer.attributes['n_out']
    weights = constants(layer, 'weight', 'weight', (n_in, n_out))
    biases = constants(layer, 'bias', 'bias', (n_out,))
    rows = inputs[0].reshape(-1, n_in)
    return dense_traced(rows, weights, biases, layer).reshape(-1)


# ---- convolutions: each output pixel is a dense over its window -----------------------------------


def window_taps(layer: Layer) -> np.ndarray:
    """(output pixels, window taps) indices into the flat input, -1 for a padded tap; taps in the
    (kh, kw, c) order of the Keras kernel. Found by moving indices through the reference's own
    padding and window helpers, so the geometry is the C-simulation's."""
    attributes = layer.attributes
    two_d = 'in_height' in attributes
    height = attributes['in_height'] if two_d else 1
    width, channels = attributes['in_width'], attributes['n_chan']
    window = (attributes['filt_height'] if two_d else 1, attributes['filt_width'])
    strides = (attributes.get('stride_height', 1) if two_d else 1, attributes['stride_width'])
    pads = [attributes.get(name, 0) for name in ('pad_top', 'pad_bottom', 'pad_left', 'pad_right')]
    if not two_d:
        pads[:2] = [0, 0]
    ids = quantize(np.arange(1, height * width * channels + 1).reshape(1, -1), 'int<32>', 'ap')
    image = padded_image(ids, height, width, pads)
    out_shape = (
        (height + pads[0] + pads[1] - window[0]) // strides[0] + 1,
        (width + pads[2] + pads[3] - window[1]) // strides[1] + 1,
    )
    taps = [
        window_slice(image, kh, kw, out_shape, strides).raw[0] for kh in range(window[0]) for kw in range(window[1])
    ]
    stacked = np.stack(taps, axis=2)  # (out_h, out_w, kh*kw, channels)
    return stacked.reshape(out_shape[0] * out_shape[1], -1).astype(np.int64) - 1


def trace_conv(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    taps = window_taps(layer)
    n_filt = layer.attributes['n_filt']
    weights = constants(layer, 'weight', 'weight').reshape(taps.shape[1], n_filt)
    biases = constants(layer, 'bias', 'bias', (n_filt,))
    flat = np.asarray(inputs[0]._vars).ravel()
    zero = _constant(inputs[0], 0.0)
    windows = np.array([[flat[t] if t >= 0 else zero for t in row] for row in taps], dtype=object)
    rows = _array(inputs[0], windows.tolist())
    return dense_traced(rows, weights, biases, layer).reshape(-1)


def trace_depthwise(layer: Layer, inputs: list[Any], graph: Graph) -> Any:
    """Each channel a dense over its own window taps (one adder graph per channel, shared by the pixels);
    padded taps are the constant 0, which the accumulator adds as the C++ does."""
    taps = window_taps(layer)
    channels = layer.attributes['n_chan']
    per_channel = taps.reshape(taps.shape[0], -1, channels)  # (pixels, kh*kw, channels)
    weights = constants(layer, 'weight', 'weight').reshape(per_channel.shape[1], channels)
    biases = constants(layer, 'bias', 'bias', (channels,))
    flat = np.asarray(inputs[0]._vars).ravel()
    zero = _constant(inputs[0], 0.0)
    columns = []
    for channel in range(channels):
        windows = [[flat[t] if t >= 0 else zero for t in row] for row in per_channel[:, :, channel]]
        column = dense_traced(
            _array(inputs[0], windows), weights[:, channel : channel + 1], biases[channel : channel + 1], layer
        )
        columns.append(np.asarray(column._vars).reshape(-1))
    return _array(inputs[0], np.stack(columns, axis=1).reshape(-1).tolist())
