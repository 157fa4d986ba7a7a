"""Estimates of Strategy 'distributed_arithmetic' (estimate/distributed.py): the adder graph, no multiplier."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from estimate_models import dense_model, raw_weights

from hls4ml.backends.common.distributed import solve_layer
from hls4ml.estimate.primitives import Range

pytest.importorskip('da4ml', reason="da4ml is not installed (pip install 'hls4ml[da]')")


def test_the_estimate_has_no_dsp_and_the_adders_luts() -> None:
    """DA: zero DSPs, and at least one LUT per bit of the graph's adders."""
    rng = np.random.default_rng(4)
    raw = rng.integers(-300, 300, size=(8, 4))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = dense_model(raw_weights(raw), strategy='distributed_arithmetic')
    graph = solve_layer(model.graph, model.graph.layers['fc'], 'ap')
    (row,) = [layer for layer in model.estimate().layers if layer.name == 'fc']
    assert row.resources['DSP'] == Range(0, 0)
    assert row.resources['LUT'].low >= graph.adder_bits > 0
    latency = dense_model(raw_weights(raw)).estimate()
    (latency_row,) = [layer for layer in latency.layers if layer.name == 'fc']
    assert latency_row.resources['DSP'].high > 0  # the same weights in Latency: constant multipliers on DSPs


def test_the_adder_depth_sets_the_latency_and_the_luts_grow_with_the_weights() -> None:
    """A wider random matrix has more adders: more LUTs; a single power of two has none: only the bias add."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        shift = dense_model(raw_weights(np.array([[4]])), strategy='distributed_arithmetic').estimate()
        wide = dense_model(
            raw_weights(np.random.default_rng(5).integers(-900, 900, size=(16, 8))), strategy='distributed_arithmetic'
        ).estimate()
    (shift_row,) = [layer for layer in shift.layers if layer.name == 'fc']
    (wide_row,) = [layer for layer in wide.layers if layer.name == 'fc']
    assert shift_row.resources['LUT'] == Range(40, 40)  # one 40-bit accumulator add of the bias
    assert wide_row.resources['LUT'].low > 16 * 8 * 10
    assert wide_row.latency.high > shift_row.latency.high
