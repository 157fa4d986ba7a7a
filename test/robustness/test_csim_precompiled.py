"""The precompiled header of the kernel libraries (hls4ml/csim/precompiled.py): one per dialect, built at
install time beside the package or in the background after a cold compile, used by every later model and
by each unit of a split build, keyed by every byte it is built from, and a header that fails to build never
stops a library from compiling."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from tiny_onnx import cnn, convert, emulated, inputs, mlp

from hls4ml.csim import compiler, precompiled
from hls4ml.writer import write_project

pytestmark = pytest.mark.csim


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    precompiled.reap(wait=True)  # no background build of an earlier test holds this process's one slot
    folder = tmp_path / 'cache'
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(folder))
    monkeypatch.delenv(precompiled.PCH_ENV, raising=False)
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '0')  # the one-translation-unit build, unless a test says otherwise
    monkeypatch.setattr(precompiled, 'INSTALLED', tmp_path / 'installed')  # not the one the package has
    return folder / 'csim'


@pytest.fixture
def commands(monkeypatch) -> list[list[str]]:
    """The g++ command lines of library compiles."""
    seen: list[list[str]] = []
    run_compiler = compiler._run_compiler

    def recording(command: list[str], cwd: Path) -> None:
        seen.append(command)
        run_compiler(command, cwd)

    monkeypatch.setattr(compiler, '_run_compiler', recording)
    return seen


def test_the_next_model_with_the_same_kernels_uses_the_header_and_computes_the_same_bits(
    tmp_path, cache, commands
) -> None:
    first = convert(mlp(seed=0, n_out=3), tmp_path / 'first')
    first.compile()
    precompiled.reap(wait=True)
    assert [path.name for path in cache.glob('pch/*/*.gch')] == ['csim_prelude.h.gch']
    second = convert(mlp(seed=4, n_out=5), tmp_path / 'second')
    second.compile()
    assert '-include' not in commands[0] and '-include' in commands[1]
    for hls_model in (first, second):
        x = inputs(hls_model)
        np.testing.assert_array_equal(hls_model.predict(x), emulated(hls_model, x))


def test_a_model_with_other_kernels_uses_the_same_header(tmp_path, cache, commands) -> None:
    convert(mlp(seed=0), tmp_path / 'mlp').compile()
    precompiled.reap(wait=True)
    stream = convert(cnn(seed=0), tmp_path / 'cnn', io_type='io_stream')
    stream.compile()
    assert '-include' in commands[1]
    assert len(list(cache.glob('pch/*/*.gch'))) == 1
    x = inputs(stream, n=8)
    np.testing.assert_array_equal(stream.predict(x), emulated(stream, x))


def test_the_prelude_names_no_model(tmp_path) -> None:
    first = write_project(convert(mlp(seed=0), tmp_path / 'mlp').design).csim.sources
    second = write_project(convert(cnn(seed=0), tmp_path / 'cnn', io_type='io_stream').design).csim.sources
    assert first.files[first.prelude] == second.files[second.prelude]
    kernels = [path for path in first.files if path.startswith('firmware/nnet_utils/nnet_')]
    assert all(f'"{path.removeprefix("firmware/")}"'.encode() in first.files[first.prelude] for path in kernels)


def test_a_header_built_at_install_time_serves_an_empty_cache(tmp_path, cache, commands, monkeypatch) -> None:
    """`precompile_headers` (scripts/setup_env.sh) builds it beside the package; a cold compile with a fresh
    cache then uses it, in every unit of a split build, and computes the bits the model computes."""
    from hls4ml.writer import precompile_headers

    assert precompile_headers(('Vitis',)) == [next((tmp_path / 'installed').iterdir())]
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1')
    hls_model = convert(mlp(seed=3), tmp_path / 'prj')
    hls_model.compile()
    assert not list(cache.glob('pch/*'))
    units = hls_model._simulation.interface.sources.units
    compiles = [command for command in commands if '-c' in command]
    assert len(compiles) == len(units) >= 3 and all('-include' in command for command in compiles)
    x = inputs(hls_model)
    np.testing.assert_array_equal(hls_model.predict(x), emulated(hls_model, x))


def test_a_package_folder_that_cannot_be_written_keeps_its_headers_in_the_cache(tmp_path, cache, monkeypatch) -> None:
    from hls4ml.writer import precompile_headers

    blocked = tmp_path / 'site-packages-file'
    blocked.write_text('a file where the folder would be: nothing can be made under it (as in a read-only install)\n')
    monkeypatch.setattr(precompiled, 'INSTALLED', blocked / 'csim-pch')
    built = precompile_headers(('Vitis',))
    assert [folder.parent for folder in built] == [cache / 'pch'] and list(cache.glob('pch/*/*.gch'))


def test_a_process_builds_one_header_at_a_time(tmp_path, cache) -> None:
    """A batch of models with different kernels starts one background build, not one per model."""
    convert(mlp(seed=0), tmp_path / 'mlp').compile()
    convert(cnn(seed=0), tmp_path / 'cnn', io_type='io_stream').compile()
    running = [pending for pending in precompiled._PENDING if pending.owner == os.getpid()]
    precompiled.reap(wait=True)
    assert 1 <= len(running) + len(list(cache.glob('pch/*/*.gch'))) and len(running) <= precompiled.IN_FLIGHT


def test_the_key_covers_the_library_headers_and_not_the_model(tmp_path) -> None:
    sources = write_project(convert(mlp(seed=0), tmp_path / 'prj').design).csim.sources
    key = precompiled.header_key(sources, 'g++ 12', ('-O2',))
    kernel = next(path for path in sources.files if path.endswith('nnet_utils/nnet_dense.h'))
    fixed = next(path for path in sources.files if path.endswith('ap_types/ap_fixed.h'))
    for path in (kernel, fixed, sources.prelude):
        changed = dataclasses.replace(sources, files={**sources.files, path: sources.files[path] + b'\n'})
        assert precompiled.header_key(changed, 'g++ 12', ('-O2',)) != key, path
    assert precompiled.header_key(sources, 'g++ 13', ('-O2',)) != key
    assert precompiled.header_key(sources, 'g++ 12', ('-O1',)) != key
    model_files = {path: content + b'\n' for path, content in sources.files.items() if '/weights/' in path}
    other_weights = dataclasses.replace(sources, files={**sources.files, **model_files})
    assert precompiled.header_key(other_weights, 'g++ 12', ('-O2',)) == key


def test_a_prelude_that_does_not_compile_is_marked_and_libraries_still_build(tmp_path, cache, commands) -> None:
    hls_model = convert(mlp(seed=0), tmp_path / 'prj')
    interface = write_project(hls_model.design).csim
    sources = interface.sources
    broken = dataclasses.replace(sources, files={**sources.files, sources.prelude: b'#error not a header\n'})
    library, from_cache = compiler.compile_library(broken, 'myproject')
    precompiled.reap(wait=True)
    assert not from_cache and library.is_file()
    marks = list(cache.glob(f'pch/*/{precompiled.FAILED_MARK}'))
    assert len(marks) == 1
    again = dataclasses.replace(broken, files={**broken.files, 'firmware/unused.h': b'// another model\n'})
    compiler.compile_library(again, 'myproject')
    assert '-include' not in commands[-1] and not precompiled._PENDING


def test_it_can_be_turned_off(tmp_path, cache, monkeypatch) -> None:
    monkeypatch.setenv(precompiled.PCH_ENV, '0')
    convert(mlp(seed=0), tmp_path / 'prj').compile()
    precompiled.reap(wait=True)
    assert not list(cache.glob('pch/*'))


def test_a_header_pruned_while_in_use_falls_back_to_the_plain_compile(tmp_path, cache, commands, monkeypatch) -> None:
    monkeypatch.setattr(precompiled, 'lookup', lambda sources, key, folder: folder / 'pch' / 'pruned-meanwhile')
    hls_model = convert(mlp(seed=2), tmp_path / 'prj')
    hls_model.compile()
    assert '-include' in commands[0] and '-include' not in commands[1]
    x = inputs(hls_model)
    np.testing.assert_array_equal(hls_model.predict(x), emulated(hls_model, x))


def test_only_the_most_recently_used_headers_are_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(precompiled, 'KEPT', 2)
    folder = tmp_path / 'pch'
    for index, name in enumerate(('old', 'newer', 'newest')):
        (folder / name).mkdir(parents=True)
        os.utime(folder / name, (1000 + index, 1000 + index))
    output = tmp_path / 'build' / 'csim_prelude.h.gch'
    output.parent.mkdir()
    output.write_bytes(b'gch')
    output.with_suffix('').write_text('// prelude\n')
    precompiled._publish(folder / 'fresh', output)
    assert sorted(path.name for path in folder.iterdir()) == ['fresh', 'newest']
