"""The calibration kept: estimate() within 2x of real synthesis reports, on models rebuilt in Keras.

Each anchor is one report of the calibration set (`shared/specs/estimator_calibration`, the models of
hls4ml's test_keras_api.py synthesized by the vendor tools): the model is rebuilt here with the same
layers, initializers and configuration (seeded: the originals were unseeded), converted, estimated,
and every figure of the report compared with the point estimate as the scorer does:
(estimate + 1) / (report + 1) within [1/2, 2]. The constants these anchors pin down are listed with
their source in docs/estimator.md ("Calibration"); changing a rule so that an anchor drifts out of
2x must be a decision, not an accident.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

os.environ.setdefault('KERAS_BACKEND', 'tensorflow')
keras = pytest.importorskip('keras', reason='the calibration anchors are Keras models (the keras extra)')

import hls4ml  # noqa: E402

SEED = 42
UNCERTAINTY = {'Vivado': '12.5%', 'Vitis': '27%', 'oneAPI': None}
PART = {'Vivado': 'xcvu13p-flga2577-2-e', 'Vitis': 'xcvu13p-flga2577-2-e', 'oneAPI': 'Agilex7'}
# report column -> the estimate's column, per vendor
COLUMNS = {
    'amd': {'DSP': 'DSP', 'LUT': 'LUT', 'FF': 'FF', 'BRAM': 'BRAM_18K'},
    'intel': {'DSP': 'DSP', 'LUT': 'ALUT', 'FF': 'REG', 'BRAM': 'RAM'},
}


def dense_then(activation: Any) -> list[Any]:
    dense = keras.layers.Dense(64, kernel_initializer='lecun_uniform', bias_initializer='zeros')
    return [dense, activation]


def build(layers: list[Any], input_shape: tuple[int, ...]) -> Any:
    return keras.Sequential([keras.Input(shape=input_shape), *layers])


# (report id, layers factory, input shape, backend, io type, strategy, report figures)
ANCHORS = [
    (
        'Vitis/2024.1 activations io_parallel prelu',
        lambda: dense_then(keras.layers.PReLU(alpha_initializer='zeros')),
        (1,), 'Vitis', 'io_parallel', 'Latency',
        {'latency': 0, 'DSP': 59, 'LUT': 2910, 'FF': 18, 'BRAM': 0},
    ),
    (
        'Vivado/2020.1 activations io_parallel sigmoid',
        lambda: dense_then(keras.layers.Activation('sigmoid')),
        (1,), 'Vivado', 'io_parallel', 'Latency',
        {'latency': 2, 'DSP': 61, 'LUT': 9884, 'FF': 1047, 'BRAM': 32},
    ),
    (
        'Vitis/2024.1 activations io_stream relu',
        lambda: dense_then(keras.layers.Activation('relu')),
        (1,), 'Vitis', 'io_stream', 'Latency',
        {'latency': 2, 'DSP': 59, 'LUT': 4043, 'FF': 2064, 'BRAM': 0},
    ),
    (
        'Vivado/2020.1 activations io_stream leaky_relu (slope 1)',
        lambda: dense_then(keras.layers.LeakyReLU(negative_slope=1.0)),
        (1,), 'Vivado', 'io_stream', 'Latency',
        {'latency': 2, 'DSP': 60, 'LUT': 3978, 'FF': 326, 'BRAM': 0},
    ),
    (
        'Vitis/2024.1 pooling valid AveragePooling2D',
        lambda: [keras.layers.AveragePooling2D(pool_size=(2, 2), padding='valid')],
        (18, 15, 3), 'Vitis', 'io_parallel', 'Latency',
        {'latency': 0, 'DSP': 0, 'LUT': 10433, 'FF': 12962, 'BRAM': 0},
    ),
    (
        'Vivado/2020.1 pooling same AveragePooling2D (a divider per output)',
        lambda: [keras.layers.AveragePooling2D(pool_size=(2, 2), padding='same')],
        (18, 15, 3), 'Vivado', 'io_parallel', 'Latency',
        {'latency': 21, 'DSP': 0, 'LUT': 112578, 'FF': 181032, 'BRAM': 0},
    ),
    (
        'Vitis/2024.1 depthwise1d io_stream',
        lambda: [keras.layers.DepthwiseConv1D(kernel_size=3, depthwise_initializer='glorot_uniform')],
        (32, 3), 'Vitis', 'io_stream', 'Latency',
        {'latency': 35, 'DSP': 9, 'LUT': 679, 'FF': 412, 'BRAM': 0},
    ),
    (
        'Vivado/2020.1 conv2d io_parallel Resource same',
        lambda: [
            keras.layers.Conv2D(
                32, (4, 4), strides=(4, 4), padding='same', use_bias=False,
                kernel_initializer=keras.initializers.RandomNormal(mean=0.0, stddev=0.05),
            )
        ],
        (28, 28, 3), 'Vivado', 'io_parallel', 'Resource',
        {'latency': 52, 'DSP': 740, 'LUT': 86819, 'FF': 52870, 'BRAM': 0},
    ),
    (
        'oneAPI/2025.0.1 activations io_parallel sigmoid',
        lambda: dense_then(keras.layers.Activation('sigmoid')),
        (1,), 'oneAPI', 'io_parallel', 'Latency',
        {'latency': 8, 'DSP': 0, 'LUT': 9273, 'FF': 4140, 'BRAM': 192},
    ),
    (
        'oneAPI/2025.0.1 pooling valid AveragePooling1D',
        lambda: [keras.layers.AveragePooling1D(pool_size=2, padding='valid')],
        (121, 3), 'oneAPI', 'io_parallel', 'Latency',
        {'latency': 3, 'DSP': 0, 'LUT': 8544, 'FF': 8751, 'BRAM': 0},
    ),
]  # fmt: skip


def estimate_of(layers: list[Any], input_shape: tuple[int, ...], backend: str, io_type: str, strategy: str, tmp) -> Any:
    keras.utils.set_random_seed(SEED)
    model = build(layers, input_shape)
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='fixed<16,6>')
    config['Model']['Strategy'] = strategy
    options = {'part': PART[backend], 'clock_period': 5}
    if UNCERTAINTY[backend]:
        options['clock_uncertainty'] = UNCERTAINTY[backend]
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp), backend=backend, io_type=io_type, **options
    )
    return hls_model.estimate()


@pytest.mark.parametrize(('report', 'layers', 'shape', 'backend', 'io_type', 'strategy', 'truth'), ANCHORS)
def test_estimate_is_within_2x_of_the_report(report, layers, shape, backend, io_type, strategy, truth, tmp_path):
    estimate = estimate_of(layers(), shape, backend, io_type, strategy, tmp_path)
    columns = COLUMNS['intel' if backend == 'oneAPI' else 'amd']
    points = {'latency': estimate.latency_cycles.value}
    points |= {name: estimate.total.resources[column].value for name, column in columns.items()}
    ratios = {name: (points[name] + 1) / (truth[name] + 1) for name in truth}
    outside = {name: round(ratio, 2) for name, ratio in ratios.items() if not 0.5 <= ratio <= 2.0}
    assert not outside, f'{report}: estimate / report outside 2x: {outside} (points {points}, report {truth})'


def test_the_bounds_hold_the_point_and_the_band_lies_inside_them(tmp_path) -> None:
    report, layers, shape, backend, io_type, strategy, _ = ANCHORS[1]
    estimate = estimate_of(layers(), shape, backend, io_type, strategy, tmp_path)
    for name, value in estimate.total.resources.items():
        entry = estimate.to_dict()['total']['resources'][name]
        assert value.low <= value.value <= value.high, name
        assert value.low <= entry['band'][0] <= entry['value'] <= entry['band'][1] <= value.high, name
    assert '(' in str(estimate)  # the table prints 'point (band)'
