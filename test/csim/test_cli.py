"""The `hls4ml` command end to end on the bundled example (examples/jet_tagging_mlp.py), through
real processes and files: config -> convert -> compile -> predict, every sub-command's --help, and
bad input giving one clear line on stderr and a non-zero exit status, never a traceback."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytestmark = pytest.mark.csim
REPO = Path(__file__).resolve().parents[2]
SUBCOMMANDS = ('config', 'convert', 'compile', 'predict', 'build', 'report', 'estimate')
SCRIPT = Path(sys.executable).parent / 'hls4ml'  # the console script, when the package is installed


def run_cli(*arguments: str, cwd: Path, module: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, '-m', 'hls4ml.cli'] if module or not SCRIPT.exists() else [str(SCRIPT)]
    environment = {**os.environ, 'TF_CPP_MIN_LOG_LEVEL': '3', 'PYTHONPATH': str(REPO)}
    return subprocess.run([*command, *arguments], cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)


def assert_clean_failure(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode != 0, result.stdout
    assert 'Traceback' not in result.stderr, result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr


@pytest.fixture(scope='module')
def workspace(tmp_path_factory) -> Path:
    """A folder with the bundled example's MLP (trained one epoch) as mlp.keras and test inputs x.npy."""
    keras = pytest.importorskip('keras')
    spec = importlib.util.spec_from_file_location('jet_tagging_mlp', REPO / 'examples' / 'jet_tagging_mlp.py')
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    x_train, x_test, y_train, _ = example.make_data()
    model = example.train_model(x_train[:4000], y_train[:4000], epochs=1)
    folder = tmp_path_factory.mktemp('cli')
    model.save(folder / 'mlp.keras')
    np.save(folder / 'x.npy', x_test[:300])
    np.save(folder / 'keras.npy', model.predict(x_test[:300], verbose=0))
    assert keras.models.load_model(folder / 'mlp.keras').name == 'jet_tagging_mlp'
    return folder


@pytest.fixture(scope='module')
def project(workspace) -> Path:
    """`hls4ml config` then `hls4ml convert` in the workspace: config.yml and the project prj/."""
    result = run_cli(
        'config', '-m', 'mlp.keras', '-o', 'config.yml', '-d', 'prj', '-x', 'ap_fixed<16,6>', cwd=workspace
    )
    assert result.returncode == 0, result.stderr
    result = run_cli('convert', '-c', 'config.yml', cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert '[hls4ml] writing the project to prj' in result.stderr  # progress on stderr, results on stdout
    return workspace


def test_config_and_convert_write_the_yaml_and_the_project(project) -> None:
    settings = yaml.safe_load((project / 'config.yml').read_text())
    assert settings['KerasModel'] == str(project / 'mlp.keras')
    assert settings['Backend'] == 'Vitis' and settings['OutputDir'] == 'prj' and settings['IOType'] == 'io_parallel'
    assert set(settings['HLSConfig']['LayerName']) >= {'fc1', 'fc1_relu', 'output', 'output_softmax'}
    assert settings['HLSConfig']['Model']['Precision']['default'] == 'ap_fixed<16,6>'
    assert (project / 'prj' / 'firmware' / 'myproject.cpp').is_file()
    recorded = yaml.safe_load((project / 'prj' / 'hls4ml_config.yml').read_text())
    assert recorded['KerasModel'] == str(project / 'mlp.keras')  # later commands can take the folder
    printed = run_cli('config', '-m', 'mlp.keras', '-g', 'model', '-ba', 'oneAPI', cwd=project)
    assert printed.returncode == 0, printed.stderr
    assert yaml.safe_load(printed.stdout)['Backend'] == 'oneAPI'  # without -o: the YAML on stdout


def test_compile_then_predict_from_npy_files(project) -> None:
    import hls4ml

    result = run_cli('compile', '-c', 'config.yml', cwd=project)
    assert result.returncode == 0, result.stderr
    library = result.stdout.split('C-simulation library: ')[1].split()[0]
    assert Path(library).is_file()

    result = run_cli('predict', '-c', 'config.yml', '-i', 'x.npy', '-o', 'y.npy', '--trace', 'trace.npz', cwd=project)
    assert result.returncode == 0, result.stderr
    assert 'predicting 300 samples' in result.stderr
    predicted = np.load(project / 'y.npy')
    assert predicted.shape == (300, 5)
    keras_outputs = np.load(project / 'keras.npy')
    assert np.mean(predicted.argmax(axis=1) == keras_outputs.argmax(axis=1)) > 0.95
    np.testing.assert_allclose(predicted, keras_outputs, atol=0.05)
    traces = np.load(project / 'trace.npz')
    assert {'fc1', 'fc1_relu', 'output_softmax'} <= set(traces.files)
    np.testing.assert_array_equal(traces['output_softmax'].reshape(300, -1), predicted)

    result = run_cli('predict', '-c', 'prj', '-i', 'x.npy', '-o', 'y_again.npy', cwd=project)  # the project folder
    assert result.returncode == 0, result.stderr
    np.testing.assert_array_equal(np.load(project / 'y_again.npy'), predicted)

    settings = yaml.safe_load((project / 'config.yml').read_text())
    settings['OutputDir'] = str(project / 'prj_api')
    expected = hls4ml.converters.convert_from_config(settings).predict(np.load(project / 'x.npy'))
    np.testing.assert_array_equal(predicted, expected)  # the command is the Python API, bit for bit


@pytest.mark.parametrize('subcommand', SUBCOMMANDS)
def test_every_subcommand_explains_itself(tmp_path, subcommand) -> None:
    result = run_cli(subcommand, '--help', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f'usage: hls4ml {subcommand}')
    assert len(result.stdout.splitlines()) > 6


def test_top_level_help_lists_the_subcommands_and_version(tmp_path) -> None:
    result = run_cli('--help', cwd=tmp_path, module=True)
    assert result.returncode == 0 and all(name in result.stdout for name in SUBCOMMANDS)
    version = run_cli('--version', cwd=tmp_path, module=True)
    assert version.returncode == 0 and version.stdout.startswith('hls4ml ')


def test_bad_files_give_one_clear_line(tmp_path) -> None:
    assert_clean_failure(run_cli('convert', '-c', 'missing.yml', cwd=tmp_path), "config 'missing.yml' does not exist")
    (tmp_path / 'broken.yml').write_text('KerasModel: [unclosed\n')
    assert_clean_failure(run_cli('compile', '-c', 'broken.yml', cwd=tmp_path), 'is not valid YAML')
    (tmp_path / 'list.yml').write_text('- a\n- b\n')
    assert_clean_failure(run_cli('convert', '-c', 'list.yml', cwd=tmp_path), 'expected a YAML mapping')
    (tmp_path / 'nomodel.yml').write_text('OutputDir: prj\n')
    assert_clean_failure(run_cli('estimate', '-c', 'nomodel.yml', cwd=tmp_path), 'the config names no model')
    (tmp_path / 'gone.yml').write_text('KerasModel: gone.keras\n')
    assert_clean_failure(run_cli('convert', '-c', 'gone.yml', cwd=tmp_path), "KerasModel file 'gone.keras' does not")
    (tmp_path / 'empty').mkdir()
    assert_clean_failure(run_cli('build', '-c', 'empty', cwd=tmp_path), 'without hls4ml_config.yml')
    (tmp_path / 'weights.txt').write_text('1 2 3')
    assert_clean_failure(run_cli('config', '-m', 'weights.txt', cwd=tmp_path), 'unknown model file type')
    assert_clean_failure(run_cli('report', '-p', 'empty', cwd=tmp_path), 'without hls4ml_config.yml')


def test_bad_command_lines_show_the_usage(tmp_path) -> None:
    for arguments in (('transmogrify',), ('predict', '-c', 'config.yml'), ()):
        result = run_cli(*arguments, cwd=tmp_path)
        assert result.returncode == 2 and 'usage: hls4ml' in result.stderr and 'Traceback' not in result.stderr


def test_bad_settings_are_refused_before_the_model_is_read(workspace) -> None:
    result = run_cli('config', '-m', 'mlp.keras', '-ba', 'Quartus9', cwd=workspace)
    assert_clean_failure(result, 'Quartus9')
    assert 'reading mlp.keras' not in result.stderr


def test_model_level_errors_are_one_line(project) -> None:
    np.save(project / 'wrong.npy', np.zeros((4, 7), dtype=np.float32))
    result = run_cli('predict', '-c', 'prj', '-i', 'wrong.npy', '-o', 'out.npy', cwd=project)
    assert_clean_failure(result, 'hls4ml predict: error:', 'expected shape (n_samples, 16)')
    result = run_cli('build', '-c', 'prj', '--synth', '--build-type', 'fpga', cwd=project)
    assert_clean_failure(result, 'the Vitis build has no --build-type')
    result = run_cli('report', '-p', 'prj', cwd=project)
    assert_clean_failure(result, 'hls4ml report: error:', 'prj')


def test_build_without_the_vendor_tool_says_what_is_missing(project) -> None:
    result = run_cli('build', '-c', 'prj', '--no-csim', '--synth', cwd=project)
    if result.returncode == 0:
        pytest.skip('a vendor tool is installed here')
    assert_clean_failure(result, 'hls4ml build: error:', 'vitis_hls')


def test_estimate_prints_json(project) -> None:
    result = run_cli('estimate', '-c', 'prj', '--json', cwd=project)
    if result.returncode != 0:
        assert_clean_failure(result, 'estimator')  # the estimator is not in this installation: a clear message
        return
    report = json.loads(result.stdout)  # stdout holds the JSON alone
    assert isinstance(report, dict) and report
