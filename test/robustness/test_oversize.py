"""An io_parallel Latency layer too big to synthesize warns at conversion (hls4ml 1.x warns likewise):
beyond the 4096 multiplications Vivado/Vitis HLS unrolls, or beyond the configured part by the estimator.
The warning names the layer, the count and the Resource reuse factor to use; sizes that synthesize, the
Resource strategy and io_stream do not warn."""

from __future__ import annotations

import re
import sys
import warnings

import keras
import pytest
import torch

import hls4ml
from hls4ml.api.checks import UNROLL_LIMIT, oversize_layers


def convert(model: keras.Model, tmp_path, **kwargs):
    return hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), **kwargs)


def dense(n_in: int, n_out: int) -> keras.Model:
    return keras.Sequential([keras.Input((n_in,)), keras.layers.Dense(n_out, name='big')])


def oversize_warnings(action) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        action()
    return [str(w.message) for w in caught if 'multiplications' in str(w.message)]


def test_a_512x512_latency_dense_warns_with_the_count_and_the_fix(tmp_path) -> None:
    with pytest.warns(UserWarning, match=r"layer 'big' \(Dense.*unrolls 262144 multiplications") as caught:
        hls_model = convert(dense(512, 512), tmp_path)
    (message,) = [str(w.message) for w in caught if 'multiplications' in str(w.message)]
    assert 'Strategy: Resource with ReuseFactor 64 or more' in message and message in hls_model.context.warnings


def test_the_suggested_reuse_factor_silences_it_and_fits_the_unroll_limit(tmp_path) -> None:
    config = {'Model': {'Precision': 'fixed<16,6>', 'Strategy': 'Resource', 'ReuseFactor': 64}}
    hls_model = convert(dense(512, 512), tmp_path, hls_config=config)
    assert oversize_layers(hls_model.design) == []
    assert 512 * 512 / hls_model.graph.layers['big'].attributes['reuse_factor'] <= UNROLL_LIMIT


@pytest.mark.parametrize('n_in, n_out, warns', [(64, 64, False), (64, 65, True), (16, 64, False), (128, 64, True)])
def test_the_unroll_limit_is_4096_multiplications(n_in, n_out, warns, tmp_path) -> None:
    assert bool(oversize_warnings(lambda: convert(dense(n_in, n_out), tmp_path))) == warns


def test_io_stream_does_not_warn(tmp_path) -> None:
    assert oversize_warnings(lambda: convert(dense(512, 512), tmp_path, io_type='io_stream')) == []


def test_a_convolution_counts_its_window_times_filters_times_parallel_pixels(tmp_path) -> None:
    model = keras.Sequential([keras.Input((8, 8, 16)), keras.layers.Conv2D(16, 3, name='conv')])  # 2304 per pixel
    assert oversize_warnings(lambda: convert(model, tmp_path)) == []
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'conv': {'ParallelizationFactor': 2}}}
    (message,) = oversize_warnings(lambda: convert(model, tmp_path, hls_config=config))
    assert "layer 'conv' (Conv2D" in message and 'unrolls 4608 multiplications' in message
    assert 'ReuseFactor 2 or more' in message  # 2 parallel pixels of 2304 products each: 2 steps fit


def test_a_pytorch_layer_warns_too(tmp_path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(128, 64))
    config = hls4ml.utils.config_from_pytorch_model(model, input_shape=(128,))
    convert_torch = hls4ml.converters.convert_from_pytorch_model
    (message,) = oversize_warnings(lambda: convert_torch(model, hls_config=config, output_dir=str(tmp_path / 'p')))
    assert "(Dense, from '0' Linear)" in message and 'unrolls 8192' in message


def test_a_layer_beyond_the_configured_part_warns_with_the_estimate(tmp_path) -> None:
    """100x40 unrolls 4000 products: within the unroll limit, fine on the default xcvu13p, but a Zynq
    xc7z020 has 53200 LUTs and the estimator puts the layer above them."""
    assert oversize_warnings(lambda: convert(dense(100, 40), tmp_path)) == []
    (message,) = oversize_warnings(lambda: convert(dense(100, 40), tmp_path, part='xc7z020clg400-1'))
    assert re.search(r"layer 'big' .*4000 unrolled multiplications need about [0-9.]+x the LUT of xc7z020", message)
    assert 'see hls_model.estimate()' in message and 'ReuseFactor 2 or more' in message


def test_the_jet_tagging_mlp_does_not_warn(tmp_path) -> None:
    layers = [keras.Input((16,))] + [keras.layers.Dense(units, activation='relu') for units in (64, 32, 32)]
    model = keras.Sequential([*layers, keras.layers.Dense(5, activation='softmax')])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    assert oversize_warnings(lambda: convert(model, tmp_path, hls_config=config, part='xcu250-figd2104-2L-e')) == []


def test_a_layer_the_bound_shows_to_fit_does_not_run_the_estimator(tmp_path, monkeypatch) -> None:
    """64x32 unrolls 2048 products, above ESTIMATE_FROM, yet surely fits the default part: the check
    neither imports nor runs the estimator (about 0.012 s of every such conversion)."""
    hls_model = convert(dense(64, 32), tmp_path)
    monkeypatch.setitem(sys.modules, 'hls4ml.estimate.oversize', None)  # importing it now raises ImportError
    assert oversize_layers(hls_model.design) == []
    with pytest.raises(ImportError):  # and a layer the bound cannot show to fit still asks the estimator
        oversize_layers(convert(dense(100, 40), tmp_path, part='xc7z020clg400-1').design)
