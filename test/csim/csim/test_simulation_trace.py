"""trace() of the compiled C-simulation (hls4ml/csim/simulation.py): doubles are written straight into the
results, other dtypes come in chunks of samples through scratch buffers kept per thread; whatever the
chunk size and the thread, they are the very values one call over the whole batch gives, in the caller's
dtype, and the last layer's trace is the prediction."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.csim import simulation  # noqa: E402

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
    """A tiny Conv2D -> ReLU -> Dense model, compiled (its traces differ in size per layer)."""
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
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / io_type), backend='Vitis', io_type=io_type
    )
    hls_model.compile()
    return hls_model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_chunked_traces_equal_one_call_over_the_batch(io_type: str, dtype, compiled, monkeypatch) -> None:
    hls_model = compiled(io_type)
    x = np.random.default_rng(3).uniform(-2, 2, (37, 6, 6, 2)).astype(dtype)
    whole_predictions, whole = hls_model.trace(x)  # 37 samples fit one chunk of the default scratch
    per_sample = 8 * sum(int(np.prod(shape)) for _, shape in hls_model._simulation.interface.traces)
    monkeypatch.setattr(simulation, 'TRACE_SCRATCH_BYTES', 5 * per_sample)  # chunks of 5, the last of 2
    predictions, traced = hls_model.trace(x)
    assert list(traced) == list(whole) and len(traced) >= 3
    for name, values in traced.items():
        assert values.dtype == dtype and values.shape[0] == len(x) and values.flags.c_contiguous
        np.testing.assert_array_equal(values, whole[name])
    np.testing.assert_array_equal(predictions, whole_predictions)
    np.testing.assert_array_equal(predictions, hls_model.predict(x))
    last = list(traced)[-1]
    np.testing.assert_array_equal(traced[last].reshape(len(x), -1), predictions)
    assert np.abs(traced['conv']).max() > 0  # real values, not an untouched buffer


def test_doubles_are_traced_without_scratch_and_the_scratch_is_kept(compiled, monkeypatch) -> None:
    hls_model = compiled('io_parallel')
    x = np.random.default_rng(6).uniform(-2, 2, (11, 6, 6, 2))
    simulation_object = hls_model._simulation
    _, first = hls_model.trace(x.astype(np.float32))
    kept = simulation_object._scratch.buffers
    _, again = hls_model.trace(x.astype(np.float32))
    assert simulation_object._scratch.buffers is kept  # not made again for the next call
    monkeypatch.setattr(simulation_object, '_trace_scratch', None)  # a double trace must not ask for it
    _, wide = hls_model.trace(x)
    for name in first:
        np.testing.assert_array_equal(again[name], first[name])
        np.testing.assert_array_equal(wide[name].astype(np.float32), first[name])


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


def test_float32_inputs_give_float32_traces_of_the_same_values(compiled, monkeypatch) -> None:
    hls_model = compiled('io_parallel')
    x = np.random.default_rng(4).uniform(-2, 2, (9, 6, 6, 2)).astype(np.float32)
    monkeypatch.setattr(simulation, 'TRACE_SCRATCH_BYTES', 1)  # one sample per call
    _, wide = hls_model.trace(x.astype(np.float64))
    _, narrow = hls_model.trace(x)
    for name, values in narrow.items():
        assert values.dtype == np.float32
        np.testing.assert_array_equal(values, wide[name].astype(np.float32))
