"""The Verilog backend against the Vitis C-simulation of the same model: Verilator predict bit-exact
(MLP on each accumulation path, a small CNN with max pooling and softmax, a merge), the latency measured
on the Verilated model, the compile cache, and Yosys' LUT/FF against the estimate. Skips, saying which
tool is missing, where Verilator or Yosys is not installed (scripts/setup_env.sh installs both)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from verilog_programs import needs_tool  # noqa: E402

import hls4ml  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')
pytestmark = [
    pytest.mark.csim,
    needs_tool('verilator'),
]
needs_yosys = needs_tool('yosys')


def convert_both(model: keras.Model, tmp_path, precision: str, granularity: str = 'model', clock_period: float = 5):
    config = hls4ml.utils.config_from_keras_model(model, granularity=granularity, default_precision=precision)
    return [
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend, clock_period=clock_period
        )
        for backend in ('Vitis', 'Verilog')
    ]


def assert_bit_exact(model: keras.Model, tmp_path, precision: str, x: np.ndarray, granularity: str = 'model'):
    vitis, verilog = convert_both(model, tmp_path, precision, granularity)
    verilog.compile()
    expected, got = vitis.predict(x), verilog.predict(x)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    return verilog


def mlp(activation: str) -> keras.Model:
    keras.utils.set_random_seed(5)
    layers = keras.layers
    return keras.Sequential(
        [keras.Input((6,)), layers.Dense(5, activation='relu'), layers.Dense(3, activation=activation)]
    )


@pytest.mark.parametrize(
    ('activation', 'precision', 'granularity'),
    [
        ('sigmoid', 'ap_fixed<8,3>', 'model'),  # accumulator wraps and drops product bits: per-product writes
        ('tanh', 'ap_fixed<12,4>', 'name'),  # exact accumulators: one adder graph per layer; wide tanh input
        ('linear', 'ap_fixed<9,4,AP_RND,AP_SAT>', 'model'),  # saturating accumulator: the C++ order
    ],
)
def test_mlp_is_bit_exact_with_the_c_simulation(tmp_path, activation, precision, granularity):
    x = np.random.default_rng(0).uniform(-6, 6, (3000, 6))
    verilog = assert_bit_exact(mlp(activation), tmp_path, precision, x, granularity)
    simulation = verilog.compiled_simulation('latency')
    assert simulation.latency_cycles(x) == simulation.project.stages + 1  # the input register, then the stages
    verilog.compile()  # unchanged: from the content-hash cache
    assert verilog.compiled_simulation('cache').from_cache


def test_cnn_with_pooling_and_softmax_is_bit_exact(tmp_path):
    keras.utils.set_random_seed(6)
    layers = keras.layers
    model = keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            layers.Conv2D(2, 3, activation='relu', padding='same'),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(3, activation='softmax'),
        ]
    )
    x = np.random.default_rng(1).uniform(-2, 2, (1000, 4, 4, 1))
    assert_bit_exact(model, tmp_path, 'ap_fixed<6,3>', x, 'name')


def test_merge_and_concatenate_are_bit_exact(tmp_path):
    keras.utils.set_random_seed(7)
    first, second = keras.Input((4,)), keras.Input((4,))
    hidden = keras.layers.Dense(4)(first)
    summed = keras.layers.Add()([hidden, second])
    joined = keras.layers.Concatenate()([summed, keras.layers.Maximum()([first, second])])
    model = keras.Model([first, second], joined)
    rng = np.random.default_rng(2)
    x = [rng.uniform(-3, 3, (500, 4)), rng.uniform(-3, 3, (500, 4))]
    vitis, verilog = convert_both(model, tmp_path, 'ap_fixed<10,4>')
    verilog.compile()
    np.testing.assert_array_equal(verilog.predict(x), vitis.predict(x))


@needs_yosys
def test_yosys_resources_agree_with_the_estimate(tmp_path):
    _, verilog = convert_both(mlp('relu'), tmp_path, 'ap_fixed<6,3>', 'name')
    report = verilog.build()['YosysSynthReport']
    estimate = verilog.estimate().total.resources
    assert report['DSP48E'] == 0 and report['LUT'] > 0 and report['FF'] > 0
    assert 0.5 < report['LUT'] / estimate['LUT'].low < 2.0
    assert 0.5 < report['FF'] / estimate['FF'].low < 2.0
    assert report['Target'] == 'synth_xilinx -family xcup'
