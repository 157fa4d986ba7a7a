"""The Verilog project's written testbench, simulated with Verilator (`build(cosim=True)`): it reads the
InputData written into tb/input.mem and its outputs equal predict()'s, sample for sample. Skips,
saying which tool is missing, where Verilator is not installed (scripts/setup_env.sh installs it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')


def verilator_major() -> int:
    """Verilator's major version (0 when it is not installed)."""
    if shutil.which('verilator') is None:
        return 0
    version = subprocess.run(['verilator', '--version'], capture_output=True, text=True, check=False).stdout
    found = re.search(r'Verilator (\d+)', version)
    return int(found.group(1)) if found else 0


pytestmark = [
    pytest.mark.csim,
    pytest.mark.skipif(
        verilator_major() < 5, reason='verilator 5 (--binary --timing) is not installed (apt-get install verilator)'
    ),
]


def model() -> keras.Model:
    keras.utils.set_random_seed(13)
    layers = keras.layers
    return keras.Sequential(
        [keras.Input((5,)), layers.Dense(4, activation='tanh'), layers.Dense(3, activation='softmax')]
    )


def convert(folder, inputs: str | None):
    network = model()
    config = hls4ml.utils.config_from_keras_model(network, granularity='model', default_precision='ap_fixed<9,3>')
    return hls4ml.converters.convert_from_keras_model(
        network, hls_config=config, output_dir=str(folder / 'prj'), backend='Verilog', input_data_tb=inputs
    )


def test_the_testbench_outputs_equal_predict(tmp_path):
    x = np.random.default_rng(7).uniform(-5, 5, (400, 5))  # tanh and softmax: ROM tables read by the RTL
    np.save(tmp_path / 'inputs.npy', x)
    hls_model = convert(tmp_path, str(tmp_path / 'inputs.npy'))
    report = hls_model.build(synth=False, cosim=True)
    assert list((tmp_path / 'prj' / 'src' / 'memfiles').glob('*.mem'))  # read from the run's folder
    assert set(report) == {'CosimReport'}
    cosim = report['CosimReport']
    assert cosim['Status'] == 'Pass' and cosim['Samples'] == 400
    expected = hls_model.predict(x)
    np.testing.assert_array_equal(cosim['Outputs'], expected)
    assert len(np.unique(expected, axis=0)) > 100  # varied outputs: a lagging pipeline would show
    logged = np.loadtxt(tmp_path / 'prj' / 'tb' / 'rtl_cosim_results.log')
    np.testing.assert_array_equal(logged, expected)
    simulation = hls_model.compiled_simulation('latency')
    assert cosim['LatencyMin'] == simulation.latency_cycles(x)


def test_cosim_without_input_data_names_the_option(tmp_path):
    hls_model = convert(tmp_path, None)
    hls_model.write()
    with pytest.raises(ValueError, match='input_data_tb'):
        hls_model.build(synth=False, cosim=True)
