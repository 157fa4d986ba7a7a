"""The Einsum and EinsumDense rules by hand (hls4ml/estimate/kinds_attention.py): general multipliers
for two run-time operands, constant ones for EinsumDense, RF folding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from estimate_models import WIDE, convert

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.estimate.primitives import Range
from hls4ml.model.graph import ModelGraph


def einsum_model(reuse_factor: int = 1, io_type: str = 'io_parallel') -> ModelGraph:
    """(3, 4) @ (4, 5) of two fixed<16,6> inputs: 60 products, accumulator and result fixed<40,16>."""
    builder = GraphBuilder('full')
    first = builder.input(Origin('a', 'input'), (3, 4))
    second = builder.input(Origin('b', 'input'), (4, 5))
    product = builder.einsum(Origin('mm', 'matmul'), 'mk,kn->mn', first, second)
    builder.output(product, Origin('y', 'output'))
    settings = {'ReuseFactor': reuse_factor, 'Precision': {'accum': 'fixed<40,16>', 'result': 'fixed<40,16>'}}
    return convert(builder, {'mm': settings}, io_type=io_type)


def row(model: ModelGraph):
    (found,) = [layer for layer in model.estimate().layers if layer.name == 'mm']
    return found


@pytest.mark.parametrize(('reuse_factor', 'dsp'), [(1, 60), (4, 15), (7, 9), (60, 1)])
def test_einsum_uses_products_over_rf_general_multipliers(reuse_factor: int, dsp: int) -> None:
    """Both operands change every call: each of the 60 16 x 16 products is a DSP, ceil(60 / RF) of
    them shared RF times; the region is pipelined at II = RF."""
    estimate = row(einsum_model(reuse_factor))
    assert estimate.resources['DSP'] == Range(dsp, dsp)
    assert estimate.interval == Range(reuse_factor, reuse_factor)


def test_einsum_accumulator_adders_and_depth() -> None:
    """60 adds of 40 bits = 2400 adder bits (1 LUT per bit); depth: a DSP product (2.0-3.6 ns) and an
    adder tree of ceil(log2 4) = 2 levels of 40 bits (2 x 1.2-2.5 ns) at 3.65 ns per cycle."""
    estimate = row(einsum_model())
    assert estimate.resources['LUT'].low >= 2400
    low, high = 2.0 + 2 * (0.4 + 0.02 * 40), 3.6 + 2 * (0.9 + 0.04 * 40)
    assert estimate.latency == Range(math.floor(low / 3.65), math.ceil(high / 3.65))


def test_einsum_in_io_stream_reads_both_inputs_whole() -> None:
    """3 + 4 input elements read, 3 output elements written: 10 cycles and 3 loop entries (1-2 each) more."""
    parallel, stream = row(einsum_model()), row(einsum_model(io_type='io_stream'))
    assert stream.interval == parallel.interval + Range(10 + 3, 10 + 6)


def einsum_dense_model(reuse_factor: int, tmp_path) -> ModelGraph:
    """Keras EinsumDense 'abc,cd->abd' on (3, 4) -> (3, 5), every weight the 16-bit constant WIDE."""
    keras = pytest.importorskip('keras')
    inputs = keras.Input((3, 4))
    layer = keras.layers.EinsumDense('abc,cd->abd', output_shape=(None, 5), bias_axes='d', name='ed')
    model = keras.Model(inputs, layer(inputs))
    layer.set_weights([np.full((4, 5), WIDE / 2.0**10), np.zeros(5)])
    precision = {'weight': 'fixed<16,6>', 'bias': 'fixed<16,6>', 'accum': 'fixed<40,16>', 'result': 'fixed<40,16>'}
    config = {
        'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1},
        'LayerName': {'ed': {'ReuseFactor': reuse_factor, 'Precision': precision}},
    }
    return hls4ml.converters.convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path))


@pytest.mark.parametrize(('reuse_factor', 'dsp'), [(1, 60), (4, 15)])
def test_einsum_dense_is_a_dense_used_by_every_row(reuse_factor: int, dsp: int, tmp_path) -> None:
    """A 4 x 5 weight matrix used by 3 rows at once: 60 constant 16 x 16 products, each a DSP at RF 1;
    at RF 4 ceil(20 / 4) = 5 shared multipliers per row, 15 in all (the kernel's ALLOCATION limit
    ceil(60 / 4)); II = RF."""
    (estimate,) = [
        layer for layer in einsum_dense_model(reuse_factor, tmp_path).estimate().layers if layer.name == 'ed'
    ]
    assert estimate.resources['DSP'] == Range(dsp, dsp)
    assert estimate.interval == Range(reuse_factor, reuse_factor)
