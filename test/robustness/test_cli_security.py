"""Issue 13 items 4, 5 and 9 through the `hls4ml` command (run in-process through `hls4ml.cli.main`): an
injected part from the command line or a YAML `Part:` key is refused before anything is written, a
project folder naming a pickled PyTorch model cannot load it without `--allow-pickle`, and unknown
config keys are one clear line on stderr."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

from hls4ml.cli import main  # noqa: E402

INJECTED_PART = 'xcvu9p[exec touch hacked]'


def run(capsys: Any, *arguments: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `hls4ml <arguments>`."""
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def error_line(stderr: str) -> str:
    """The one error line (progress lines start with [hls4ml])."""
    lines = [line for line in stderr.splitlines() if not line.startswith('[hls4ml]')]
    assert len(lines) == 1 and 'Traceback' not in stderr, stderr
    return lines[0]


@pytest.fixture(scope='module')
def keras_file(tmp_path_factory) -> Path:
    keras.utils.set_random_seed(5)
    inputs = keras.Input((4,), name='x')
    path = tmp_path_factory.mktemp('models') / 'model.keras'
    keras.Model(inputs, keras.layers.Dense(2, name='fc')(inputs)).save(path)
    return path


def test_an_injected_part_on_the_command_line_is_refused(capsys, keras_file, tmp_path: Path) -> None:
    status, out, err = run(capsys, 'config', '-m', str(keras_file), '-f', INJECTED_PART, '-d', str(tmp_path / 'p'))
    assert status == 1 and out == ''
    assert 'part (config key Part) must be a Xilinx part name' in error_line(err) and INJECTED_PART in err


def test_an_injected_part_in_a_yaml_config_is_refused_before_anything_is_written(capsys, keras_file, tmp_path) -> None:
    config = tmp_path / 'config.yml'
    settings = {'KerasModel': str(keras_file), 'OutputDir': str(tmp_path / 'prj'), 'Part': INJECTED_PART}
    config.write_text(yaml.safe_dump(settings))
    status, _, err = run(capsys, 'convert', '-c', str(config))
    assert status == 1 and 'ValueError: part (config key Part) must be a Xilinx part name' in error_line(err)
    assert not (tmp_path / 'prj').exists() and not Path('hacked').exists()


def test_an_unknown_key_in_a_yaml_config_is_one_line(capsys, keras_file, tmp_path: Path) -> None:
    config = tmp_path / 'config.yml'
    config.write_text(yaml.safe_dump({'KerasModel': str(keras_file), 'OutputDir': str(tmp_path), 'IoType': 'x'}))
    status, _, err = run(capsys, 'convert', '-c', str(config))
    assert status == 1 and "unknown top-level key(s) 'IoType'; the keys are" in error_line(err)


@pytest.fixture
def torch_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project folder whose hls4ml_config.yml names a hostile pickle, and a folder naming a real module."""
    torch = pytest.importorskip('torch')

    class RunsWhenUnpickled:
        def __reduce__(self) -> Any:
            return (os.mkdir, (str(tmp_path / 'hacked'),))

    torch.save(RunsWhenUnpickled(), tmp_path / 'hostile.pt')
    torch.save(torch.nn.Sequential(torch.nn.Linear(4, 2)), tmp_path / 'module.pt')
    folders = []
    for name in ('hostile', 'module'):
        folder = tmp_path / f'{name}_prj'
        folder.mkdir()
        settings = {'PytorchModel': str(tmp_path / f'{name}.pt'), 'InputShape': [4], 'Backend': 'Vitis'}
        (folder / 'hls4ml_config.yml').write_text(yaml.safe_dump(settings))
        folders.append(folder)
    return folders[0], folders[1]


def test_a_project_folder_cannot_load_a_pickle_without_the_flag(capsys, torch_project) -> None:
    hostile, module = torch_project
    for folder in (hostile, module):
        status, _, err = run(capsys, 'convert', '-c', str(folder))
        assert status == 1
        assert 'is a pickled PyTorch model: loading it runs code' in error_line(err) and '--allow-pickle' in err
    assert not (hostile.parent / 'hacked').exists()


def test_allow_pickle_converts_a_trusted_module(capsys, torch_project) -> None:
    _, module = torch_project
    status, _, err = run(capsys, 'convert', '-c', str(module), '--allow-pickle')
    assert status == 0, err
    assert (module / 'firmware' / 'myproject.cpp').is_file()


def test_config_of_a_pt_file_needs_the_flag(capsys, torch_project) -> None:
    _, module = torch_project
    model = str(module.parent / 'module.pt')
    status, _, err = run(capsys, 'config', '-m', model, '--input-shape', '4')
    assert status == 1 and '--allow-pickle' in error_line(err)
    status, out, err = run(capsys, 'config', '-m', model, '--input-shape', '4', '--allow-pickle')
    assert status == 0, err
    assert yaml.safe_load(out)['PytorchModel'] == model
