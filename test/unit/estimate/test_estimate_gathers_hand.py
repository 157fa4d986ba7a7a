"""Hand-checked estimates of Gather and Reduce (`estimate/kinds_gather.py`)."""

from __future__ import annotations

import numpy as np
from estimate_models import convert

from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.estimate.primitives import Range
from hls4ml.model.graph import ModelGraph


def gather_model(op: str, io_type: str = 'io_parallel') -> ModelGraph:
    """x (2, 3) of fixed<8,3> -> a slice x[:, 1:] or a reduction over the last axis (2 outputs of 3 values),
    its types 'auto' (exact)."""
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (2, 3))
    if op == 'slice':
        y = builder.gather(Origin('g', 'getitem'), x, builder.positions(x)[:, 1:])
    else:
        y = builder.reduce(Origin('g', 'reduce'), x, (1,), op, keepdims=False)
    builder.output(y, Origin('y', 'output'))
    types = {'g': {'Precision': {'accum': 'auto', 'result': 'auto'}}} if op != 'slice' else {}
    return convert(builder, types, precision='fixed<8,3>', io_type=io_type)


def row(model: ModelGraph):
    (found,) = [layer for layer in model.estimate().layers if layer.name == 'g']
    return found


def test_a_slice_is_wiring_in_io_parallel() -> None:
    g = row(gather_model('slice'))
    assert g.resources['LUT'] == Range(0, 0) and g.resources['DSP'] == Range(0, 0)


def test_a_sum_of_three_is_two_adders_of_the_accumulator_per_output() -> None:
    """The accumulator holds the exact sum: fixed<8,3> + ceil(log2 3) = 2 bits = fixed<10,5>. Two outputs
    of two 10-bit additions: 40 LUTs; the 2 x 10 result bits are registers."""
    model = gather_model('sum')
    assert str(model.graph.layers['g'].types['accum']) == 'fixed<10,5>'
    g = row(model)
    assert g.resources['LUT'] == Range(40, 40)
    assert g.resources['FF'].high >= 20
    assert g.resources['DSP'] == Range(0, 0)


def test_a_max_of_three_is_two_comparisons_and_multiplexers_per_output() -> None:
    """max keeps fixed<8,3>: per output two 8-bit comparisons (carry chains) and two 8-bit multiplexers,
    2 x (16 + 16) = 64 LUTs."""
    g = row(gather_model('max'))
    assert g.resources['LUT'] == Range(64, 64)


def test_io_stream_buffers_the_whole_input() -> None:
    """6 values of 8 bits in one RAM (LUT RAM at this size); one element in, one out, plus the loops."""
    g = row(gather_model('sum', 'io_stream'))
    assert g.resources['BRAM_18K'] == Range(0, 0)
    assert g.latency.low >= 2


def test_a_linear_interpolation_is_constant_products_and_one_adder_per_output() -> None:
    """x (1, 2) of fixed<8,3> upsampled to 4 values, align_corners: sources 0, 1/3, 2/3, 1, weights
    (1, 0), (2/3, 1/3), (1/3, 2/3), (0, 1) written into ufixed<2,1> (fraction bit 1/2): (1, 0), (0.5, 0),
    (0, 0.5), (0, 1). Raw 2, 1, 0: products by 1 and 2 are wiring (one digit), zeros are nothing: no
    multiplier. The accumulator holds 8 + 2 + 1 = 11 bits: four 11-bit adders, 44 LUTs."""
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (1, 2))
    taps = (np.array([[0, 1], [0, 1], [0, 1], [1, 1]]), np.array([[1, 0], [2 / 3, 1 / 3], [1 / 3, 2 / 3], [0, 1]]))
    y = builder.interpolate(Origin('g', 'interpolate'), x, [taps])
    builder.output(y, Origin('y', 'output'))
    types = {'g': {'Precision': {'accum': 'auto', 'result': 'auto', 'weight': 'ufixed<2,1>'}}}
    model = convert(builder, types, precision='fixed<8,3>')
    assert str(model.graph.layers['g'].types['accum']) == 'fixed<11,5>'
    g = row(model)
    assert g.resources['DSP'] == Range(0, 0)
    assert g.resources['LUT'] == Range(44, 44)
