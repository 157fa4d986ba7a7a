"""The project folder: nothing is written through a link inside it, every file is whole, stale
weights go, and a folder that is itself a link (the user's choice) is written into as usual."""

from __future__ import annotations

import os

import pytest
from tiny_onnx import convert, mlp

from hls4ml.writer.files import LOCK_NAME


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / 'outside'
    folder.mkdir()
    (folder / 'precious.h').write_text('keep me')
    return folder


def _untouched(folder) -> None:
    assert sorted(path.name for path in folder.iterdir()) == ['precious.h']
    assert (folder / 'precious.h').read_text() == 'keep me'


def test_a_linked_subfolder_is_refused_before_anything_is_written(tmp_path, outside) -> None:
    project = tmp_path / 'prj'
    project.mkdir()
    (project / 'firmware').symlink_to(outside)
    with pytest.raises(ValueError, match=r'prj/firmware is a symbolic link; hls4ml does not write through links'):
        convert(mlp(), project).write()
    _untouched(outside)
    assert sorted(path.name for path in project.iterdir()) == [LOCK_NAME, 'firmware']


def test_a_linked_file_is_refused_and_its_target_kept(tmp_path, outside) -> None:
    project = tmp_path / 'prj'
    model = convert(mlp(), project)
    model.write()
    defines = project / 'firmware' / 'defines.h'
    defines.unlink()
    defines.symlink_to(outside / 'precious.h')
    with pytest.raises(ValueError, match='defines.h is a symbolic link'):
        model.write()
    _untouched(outside)


def test_a_linked_weights_folder_is_neither_emptied_nor_written(tmp_path, outside) -> None:
    project = tmp_path / 'prj'
    model = convert(mlp(), project)
    model.write()
    weights = project / 'firmware' / 'weights'
    for path in weights.iterdir():
        path.unlink()
    weights.rmdir()
    weights.symlink_to(outside)
    with pytest.raises(ValueError, match='weights is a symbolic link'):
        model.write()
    _untouched(outside)


def test_a_linked_lock_file_is_refused(tmp_path, outside) -> None:
    project = tmp_path / 'prj'
    project.mkdir()
    (project / LOCK_NAME).symlink_to(outside / 'precious.h')
    with pytest.raises(ValueError, match='cannot lock the project folder'):
        convert(mlp(), project).write()
    _untouched(outside)


def test_an_output_dir_that_is_a_link_is_written_into(tmp_path) -> None:
    real = tmp_path / 'real'
    real.mkdir()
    (tmp_path / 'link').symlink_to(real)
    convert(mlp(), tmp_path / 'link').write()
    assert (real / 'firmware' / 'myproject.cpp').is_file()


def test_stale_weights_go_and_unchanged_files_keep_their_timestamps(tmp_path) -> None:
    project = tmp_path / 'prj'
    convert(mlp(seed=1), project).write()
    weights = project / 'firmware' / 'weights'
    (weights / 'w99.h').write_text('// from an older model')
    header = project / 'firmware' / 'ap_types' / 'ap_fixed.h'
    os.utime(header, (1, 1))
    convert(mlp(seed=2), project).write()
    assert not (weights / 'w99.h').exists()
    assert header.stat().st_mtime == 1
    assert not [path for path in project.rglob('*.tmp')]
