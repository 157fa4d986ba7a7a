"""Issue 13 item 4, the second line of defence: hostile values that never went through the checks of
create_config (the ProjectContext is edited after lowering, as a bug or a future key might let a value
through) are written into the real build scripts, which are then run: the Tcl under `tclsh` with the
recording stubs (test/tcl_stubs.py), the CMake project by a real `cmake` with a stand-in icpx. No
command may run, and each value must arrive at the vendor command as one literal word."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import jinja2  # noqa: E402
import keras  # noqa: E402
import pytest  # noqa: E402
from tcl_stubs import run_with_stubs, tclsh  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends.common.project import ProjectContext, lower_project  # noqa: E402
from hls4ml.backends.common.quoting import cmake_argument, tcl_word  # noqa: E402
from hls4ml.writer import TEMPLATES  # noqa: E402

MARKER = 'hacked'  # the file an injected command would create, in the script's folder


def hostile_values(marker: Path) -> list[str]:
    """Values that run `touch marker` if a template writes them unquoted (Tcl or CMake)."""
    return [
        f'xcvu9p[exec touch {marker}]',
        f'xcvu9p"; exec touch {marker}; set x "',
        f'xcvu9p}}\nexec touch {marker}\n{{',
        f'$::env(HOME)\\[exec touch {marker}]\\',
        f'xcvu9p\\\nexec touch {marker}',
        f'Agilex7")\nexecute_process(COMMAND touch {marker})\nset(X "',
        f'Agilex7) execute_process(COMMAND touch {marker}) #',
        '${CMAKE_COMMAND}$ENV{HOME}\\',
    ]


def tiny_model(backend: str, folder: Path, **kwargs: Any) -> Any:
    keras.utils.set_random_seed(3)
    inputs = keras.Input((4,), name='x')
    model = keras.Model(inputs, keras.layers.Dense(2, name='fc')(inputs))
    return hls4ml.converters.convert_from_keras_model(model, output_dir=str(folder), backend=backend, **kwargs)


def render(hls_model: Any, project: ProjectContext, files: dict[str, str]) -> Path:
    """Render `files` (output name -> template) of the model's backend with `project`, into output_dir."""
    backend = hls_model.backend
    loader = jinja2.FileSystemLoader([str(TEMPLATES / backend.template_dir), str(TEMPLATES)])
    environment = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    folder = Path(hls_model.output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for name, template in files.items():
        (folder / name).write_text(environment.get_template(template).render(p=project))
    return folder


# ---- the quoting functions, round trip through the real interpreters -----------------------------------


def test_a_tcl_word_reads_back_as_the_same_text(tmp_path: Path) -> None:
    values = [*hostile_values(tmp_path / MARKER), 'plain-part', '', '5', 'a b', 'tab\there', 'bell\x07 del\x7f', '{']
    lines = [f'puts $out [string map {{\\n <NL> \\r <CR>}} {tcl_word(value)}]' for value in values]
    script = tmp_path / 'words.tcl'
    out = tmp_path / 'words.txt'
    script.write_text(
        f'set out [open {{{out}}} w]\nfconfigure $out -encoding utf-8\n' + '\n'.join(lines) + '\nclose $out\n'
    )
    subprocess.run([tclsh(), str(script)], check=True, capture_output=True, text=True, timeout=60)
    expected = [value.replace('\n', '<NL>').replace('\r', '<CR>') for value in values]
    assert out.read_text(encoding='utf-8').split('\n')[:-1] == expected
    assert not (tmp_path / MARKER).exists()


def test_a_cmake_argument_reads_back_as_the_same_text(tmp_path: Path) -> None:
    if shutil.which('cmake') is None:
        pytest.skip('cmake is not installed')
    hostile = [value for value in hostile_values(tmp_path / MARKER) if ';' not in value]  # ';' is refused
    values = [*hostile, 'Agilex7', 'de10_agilex:B2E2_8GBx4', 'a b', 'tab\there']
    script = tmp_path / 'arguments.cmake'
    lines = [
        f'set(value {cmake_argument(value)})\nfile(WRITE "{tmp_path}/value{index}" "${{value}}")'
        for index, value in enumerate(values)
    ]
    script.write_text('\n'.join(lines) + '\n')
    subprocess.run(['cmake', '-P', str(script)], check=True, capture_output=True, text=True, timeout=60)
    assert [(tmp_path / f'value{index}').read_text() for index in range(len(values))] == values
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize('value', ['Agilex7;-fplugin=evil.so', 'nul\x00', 'escape\x1b[0m'])
def test_what_cmake_cannot_hold_as_one_argument_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match='cannot be written into CMakeLists.txt'):
        cmake_argument(value)


# ---- the generated scripts ----------------------------------------------------------------------------------


def test_vitis_build_script_keeps_hostile_values_literal(tmp_path: Path) -> None:
    hls_model = tiny_model('Vitis', tmp_path / 'prj')
    marker = tmp_path / 'prj' / MARKER
    for value in hostile_values(marker):
        project = dataclasses.replace(
            lower_project(hls_model.design), project_name=value, part=value, clock_period=value, clock_uncertainty=value
        )
        folder = render(hls_model, project, {'project.tcl': 'project.tcl.j2', 'build_prj.tcl': 'build_prj.tcl.j2'})
        run = run_with_stubs(folder / 'build_prj.tcl')
        assert run.returncode == 0, run.stderr
        assert not marker.exists(), value
        commands = {command[0]: command for command in run.commands}
        assert commands['set_part'] == ['set_part', value]
        assert commands['create_clock'] == ['create_clock', '-period', value, '-name', 'default']
        assert commands['set_clock_uncertainty'] == ['set_clock_uncertainty', value, 'default']
        assert commands['set_top'] == ['set_top', value]


def test_catapult_fpga_script_keeps_a_hostile_part_literal(tmp_path: Path) -> None:
    hls_model = tiny_model('Catapult', tmp_path / 'prj')
    marker = tmp_path / 'prj' / MARKER
    library = {
        'library get * -ret v': 'list some_library',
        'library get * -ret p': 'list /a/b/c/d/e/f/g/family/i/speed',
    }
    for value in hostile_values(marker):
        lowered = lower_project(hls_model.design)
        project = dataclasses.replace(lowered, part=value, project_name=value, clock_period=value)
        folder = render(hls_model, project, {'build_prj.tcl': 'build_prj.tcl.j2'})
        run = run_with_stubs(folder / 'build_prj.tcl', responses=library)
        assert run.returncode == 0, run.stderr
        assert not marker.exists(), value
        added = next(command for command in run.commands if command[:3] == ['solution', 'library', 'add'])
        assert added[-2:] == ['-part', value]
        assert ['project', 'new', '-name', f'{value}_prj'] in run.commands
        assert ['directive', 'set', '-DESIGN_HIERARCHY', value] in run.commands


def test_catapult_asic_script_keeps_hostile_libraries_and_fifo_literal(tmp_path: Path) -> None:
    hls_model = tiny_model('Catapult', tmp_path / 'prj', tech='asic')
    marker = tmp_path / 'prj' / MARKER
    values = hostile_values(marker)
    project = lower_project(hls_model.design)
    settings = {**project.settings, 'ASICLibs': ' '.join(values[:1]), 'FIFO': values[1]}
    folder = render(hls_model, dataclasses.replace(project, settings=settings), {'build_prj.tcl': 'build_prj.tcl.j2'})
    run = run_with_stubs(folder / 'build_prj.tcl')
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    assert ['solution', 'library', 'add', 'xcvu9p[exec', '--', '-rtlsyntool', 'DesignCompiler'] in run.commands
    assert ['directive', 'set', '-FIFO_DEPTH', values[1]] in run.commands


STUB_ICPX = '#!/bin/sh\n# a stand-in for icpx (tests only): hands everything to g++\nexec g++ "$@"\n'


@pytest.fixture
def oneapi_project(tmp_path: Path, monkeypatch) -> Any:
    """A written oneAPI project, with a stand-in icpx on PATH for cmake's compiler check."""
    for tool in ('cmake', 'g++'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} is not installed')
    stub = tmp_path / 'stub'
    stub.mkdir()
    (stub / 'icpx').write_text(STUB_ICPX)
    (stub / 'icpx').chmod(0o755)
    monkeypatch.setenv('PATH', f'{stub}{os.pathsep}{os.environ["PATH"]}')
    hls_model = tiny_model('oneAPI', tmp_path / 'prj')
    hls_model.write()
    return hls_model


def configure(hls_model: Any, project: ProjectContext, build: str) -> subprocess.CompletedProcess:
    render(hls_model, project, {'CMakeLists.txt': 'CMakeLists.txt.j2'})
    folder = Path(hls_model.output_dir) / build
    folder.mkdir()
    return subprocess.run(['cmake', '..'], cwd=folder, capture_output=True, text=True, timeout=300, check=False)


def test_oneapi_cmake_project_keeps_a_hostile_part_literal(oneapi_project: Any) -> None:
    marker = Path(oneapi_project.output_dir) / MARKER
    writable = [value for value in hostile_values(marker) if ';' not in value]
    for index, value in enumerate(writable):
        project = dataclasses.replace(lower_project(oneapi_project.design), part=value)
        result = configure(oneapi_project, project, f'b{index}')
        assert result.returncode == 0, result.stderr
        assert not marker.exists(), value
        cache = (Path(oneapi_project.output_dir) / f'b{index}' / 'CMakeCache.txt').read_text()
        if '\n' not in value:  # the cache holds the value as it is (a newline would end its line)
            assert f'FPGA_DEVICE:STRING={value}\n' in cache


def test_oneapi_cmake_project_keeps_a_hostile_project_name_inert(oneapi_project: Any) -> None:
    marker = Path(oneapi_project.output_dir) / MARKER
    writable = [value for value in hostile_values(marker) if 'execute_process' in value or '${' in value]
    for index, value in enumerate(writable):
        project = dataclasses.replace(lower_project(oneapi_project.design), project_name=value)
        configure(oneapi_project, project, f'n{index}')
        assert not marker.exists(), value  # cmake may fail on the missing sources; it must not run the command


def test_a_value_with_a_semicolon_is_not_written_into_cmake(oneapi_project: Any) -> None:
    project = dataclasses.replace(lower_project(oneapi_project.design), part='Agilex7;-fplugin=evil.so')
    with pytest.raises(ValueError, match=r"cannot be written into CMakeLists.txt: it holds ';'"):
        render(oneapi_project, project, {'CMakeLists.txt': 'CMakeLists.txt.j2'})
