"""The compile cache: it stores exactly the library of the bytes it hashed, checks every entry before
loading it, rebuilds a damaged one with a warning, and serves cached libraries without a compiler."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import numpy as np
import pytest
from tiny_onnx import cnn, convert, emulated, inputs, mlp

from hls4ml.csim import compiler
from hls4ml.csim.compiler import CacheWarning, CompilationError

pytestmark = pytest.mark.csim


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache of this test's own: these tests damage entries on purpose."""
    folder = tmp_path / 'cache'
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(folder))
    return folder / 'csim'


def _check(hls_model, x: np.ndarray) -> None:
    np.testing.assert_array_equal(hls_model.predict(x), emulated(hls_model, x))


def test_a_model_written_into_the_folder_while_g_plus_plus_runs_cannot_poison_the_cache(
    tmp_path, cache, monkeypatch
) -> None:
    """The old race: the key was hashed from the files, g++ read them again later, and another model
    written in between was stored under this model's key, for good."""
    first = convert(mlp(seed=0, n_out=3), tmp_path / 'prj')
    second = convert(mlp(seed=5, n_out=7), tmp_path / 'prj')
    run_compiler = compiler._run_compiler

    def racing(command: list[str], cwd: Path) -> None:
        second.write()  # the other model lands in the same folder while g++ is about to read
        run_compiler(command, cwd)

    monkeypatch.setattr(compiler, '_run_compiler', racing)
    first.compile()
    monkeypatch.setattr(compiler, '_run_compiler', run_compiler)
    x = inputs(first)
    _check(first, x)
    again = convert(mlp(seed=0, n_out=3), tmp_path / 'elsewhere')
    again.compile()
    assert again._simulation.from_cache
    _check(again, x)
    second.compile()
    _check(second, x)


def _damage(library: Path, entry: Path, how: str) -> None:
    size = library.stat().st_size
    if how == 'cut in half':
        os.truncate(library, size // 2)
    elif how == 'empty':
        os.truncate(library, 0)
    elif how == 'garbage of the same size':
        library.write_bytes(np.random.default_rng(0).integers(0, 256, size, dtype=np.uint8).tobytes())
    elif how == 'deleted':
        library.unlink()
    elif how == 'index garbage':
        entry.write_bytes(b'\x00\xff not json')
    elif how == 'index points outside':
        entry.write_text(json.dumps({'library': '../index/' + entry.name, 'size': 1, 'sha256': 'x'}))


DAMAGES = ['cut in half', 'empty', 'garbage of the same size', 'deleted', 'index garbage', 'index points outside']


@pytest.mark.parametrize('how', DAMAGES)
def test_a_damaged_entry_is_rebuilt_with_a_warning(tmp_path, cache, how) -> None:
    model = convert(mlp(), tmp_path / 'prj')
    model.compile()
    x = inputs(model)
    expected = model.predict(x)
    (entry,) = (cache / 'index').glob('*.json')
    _damage(model._simulation.library_path, entry, how)
    fresh = convert(mlp(), tmp_path / 'other')
    with pytest.warns(CacheWarning, match=f'compile cache entry {entry.name}: .*; rebuilding it'):
        fresh.compile()
    assert not fresh._simulation.from_cache
    np.testing.assert_array_equal(fresh.predict(x), expected)
    later = convert(mlp(), tmp_path / 'third')
    later.compile()  # the rebuilt entry is whole again: no warning, from the cache
    assert later._simulation.from_cache


def test_without_a_compiler_a_cached_library_still_serves(tmp_path, cache, monkeypatch) -> None:
    model = convert(mlp(), tmp_path / 'prj')
    model.compile()
    x = inputs(model)
    monkeypatch.setenv('CXX', 'no-such-compiler-hls4ml')
    again = convert(mlp(), tmp_path / 'other')
    with pytest.warns(CacheWarning, match="C\\+\\+ compiler 'no-such-compiler-hls4ml' not found; using"):
        again.compile()
    _check(again, x)
    changed = convert(mlp(seed=9), tmp_path / 'changed')
    with pytest.raises(CompilationError, match="compiler 'no-such-compiler-hls4ml' not found: install g\\+\\+"):
        changed.compile()


def _fake_compiler(folder: Path, name: str, body: str) -> str:
    """A stand-in for g++ that answers --version and otherwise runs `body`."""
    script = folder / name
    script.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "{name} 1.0"; exit 0; fi\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_a_compiler_killed_by_a_signal_is_named(tmp_path, cache, monkeypatch) -> None:
    monkeypatch.setenv('CXX', _fake_compiler(tmp_path, 'killed-cxx', 'kill -9 $$'))
    model = convert(mlp(), tmp_path / 'prj')
    with pytest.raises(CompilationError, match=r'g\+\+ was killed by SIGKILL .*\(out of memory\?\)'):
        model.compile()


def test_a_compiler_that_hangs_times_out(tmp_path, cache, monkeypatch) -> None:
    monkeypatch.setenv('CXX', _fake_compiler(tmp_path, 'slow-cxx', 'exec sleep 30'))
    monkeypatch.setenv('HLS4ML_COMPILE_TIMEOUT', '1')
    model = convert(mlp(), tmp_path / 'prj')
    with pytest.raises(CompilationError, match=r'within 1 s; set HLS4ML_COMPILE_TIMEOUT'):
        model.compile()


def test_a_library_that_does_not_fit_the_model_is_refused(tmp_path, cache) -> None:
    """Even a forged index entry naming an intact library of another model cannot be called into."""
    small, large = convert(mlp(n_out=2), tmp_path / 'a'), convert(mlp(n_out=9), tmp_path / 'b')
    small.compile()
    large.compile()
    entries = {json.loads(path.read_text())['library']: path for path in (cache / 'index').glob('*.json')}
    small_entry = entries[small._simulation.library_path.name]
    small_entry.write_text(entries[large._simulation.library_path.name].read_text())
    with pytest.raises(CompilationError, match='does not fit this model'):
        convert(mlp(n_out=2), tmp_path / 'c').compile()


def test_nan_and_inf_inputs_are_warned_about_and_follow_the_header_semantics(tmp_path) -> None:
    model = convert(mlp(), tmp_path / 'prj')
    x = inputs(model, n=4)
    x[0, 0], x[1, 2] = np.nan, -np.inf
    with pytest.warns(RuntimeWarning, match=r"input 'x': 1 NaN and 1 infinite value\(s\)"):
        predicted = model.predict(x)
    np.testing.assert_array_equal(predicted, emulated(model, x))


def test_a_ragged_input_is_refused_naming_the_input(tmp_path) -> None:
    model = convert(mlp(), tmp_path / 'prj')
    with pytest.raises(ValueError, match="input 'x': not a rectangular numeric array"):
        model.predict([[0.0] * 6, [0.0] * 5])


def _age_cache(cache: Path, hours: float = 1.0) -> None:
    """Make every library, index entry and object of the cache look last used `hours` ago."""
    when = time.time() - hours * 3600
    for sub in ('lib', 'index', 'obj'):
        for path in (cache / sub).glob('*'):
            os.utime(path, (when, when))


@pytest.mark.filterwarnings('error::hls4ml.csim.compiler.CacheWarning')
def test_the_bound_prunes_the_least_recently_used_library_and_it_is_rebuilt_cleanly(
    tmp_path, cache, monkeypatch
) -> None:
    first, second = convert(mlp(seed=0), tmp_path / 'a'), convert(mlp(seed=1), tmp_path / 'b')
    first.compile()
    x = inputs(first)
    expected = first.predict(x)
    second.compile()
    _age_cache(cache)
    convert(mlp(seed=1), tmp_path / 'b2').compile()  # a hit: marks the second model's library used
    monkeypatch.setenv('HLS4ML_CACHE_MAX_MB', '0')
    convert(mlp(seed=2), tmp_path / 'c').compile()  # a store: prunes what was not used in the last minutes
    libraries = {path.name for path in (cache / 'lib').glob('*.so')}
    assert first._simulation.library_path.name not in libraries
    assert second._simulation.library_path.name in libraries
    assert len(list((cache / 'index').glob('*.json'))) == len(libraries) == 2  # no entry left without its library
    np.testing.assert_array_equal(first.predict(x), expected)  # loaded before: its inode lives on
    again = convert(mlp(seed=0), tmp_path / 'a2')
    again.compile()  # a clean miss: no CacheWarning (an error here)
    assert not again._simulation.from_cache
    np.testing.assert_array_equal(again.predict(x), expected)


@pytest.mark.filterwarnings('error::hls4ml.csim.compiler.CacheWarning')
def test_a_split_build_marks_the_objects_it_links_and_the_bound_prunes_the_others(tmp_path, cache, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1')
    model = convert(cnn(seed=0), tmp_path / 'a')
    model.compile()
    objects = sorted((cache / 'obj').glob('*.o'))
    assert len(objects) >= 2
    _age_cache(cache)
    for entry in (cache / 'index').glob('*.json'):
        entry.unlink()  # the library's entry gone: the next compile links the cached objects again
    monkeypatch.setenv('HLS4ML_CACHE_MAX_MB', '0')
    again = convert(cnn(seed=0), tmp_path / 'b')
    again.compile()
    assert sorted((cache / 'obj').glob('*.o')) == objects  # linked just now: kept
    assert all(time.time() - path.stat().st_mtime < 60 for path in objects)
    x = inputs(again)
    np.testing.assert_array_equal(again.predict(x), emulated(again, x))
    _age_cache(cache)
    convert(mlp(seed=3), tmp_path / 'c').compile()  # a store prunes the aged objects with their checksums
    assert not any(path.exists() or path.with_suffix('.sha256').exists() for path in objects)
