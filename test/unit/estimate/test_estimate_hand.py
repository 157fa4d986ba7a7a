"""Estimates that can be checked by hand (docs/estimator.md gives every formula used here)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from estimate_models import WIDE, conv1d_model, dense_model, raw_weights

from hls4ml.estimate.primitives import Range, signed_digits, significant_bits
from hls4ml.model.graph import ModelGraph


def row(estimate, name: str):
    (found,) = [layer for layer in estimate.layers if layer.name == name]
    return found


def wide_matrix(n_in: int, n_out: int) -> np.ndarray:
    return raw_weights(np.full((n_in, n_out), WIDE))


def test_the_wide_constant_is_a_16_bit_constant_with_8_signed_digits() -> None:
    assert significant_bits(WIDE) == 16
    assert signed_digits(WIDE) == 8
    assert signed_digits(7) == 2  # 8 - 1
    assert signed_digits(0) == 0 and signed_digits(-4) == 1


def test_one_input_dense_is_one_dsp_and_one_accumulator_adder() -> None:
    """16 x 16 constant product -> 1 DSP48E2; the zero bias is not added (no adder LUTs), the point counts
    the DSP's glue LUTs (DSP_GLUE_LUTS, calibrated)."""
    estimate = dense_model(wide_matrix(1, 1)).estimate()
    fc = row(estimate, 'fc')
    assert fc.resources['DSP'] == Range(1, 1)
    assert fc.resources['LUT'] == Range(0, 5)
    assert fc.resources['LUT'].value == 5
    assert fc.resources['BRAM_18K'] == Range(0, 0)
    assert fc.interval == Range(1, 1)
    # DSP product 2.0-3.6 ns + one 40-bit add 1.2-2.5 ns at 5 ns * (1 - 27%) = 3.65 ns per cycle
    assert fc.latency == Range(math.floor(3.2 / 3.65), math.ceil(6.1 / 3.65))


@pytest.mark.parametrize(('reuse_factor', 'dsp'), [(1, 128), (2, 64), (4, 32), (8, 16)])
def test_dense_16x8_latency_strategy_uses_n_weights_over_rf_dsps(reuse_factor: int, dsp: int) -> None:
    estimate = dense_model(wide_matrix(16, 8), reuse_factor=reuse_factor).estimate()
    fc = row(estimate, 'fc')
    assert fc.resources['DSP'] == Range(dsp, dsp)
    assert fc.interval == Range(reuse_factor, reuse_factor)
    assert estimate.interval == Range(reuse_factor, reuse_factor)


def test_dense_16x8_resource_strategy_at_rf_4() -> None:
    """block_factor = 128 / 4 = 32 general multipliers; the weights a 4 x 512-bit ROM (2048 bits: LUTs or
    block RAM, 15 RAMB18 as 512 x 36 at most); RF steps plus the iteration depth and loop overhead."""
    estimate = dense_model(wide_matrix(16, 8), reuse_factor=4, strategy='Resource').estimate()
    fc = row(estimate, 'fc')
    assert fc.resources['DSP'] == Range(32, 32)
    assert fc.resources['BRAM_18K'] == Range(0, 15)
    assert fc.latency.low >= 4 + 1  # 4 steps, at least one cycle of ROM read
    assert estimate.schedule == 'dataflow'


def test_resource_weights_of_a_large_layer_are_in_block_ram() -> None:
    """64 x 32 at RF 64: 64 words of 32 x 16 = 512 bits (32 Kbit) -> ceil(512 / 36) = 15 RAMB18."""
    estimate = dense_model(wide_matrix(64, 32), reuse_factor=64, strategy='Resource').estimate()
    assert row(estimate, 'fc').resources['BRAM_18K'] == Range(15, 15)
    assert row(estimate, 'fc').resources['DSP'] == Range(32, 32)


def test_zero_weights_cost_nothing_in_the_unrolled_latency_strategy() -> None:
    weights = wide_matrix(16, 8)
    weights[::2] = 0  # half the rows: 64 zero weights
    assert row(dense_model(weights).estimate(), 'fc').resources['DSP'] == Range(64, 64)
    # RF 2: ceil(128 / 2) - 64 // 2 = 32 shared multipliers (the kernel's ALLOCATION limit)
    assert row(dense_model(weights, reuse_factor=2).estimate(), 'fc').resources['DSP'] == Range(32, 32)
    # Resource multiplies the zeros too
    resource = dense_model(weights, reuse_factor=2, strategy='Resource').estimate()
    assert row(resource, 'fc').resources['DSP'] == Range(64, 64)


def test_powers_of_two_are_shifts_and_narrow_products_go_to_luts() -> None:
    shifts = dense_model(raw_weights(np.full((16, 8), 256))).estimate()
    assert row(shifts, 'fc').resources['DSP'] == Range(0, 0)
    narrow = dense_model(
        wide_matrix(16, 8) * 0 + 0.375,  # 3/8 in fixed<8,3>: raw 24 = 0b11000, two signed digits
        types={'weight': 'fixed<8,3>'},
        reuse_factor=2,
        precision='fixed<8,3>',
    ).estimate()
    assert row(narrow, 'fc').resources['DSP'] == Range(0, 0)  # 8 x 8 general products: LUTs
    assert row(narrow, 'fc').resources['LUT'].low > 0


@pytest.mark.parametrize(
    ('part', 'dsp'), [('xcvu13p-flga2577-2-e', 2), ('xcvc1902-vsva2197-2MP-e-S', 1), ('xc7z020', 2)]
)
def test_a_24_bit_product_needs_two_dsp48_but_one_dsp58(part: str, dsp: int) -> None:
    """24 x 24: DSP48E2 (27x18) and DSP48E1 (25x18) split the 24-bit operand in two; DSP58 (27x24) fits it."""
    model = dense_model(
        raw_weights(np.full((1, 1), 0xABCDEF - 0x800000), 16),
        types={'weight': 'fixed<24,8>'},
        precision='fixed<24,8>',
    )
    assert row(model.estimate(part), 'fc').resources['DSP'] == Range(dsp, dsp)


def test_a_32_bit_product_takes_four_dsp48e2() -> None:
    model = dense_model(
        raw_weights(np.full((1, 1), 0x5A5A5A5B), 20),
        types={'weight': 'fixed<32,12>', 'accum': 'fixed<64,24>', 'result': 'fixed<64,24>'},
        precision='fixed<32,12>',
    )
    assert row(model.estimate(), 'fc').resources['DSP'] == Range(4, 4)


def test_oneapi_packs_two_18x19_products_in_one_dsp_block() -> None:
    estimate = dense_model(wide_matrix(1, 2), backend='oneAPI').estimate()
    dsp = row(estimate, 'fc').resources['DSP']
    assert dsp == Range(0, 1)  # two 16 x 16 products in one block at most
    assert dsp.value == 0  # the point: oneAPI builds constant products in ALUTs (calibration reports)
    assert estimate.columns == ('ALUT', 'REG', 'RAM', 'DSP')


def test_catapult_counts_multipliers_and_bit_operations() -> None:
    estimate = dense_model(wide_matrix(2, 2), backend='Catapult').estimate()
    fc = row(estimate, 'fc')
    assert fc.resources['MUL'] == Range(4, 4)
    # 4 constant products of (8 - 1) shifted 32-bit adds, 2 x (2 - 1) 40-bit adds (the zero bias is not
    # added), up to 2 x 40 result bits of registers (none at the point: the design is combinational)
    assert fc.resources['AREA'] == Range(4 * 7 * 32 + 2 * 40, 4 * 7 * 32 + 2 * 40 + 80)


@pytest.mark.parametrize(('parallelization', 'dsp'), [(1, 24), (2, 48), (3, 72)])
def test_conv1d_multipliers_are_weights_times_parallel_pixels(parallelization: int, dsp: int) -> None:
    """3 taps x 2 channels x 4 filters = 24 constant products per output pixel, PF pixels at once;
    6 output pixels in 6 / PF groups pipelined at II = RF = 1."""
    estimate = conv1d_model(2, 4, 8, 3, WIDE, ParallelizationFactor=parallelization).estimate()
    conv = row(estimate, 'conv')
    assert conv.resources['DSP'] == Range(dsp, dsp)
    groups = 6 // parallelization
    assert conv.interval.low == groups + 1  # groups x RF plus the loop overhead of 1-2 cycles
    assert conv.coarse


def test_io_stream_conv_keeps_a_line_buffer_and_streams_every_pixel() -> None:
    from estimate_models import GraphBuilder, Origin, convert

    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (2, 8, 8))
    kernel = raw_weights(np.full((4, 2, 3, 3), WIDE))
    y = builder.conv(Origin('conv', 'Conv2d'), x, kernel, None, (1, 1), [(0, 0), (0, 0)])
    builder.output(y, Origin('y', 'output'))
    estimate = convert(builder, io_type='io_stream').estimate()
    conv = row(estimate, 'conv')
    assert conv.resources['DSP'] == Range(72, 72)  # 3 x 3 x 2 x 4 products of one output pixel
    assert conv.interval.low >= 64  # one input pixel per cycle
    assert 'line buffer' in ' '.join(conv.notes)


def _quantizer_model(triples: tuple, overflow: str):
    """x (fixed<12,4>, 4 values) -> FixedPointQuantizer 'q' (RND, `overflow`) with per-element triples."""
    from hls4ml.model.ir import Graph, Layer
    from hls4ml.model.kinds.arithmetic import quantizer_layer
    from hls4ml.model.types import FixedPrecisionType
    from hls4ml.utils.config import create_config

    graph = Graph()
    graph.add_layer(Layer('x', 'Input', [], ['x'], {'shape': (4,)}, {}, {'result': FixedPrecisionType(12, 4)}), [(4,)])
    arrays = tuple(np.array(values) for values in triples)
    graph.add_layer(quantizer_layer('q', 'x', arrays, ('RND', overflow), 4), [(4,)])
    graph.inputs, graph.outputs = ['x'], ['q']
    config = create_config('/tmp/hls4ml-estimate-tests', 'myproject', 'Vitis')
    layers = {'q': {'Precision': {'result': 'auto'}}}  # the exact container of the triples
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'LayerName': layers}
    return ModelGraph(config, graph, {})


def test_saturating_quantizer_is_an_adder_two_comparisons_and_a_multiplexer_per_value() -> None:
    """Uniform fixed<6,3> (k=1, i=2, f=3): the rounded integer has k+i+f+1-k = 6 bits. Per value one 6-bit
    rounding adder and 2 x 6 bits of comparison/multiplexer logic: 4 x 18 = 72 LUTs; the 4 x 6 result bits
    are registers (up to 72 more as pipeline registers). The chain add(6) + 2 x (add(6) + select) is
    0.52 + 2 x 0.82 = 2.16 to 1.14 + 2 x 1.74 = 4.62 ns: 0 to 2 cycles of 3.65 ns, II 1."""
    q = row(_quantizer_model(([1] * 4, [2] * 4, [3] * 4), 'SAT').estimate(), 'q')
    assert q.resources['DSP'] == Range(0, 0)
    assert q.resources['LUT'] == Range(72, 72)
    assert q.resources['FF'] == Range(0, 24 + 72)  # combinational at this clock: the point registers nothing
    assert q.resources['FF'].value == 0
    assert q.latency == Range(math.floor(2.16 / 3.65), math.ceil(4.62 / 3.65))
    assert q.interval == Range(1, 1)


def test_wrapping_quantizer_is_three_adders_per_value_and_pruned_values_cost_their_register_only() -> None:
    """Triples (k, i, f) = (1, 2, 3), (0, 1, 4), (1, 0, 2) and a pruned (0, 0, 0): the rounded integer is
    max(k+i+f+1-k) = 6 bits; WRAP rounds, subtracts and adds: 3 x 6 adder bits per value, 4 x 18 = 72 LUTs.
    The result holds every triple: signed, 4 fraction bits, 3 integer bits (i=2 plus the sign) = fixed<7,3>,
    4 x 7 = 28 register bits. The chain is three 6-bit adds: 1.56 to 3.42 ns, 0 to 1 cycle."""
    model = _quantizer_model(([1, 0, 1, 0], [2, 1, 0, 0], [3, 4, 2, 0]), 'WRAP')
    assert str(model.graph.layers['q'].types['result']) == 'fixed<7,3>'
    q = row(model.estimate(), 'q')
    assert q.resources['LUT'] == Range(72, 72)
    assert q.resources['FF'] == Range(0, 28 + 72)
    assert q.latency == Range(math.floor(1.56 / 3.65), math.ceil(3.42 / 3.65))
