"""trace() on the Verilog backend against the Vitis C-simulation's trace() of the same model: every
traced layer's values bit for bit (an MLP with ReLU and softmax, a tiny CNN), the predictions those of
the project's own RTL, and a `Trace` marking choosing the same layers. Skips, saying which tool is
missing, where Verilator is not installed (scripts/setup_env.sh installs it)."""

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


def convert_both(model: keras.Model, folder, precision: str, traced: tuple[str, ...] = ()) -> list:
    """The model on Vitis and on Verilog (per-layer config; `traced` marks those layers Trace: True)."""
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=precision)
    for name in traced:
        config['LayerName'][name]['Trace'] = True
    return [
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(folder / backend), backend=backend
        )
        for backend in ('Vitis', 'Verilog')
    ]


def mlp() -> keras.Model:
    keras.utils.set_random_seed(11)
    layers = keras.layers
    return keras.Sequential(
        [keras.Input((6,)), layers.Dense(5, activation='relu'), layers.Dense(3, activation='softmax')]
    )


def cnn() -> keras.Model:
    keras.utils.set_random_seed(12)
    layers = keras.layers
    return keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            layers.Conv2D(2, 3, activation='relu'),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(2),
        ]
    )


@pytest.fixture(scope='module')
def mlp_pair(tmp_path_factory):
    return convert_both(mlp(), tmp_path_factory.mktemp('mlp'), 'ap_fixed<10,4>')


def assert_same_trace(vitis, verilog, x) -> dict:
    expected_y, expected = vitis.trace(x)
    got_y, got = verilog.trace(x)
    np.testing.assert_array_equal(got_y, expected_y)
    assert list(got) == list(expected)
    for name, values in expected.items():
        assert got[name].shape == values.shape, name
        assert got[name].dtype == values.dtype, name
        np.testing.assert_array_equal(got[name], values, err_msg=name)
    return got


def test_mlp_trace_is_bit_exact_with_the_c_simulation(mlp_pair):
    vitis, verilog = mlp_pair
    x = np.random.default_rng(3).uniform(-4, 4, (2000, 6))
    got = assert_same_trace(vitis, verilog, x)
    assert [values.shape[1] for values in got.values()] == [5, 5, 3, 3]  # dense, relu, dense, softmax
    assert len({values.tobytes() for values in got.values()}) == len(got)  # distinct layers, not one copy
    np.testing.assert_array_equal(verilog.trace(x)[0], verilog.predict(x))


def test_one_sample_and_float32_are_traced_like_the_c_simulation(mlp_pair):
    vitis, verilog = mlp_pair
    sample = np.random.default_rng(4).uniform(-4, 4, 6).astype(np.float32)
    got = assert_same_trace(vitis, verilog, sample)
    assert next(iter(got.values())).shape == (1, 5)


def test_the_trace_build_leaves_the_project_module_unchanged(mlp_pair):
    _, verilog = mlp_pair
    verilog.compile()  # not left to an earlier test: alone, or on another xdist worker, nothing compiled it
    simulation = verilog.compiled_simulation('trace')
    assert not simulation.project.traces
    assert not any('_trace' in path for path in simulation.project.files)
    verilog.trace(np.zeros((2, 6)))
    tracer = simulation._tracer()
    assert tracer.project.name == f'{simulation.project.name}_trace'
    assert [name for name, _ in tracer.project.traces] == list(verilog.trace(np.zeros((1, 6)))[1])


def test_marked_layers_only_are_traced(tmp_path):
    model = mlp()
    second = model.layers[1].name
    vitis, verilog = convert_both(model, tmp_path, 'ap_fixed<10,4>', traced=(second,))
    x = np.random.default_rng(5).uniform(-4, 4, (300, 6))
    got = assert_same_trace(vitis, verilog, x)
    assert list(got) == [second]


def test_cnn_trace_is_bit_exact_with_the_c_simulation(tmp_path):
    vitis, verilog = convert_both(cnn(), tmp_path, 'ap_fixed<8,3>')
    x = np.random.default_rng(6).uniform(-2, 2, (1000, 4, 4, 1))
    got = assert_same_trace(vitis, verilog, x)
    shapes = [values.shape[1:] for values in got.values()]
    assert shapes[0] == (2, 2, 2) and (1, 1, 2) in shapes and shapes[-1] == (2,)  # conv, pooling, dense
