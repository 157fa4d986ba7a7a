"""The split C-simulation build computes, bit for bit, what the one-translation-unit build computes, on one
model of each layer family the partition meets (hls4ml/writer/csim_units.py): recurrent layers, attention,
1-D convolutions in streams, batch normalisation with a softmax, depthwise convolutions and a top-k router
(a SOM's model has a learner, and learners stay one unit). The rest of the suite compiles one unit
(test/conftest.py says why); test_split_build.py and these keep the split honest."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.nn.keras_moe import TopKRouter  # noqa: E402

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('error::hls4ml.csim.units.UnitCacheWarning')]


def _recurrent() -> tuple[keras.Model, str]:
    inputs = keras.Input((5, 3))
    hidden = keras.layers.LSTM(4, return_sequences=True, name='lstm')(inputs)
    hidden = keras.layers.GRU(3, name='gru')(hidden)
    return keras.Model(inputs, keras.layers.Dense(2, name='out')(hidden)), 'io_parallel'


def _attention() -> tuple[keras.Model, str]:
    inputs = keras.Input((4, 6))
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, name='mha')(inputs, inputs)
    added = keras.layers.Add(name='residual')([inputs, attended])
    pooled = keras.layers.GlobalAveragePooling1D(name='pool')(added)
    return keras.Model(inputs, keras.layers.Dense(3, name='out')(pooled)), 'io_parallel'


def _conv1d_stream() -> tuple[keras.Model, str]:
    inputs = keras.Input((12, 3))
    hidden = keras.layers.Conv1D(4, 3, activation='relu', name='conv1')(inputs)
    hidden = keras.layers.AveragePooling1D(2, name='pool')(hidden)
    hidden = keras.layers.Conv1D(2, 3, padding='same', name='conv2')(hidden)
    hidden = keras.layers.GlobalMaxPooling1D(name='gmax')(hidden)
    return keras.Model(inputs, keras.layers.Dense(2, name='out')(hidden)), 'io_stream'


def _batchnorm_softmax() -> tuple[keras.Model, str]:
    inputs = keras.Input((6,))
    hidden = keras.layers.Dense(8, name='fc1')(inputs)
    norm = keras.layers.BatchNormalization(name='bn')
    hidden = keras.layers.Activation('relu', name='relu')(norm(hidden))
    model = keras.Model(inputs, keras.layers.Dense(4, activation='softmax', name='fc2')(hidden))
    rng = np.random.default_rng(5)
    gamma, beta = rng.uniform(0.5, 1.5, 8), rng.normal(0, 0.3, 8)
    norm.set_weights([gamma, beta, rng.normal(0, 0.5, 8), rng.uniform(0.5, 2.0, 8)])
    return model, 'io_parallel'


def _depthwise_stream() -> tuple[keras.Model, str]:
    inputs = keras.Input((6, 6, 2))
    hidden = keras.layers.DepthwiseConv2D(3, activation='relu', name='dw')(inputs)
    hidden = keras.layers.Conv2D(3, 1, name='pw')(hidden)
    hidden = keras.layers.Flatten(name='flat')(hidden)
    return keras.Model(inputs, keras.layers.Dense(2, name='out')(hidden)), 'io_stream'


def _router() -> tuple[keras.Model, str]:
    inputs = keras.Input((4, 5))
    hidden = keras.layers.Dense(6, activation='relu', name='fc')(inputs)
    return keras.Model(inputs, TopKRouter(4, k=2, name='router')(hidden)), 'io_parallel'


FAMILIES = [_recurrent, _attention, _conv1d_stream, _batchnorm_softmax, _depthwise_stream, _router]


def _run(model: keras.Model, io_type: str, folder, x: np.ndarray, split: bool, monkeypatch) -> tuple:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1' if split else '0')
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend='Vitis', io_type=io_type
    )
    hls_model.compile()
    units = hls_model._simulation.interface.sources.units
    assert len(units) >= (3 if split else 0)  # split: at least two layer units and the bridge
    return hls_model.trace(x)


@pytest.mark.parametrize('build', FAMILIES, ids=lambda build: build.__name__.strip('_'))
@pytest.mark.filterwarnings("ignore:'auto' precision is capped")
def test_split_build_equals_single_unit(build, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path / 'cache'))
    keras.utils.set_random_seed(21)
    model, io_type = build()
    shape = tuple(int(size) for size in model.inputs[0].shape[1:])
    x = np.random.default_rng(6).uniform(-2, 2, (25, *shape))
    split_predictions, split_traces = _run(model, io_type, tmp_path / 'split', x, True, monkeypatch)
    predictions, traces = _run(model, io_type, tmp_path / 'single', x, False, monkeypatch)
    for one, other in zip(_as_list(split_predictions), _as_list(predictions), strict=True):
        np.testing.assert_array_equal(one, other)
    assert split_traces.keys() == traces.keys()
    for name in traces:
        np.testing.assert_array_equal(split_traces[name], traces[name], err_msg=name)


def _as_list(predictions) -> list:
    return list(predictions) if isinstance(predictions, list) else [predictions]
