"""trace() of the compiled C-simulation (hls4ml/csim/simulation.py): the C library writes every traced value
straight into the results in the caller's dtype (float32: the double narrowed, as numpy narrows it; io_stream:
the FIFO looked at in place). Whatever the batch size and the thread, they are the values one sample at a
time gives, float32 traces are the float64 traces narrowed, and the last layer's trace is the prediction."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402

pytestmark = pytest.mark.csim


@pytest.fixture(scope='module')
def compiled(tmp_path_factory):
    """io_type -> the compiled model (each compiled once for the module)."""
    models: dict = {}

    def get(io_type: str):
        if io_type not in models:
            models[io_type] = _compiled(io_type, tmp_path_factory.mktemp(io_type))
        return models[io_type]

    return get


def _compiled(io_type: str, tmp_path):
    """A tiny Conv2D -> ReLU -> Dense model, compiled (its traces differ in size per layer); the Dense result
    has 40 bits, more than a float32 holds."""
    keras.utils.set_random_seed(5)
    model = keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            keras.layers.Conv2D(3, 3, activation='relu', name='conv'),
            keras.layers.Flatten(name='flat'),
            keras.layers.Dense(4, name='dense'),
        ]
    )
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    config['LayerName']['dense']['Precision']['result'] = 'ap_fixed<40,12>'
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / io_type), backend='Vitis', io_type=io_type
    )
    hls_model.compile()
    return hls_model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('samples', [1, 37])
def test_traces_equal_one_sample_at_a_time_and_the_predictions(io_type: str, dtype, samples: int, compiled) -> None:
    hls_model = compiled(io_type)
    x = np.random.default_rng(3).uniform(-2, 2, (samples, 6, 6, 2)).astype(dtype)
    predictions, traced = hls_model.trace(x)
    one_by_one = [hls_model.trace(x[index : index + 1])[1] for index in range(samples)]
    assert len(traced) >= 3
    for name, values in traced.items():
        assert values.dtype == dtype and values.shape[0] == samples and values.flags.c_contiguous
        np.testing.assert_array_equal(values, np.concatenate([single[name] for single in one_by_one]))
    np.testing.assert_array_equal(predictions, hls_model.predict(x))
    last = list(traced)[-1]
    np.testing.assert_array_equal(traced[last].reshape(samples, -1), predictions.reshape(samples, -1))
    assert np.abs(traced['conv']).max() > 0  # real values, not an untouched buffer


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_float32_traces_are_the_float64_traces_narrowed(io_type: str, compiled) -> None:
    """What trace() gave before the C library wrote floats itself: the doubles, narrowed by numpy (the Dense
    result's 40 bits are rounded to float32's 24: the same rounding in C)."""
    hls_model = compiled(io_type)
    x = np.random.default_rng(4).uniform(-2, 2, (23, 6, 6, 2)).astype(np.float32)
    _, wide = hls_model.trace(x.astype(np.float64))
    _, narrow = hls_model.trace(x)
    for name, values in narrow.items():
        assert values.dtype == np.float32
        np.testing.assert_array_equal(values, wide[name].astype(np.float32))
    assert np.any(narrow['dense'].astype(np.float64) != wide['dense'])  # narrowing did round


def test_traces_from_several_threads_at_once_equal_one_thread(compiled) -> None:
    hls_model = compiled('io_stream')
    batches = [np.random.default_rng(seed).uniform(-2, 2, (23, 6, 6, 2)).astype(np.float32) for seed in range(6)]
    alone = [hls_model.trace(batch)[1] for batch in batches]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(lambda batch: hls_model.trace(batch)[1], batches))
    for expected, got in zip(alone, together, strict=True):
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name])


def test_each_layer_trace_is_its_own_values(compiled) -> None:
    """The traces are views of one block (fewer page faults): writing one leaves the others alone."""
    _, traced = compiled('io_parallel').trace(np.random.default_rng(8).uniform(-2, 2, (4, 6, 6, 2)))
    before = {name: values.copy() for name, values in traced.items()}
    first = next(iter(traced))
    traced[first][...] = 123.0
    for name, values in traced.items():
        if name != first:
            np.testing.assert_array_equal(values, before[name])
