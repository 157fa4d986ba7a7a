"""Issue 13 item 8: `hls4ml predict -i x.npz`. One .npz holds every input of the model, by the names
of its Input layers or by position (np.savez's arr_0, arr_1, ...), and predicts exactly what one .npy
per input predicts; an .npz that does not fit is one clear line naming what it holds and what is
expected. Compiles a tiny two-input model with g++."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

from hls4ml.cli import main  # noqa: E402

pytestmark = pytest.mark.csim


def run(capsys: Any, *arguments: str) -> tuple[int, str]:
    """(exit status, stderr) of `hls4ml <arguments>`."""
    status = main(list(arguments))
    return status, capsys.readouterr().err


@pytest.fixture(scope='module')
def workspace(tmp_path_factory) -> Path:
    """A two-input model (first, second), its YAML config, and inputs first.npy / second.npy."""
    keras.utils.set_random_seed(6)
    first, second = keras.Input((3,), name='first'), keras.Input((2,), name='second')
    merged = keras.layers.Concatenate(name='both')([keras.layers.Dense(2, name='fc')(first), second])
    folder = tmp_path_factory.mktemp('npz')
    keras.Model([first, second], merged).save(folder / 'model.keras')
    settings = {'KerasModel': str(folder / 'model.keras'), 'OutputDir': str(folder / 'prj'), 'Backend': 'Vitis'}
    (folder / 'config.yml').write_text(yaml.safe_dump(settings))
    rng = np.random.default_rng(6)
    np.save(folder / 'first.npy', rng.uniform(-2, 2, (7, 3)))
    np.save(folder / 'second.npy', rng.uniform(-2, 2, (7, 2)))
    return folder


def predict(capsys: Any, folder: Path, *inputs: str) -> tuple[int, str, Path]:
    output = folder / f'y_{len(list(folder.glob("y_*.npy")))}.npy'
    arguments = [item for name in inputs for item in ('-i', str(folder / name))]
    status, err = run(capsys, 'predict', '-c', str(folder / 'config.yml'), *arguments, '-o', str(output))
    return status, err, output


def test_an_npz_by_name_or_by_position_predicts_what_npy_files_predict(capsys, workspace: Path) -> None:
    first, second = np.load(workspace / 'first.npy'), np.load(workspace / 'second.npy')
    np.savez(workspace / 'named.npz', second=second, first=first)  # order in the file does not matter
    np.savez(workspace / 'positional.npz', first, second)
    status, err, reference = predict(capsys, workspace, 'first.npy', 'second.npy')
    assert status == 0, err
    expected = np.load(reference)
    assert expected.shape == (7, 4) and np.any(expected != 0)
    for archive in ('named.npz', 'positional.npz'):
        status, err, output = predict(capsys, workspace, archive)
        assert status == 0, err
        np.testing.assert_array_equal(np.load(output), expected)


WRONG_NAMES = (
    'the .npz holds a, b; the model has 2 input(s): name the arrays first, second (its Input layers) or arr_0, '
    'arr_1 (np.savez order)'
)


@pytest.mark.parametrize(
    'arrays, message',
    [
        ({'a': np.zeros((2, 3)), 'b': np.zeros((2, 2))}, WRONG_NAMES),
        ({'first': np.zeros((2, 3))}, 'the .npz holds first; the model has 2 input(s)'),
        ({'first': np.array([{}, {}], dtype=object), 'second': np.zeros((2, 2))}, 'is not an .npz of numeric arrays'),
    ],
)
def test_an_npz_that_does_not_fit_is_one_clear_line(capsys, workspace: Path, arrays: dict, message: str) -> None:
    np.savez(workspace / 'bad.npz', **arrays)
    status, err, _ = predict(capsys, workspace, 'bad.npz')
    assert status == 1 and message in err and 'Traceback' not in err, err


def test_an_npz_must_be_the_only_input(capsys, workspace: Path) -> None:
    np.savez(workspace / 'one.npz', first=np.load(workspace / 'first.npy'))
    status, err, _ = predict(capsys, workspace, 'one.npz', 'second.npy')
    assert status == 1 and 'an .npz holds every input: give it as the only -i' in err
