"""The layer normalization rule, counted by hand from nnet_layernorm.h (docs/estimator.md)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
from test_estimate_maps import rule_model  # noqa: E402

import hls4ml  # noqa: E402


def layernorm_model(tmp_path, io_type: str = 'io_parallel'):
    model = keras.Sequential([keras.Input((2, 4)), keras.layers.LayerNormalization(name='ln')])
    model.get_layer('ln').set_weights([np.full(4, 1.25), np.full(4, 0.5)])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def test_layernorm_counts_the_kernels_products(tmp_path) -> None:
    """2 rows of 4 values of fixed<16,6> (range 64, 10 fraction bits), eps 1e-3. The precision rule:
    diff holds 4 * 64 = 256 on 2**-10: fixed<19,9>; norm holds sqrt(4) with a bit to spare: 3 integer
    bits of 16, so 15 compare steps; root holds sqrt(4**4 * 64**2 / 4) = 512 (9 bits) with
    13 + 2 + ceil(log2(sqrt(4) / sqrt(1e-3 * 4**4))) = 17 fraction bits: 26 steps; scale 16 bits.
    Products: 8 squares 19x19, 8 * 15 division trials 16x26, 2 * 26 root trials 26x26, 8 scale 16x16."""
    hls_model = layernorm_model(tmp_path)
    bits = {var: hls_model.graph.layers['ln'].types[var].width for var in ('diff', 'norm', 'root', 'scale')}
    assert bits == {'diff': 19, 'norm': 16, 'root': 26, 'scale': 16}
    layer_model = rule_model(hls_model, 'ln')
    counted = sorted((m.count, m.data_bits, m.coefficient_bits) for m in layer_model.cost.multipliers)
    expected = sorted(
        [
            (8, bits['diff'], bits['diff']),
            (8 * (bits['norm'] - 1), bits['norm'], bits['root']),
            (2 * bits['root'], bits['root'], bits['root']),
            (8, bits['norm'], bits['scale']),
        ]
    )
    assert counted == expected


def test_a_stream_element_is_one_row(tmp_path) -> None:
    """io_stream: one token (4 values) per element, so one row's products and one root."""
    layer_model = rule_model(layernorm_model(tmp_path, 'io_stream'), 'ln')
    counts = sorted(m.count for m in layer_model.cost.multipliers)
    assert counts == [4, 4, 26, 4 * 15]
