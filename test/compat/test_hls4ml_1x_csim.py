"""hls4ml 1.x test-suite patterns that compile the model (g++): the published suite converts a model the 1.x
way, predicts, and compares with the framework at its tolerances. Written here in our own code."""

from __future__ import annotations

from contextlib import nullcontext

import keras
import numpy as np
import pytest
import torch

import hls4ml
import hls4ml.model.profiling

pytestmark = pytest.mark.csim
LAYERS = keras.layers


def dense_model() -> keras.Model:
    keras.utils.set_random_seed(5)
    return keras.Sequential(
        [keras.Input((12,)), LAYERS.Dense(8, name='fc1', activation='relu'), LAYERS.Dense(6, name='fc2')]
    )


def test_resource_unrolled_predicts_what_latency_does(tmp_path) -> None:
    """hls4ml 1.3.0 gives the same C-simulation outputs for Latency, Resource and ResourceUnrolled (checked with
    it at reuse factors 1, 2 and 4); here ResourceUnrolled runs as Resource and must match Latency bit for bit."""
    model = dense_model()
    x = np.random.default_rng(0).uniform(-2, 2, (50, 12))
    outputs = {}
    for strategy, reuse_factor in (('Latency', 1), ('ResourceUnrolled', 4)):
        config = hls4ml.utils.config_from_keras_model(model, granularity='Model')
        config['Model'].update(Strategy=strategy, ReuseFactor=reuse_factor)
        with pytest.warns(UserWarning, match='Resource schedule') if strategy != 'Latency' else nullcontext():
            hls_model = hls4ml.converters.convert_from_keras_model(
                model, hls_config=config, output_dir=str(tmp_path / strategy), backend='Vitis'
            )
        hls_model.compile()
        outputs[strategy] = hls_model.predict(x)
    np.testing.assert_array_equal(outputs['ResourceUnrolled'], outputs['Latency'])
    np.testing.assert_allclose(outputs['Latency'], model.predict(x, verbose=0), atol=0.05)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_trace_keys_are_the_keras_profile_keys(tmp_path, io_type: str) -> None:
    """hls4ml's trace test: every layer traced; the keys are get_ymodel_keras's (fused activations split
    off as '<layer>_<activation>'). As in hls4ml 1.3.0 (checked in both IO types), the input is not traced."""
    inputs = keras.Input((8,), name='inputs')
    hidden = LAYERS.Dense(6, name='fc1', activation='relu')(inputs)
    model = keras.Model(inputs, LAYERS.Dense(4, name='fc2')(hidden))
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', backend='Vitis')
    for entry in config['LayerName'].values():
        entry['Trace'] = True
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )
    x = np.random.default_rng(1).uniform(-1, 1, (20, 8)).astype(np.float32)
    _, traced = hls_model.trace(x)
    expected = hls4ml.model.profiling.get_ymodel_keras(model, x)
    assert sorted(traced) == sorted(expected) == ['fc1', 'fc1_relu', 'fc2']
    for name, values in traced.items():
        np.testing.assert_allclose(values, expected[name], atol=0.02, err_msg=name)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('merge', ['Add', 'Multiply', 'Concatenate'])
def test_merges_of_feature_maps_match_keras(tmp_path, merge: str, io_type: str) -> None:
    """hls4ml's merge test: two (10, 10, 3) inputs, 'model' granularity at ap_fixed<32,16>, float64 inputs
    given as a list, compared at atol 1e-3."""
    first, second = keras.Input((10, 10, 3)), keras.Input((10, 10, 3))
    model = keras.Model([first, second], getattr(LAYERS, merge)()([first, second]))
    config = hls4ml.utils.config_from_keras_model(model, default_precision='ap_fixed<32,16>')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )
    rng = np.random.default_rng(2)
    x = [rng.random((30, 10, 10, 3)), rng.random((30, 10, 10, 3))]
    expected = model.predict(x, verbose=0)
    np.testing.assert_allclose(hls_model.predict(x).reshape(expected.shape), expected, rtol=0, atol=1e-3)


def test_pytorch_model_with_an_integer_input_shape_predicts_what_torch_does(tmp_path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).eval()
    config = hls4ml.utils.config_from_pytorch_model(model, 16, default_precision='ap_fixed<24,10>')
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    x = np.random.default_rng(3).uniform(-1, 1, (40, 16)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(hls_model.predict(x), expected, atol=0.01)
