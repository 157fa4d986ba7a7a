"""The Catapult backend without Catapult: its configuration, the files it writes, the build script run
under tclsh with recording stubs (vendor-tools spec §3.2, §5.1), and build() without the tool."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
from tcl_stubs import TclRun, run_with_stubs

import hls4ml
from hls4ml.backends import get_backend
from hls4ml.backends.base import VendorBuildError, VendorToolNotFound
from hls4ml.backends.catapult.build import STEPS, build_arguments
from hls4ml.utils.config import create_config

CATAPULT = get_backend('Catapult')
STAGES = ('analyze', 'compile', 'libraries', 'assembly', 'architect', 'allocate', 'schedule', 'dpfsm', 'extract')
# What the vendor commands of the script may name (the spellings of the spec, §3.2-§3.3): the word after
# the command, and the flags.
SUBJECTS = {
    'options set': {'Input/CppStandard', 'Input/CompilerFlags', 'Output/OutputVerilog', 'Output/OutputVHDL'},
    'solution options set': {'Architectural/DefaultRegisterThreshold'},
    'flow package': {'require', 'option'},
    'flow run': {'/SCVerify/launch_make', '/Vivado/synthesize', '/PowerAnalysis/report_pre_pwropt_Verilog'}
    | {'/DesignAnalyzer/launch'},
    'project': {'new', 'load', 'save'},
    'go': {*STAGES, 'new', 'switching', 'power'},
}
FLAGS = {
    'directive set': {'-MEM_MAP_THRESHOLD', '-DESIGN_HIERARCHY', '-CLOCKS', '-FIFO_DEPTH'},
    'solution file add': {'-type', '-exclude'},
    'solution library add': {'-rtlsyntool', '-manufacturer', '-vendor', '-family', '-speed', '-part'},
    'library get': {'-match', '-ret'},
}
DEFAULT_ORDER = [  # the spine of a default run (csim and synth): every one present, in this order
    'options set Input/CppStandard c++17',
    'options set Input/CompilerFlags -DHLS4ML_DIALECT_AC -DHLS4ML_STREAM_AC_CHANNEL',
    'project new -name myproject_prj',
    'flow package require /SCVerify',
    'flow package option set /SCVerify/INVOKE_ARGS',
    'solution file add firmware/myproject.cpp -type C++',
    'solution file add myproject_test.cpp -type C++ -exclude true',
    'go analyze',
    'directive set -DESIGN_HIERARCHY myproject',
    'go compile',
    'flow run /SCVerify/launch_make ./scverify/Verify_orig_cxx_osci.mk',
    'solution library add',
    'directive set -CLOCKS clk',
    'go libraries',
    'go extract',
    'project save',
]


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    keras.utils.set_random_seed(5)
    return keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(4, activation='relu'), keras.layers.Dense(3, activation='softmax')]
    )


def write(model: keras.Model, folder: Path, **kwargs: Any) -> Path:
    hls_model = hls4ml.converters.convert_from_keras_model(model, output_dir=str(folder), backend='Catapult', **kwargs)
    hls_model.write()
    return folder


@pytest.fixture(scope='module')
def fpga_project(keras_model, tmp_path_factory) -> Path:
    return write(keras_model, tmp_path_factory.mktemp('fpga') / 'prj')


def stubbed(project: Path, argv: str = '', responses: dict[str, str] | None = None, fails: bool = False) -> TclRun:
    """The script's run under the stubs; `fails`: it must stop with an error (tclsh exits 2)."""
    run = run_with_stubs(project / 'build_prj.tcl', argv, responses)
    assert (run.returncode == 2) == fails, run.stderr
    return run


# ---- configuration ----------------------------------------------------------------------------------


def test_fpga_config_has_the_hls4ml_keys() -> None:
    config = create_config(backend='Catapult')
    assert config['Backend'] == 'Catapult'
    assert (config['Technology'], config['Part'], config['FIFO']) == ('fpga', 'xcku115-flvb2104-2-i', None)
    assert (config['ClockPeriod'], config['IOType'], config['HLSConfig']) == (5, 'io_parallel', {})
    assert 'ASICLibs' not in config and 'ClockUncertainty' not in config
    assert config['WriterConfig'] == {
        'Namespace': None,
        'WriteWeightsTxt': True,
        'WriteTar': False,
        'TBOutputStream': 'both',
    }


def test_asic_config_names_libraries_instead_of_a_part() -> None:
    config = create_config(backend='catapult', tech='asic', asiclibs=['nangate-45nm', 'ccs_sample_mem'], fifo=8)
    assert (config['Technology'], config['ASICLibs'], config['FIFO']) == ('asic', 'nangate-45nm ccs_sample_mem', 8)
    assert 'Part' not in config
    assert create_config(backend='Catapult', tech='asic')['ASICLibs'] == 'nangate-45nm'


@pytest.mark.parametrize(
    'kwargs, message',
    [
        ({'tech': 'cpu'}, "tech must be 'fpga' or 'asic'"),
        ({'tech': 'asic', 'part': 'xcvu9p-flga2104-2-e'}, 'part applies to'),
        ({'tech': 'asic', 'asiclibs': 'lib [exec rm]'}, r'asiclibs \(config key ASICLibs\) must name'),
        ({'part': 'xc7 z020'}, r'part \(config key Part\) must be a Xilinx part name'),
        ({'fifo': -1}, 'fifo must be None or a FIFO depth'),
        ({'clock_period': 0}, r'clock_period \(config key ClockPeriod\) must be a positive number'),
        ({'io_type': 'io_serial'}, 'io_type must be'),
        ({'tb_output_stream': 'screen'}, 'tb_output_stream must be'),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_config(backend='Catapult', **kwargs)


def test_unknown_keywords_are_reported() -> None:
    with pytest.warns(UserWarning, match='clock_uncertainty'):
        create_config(backend='Catapult', clock_uncertainty='10%')


# ---- written files ----------------------------------------------------------------------------------


@pytest.mark.parametrize('tech', ['fpga', 'asic'])
@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_the_project_files_are_written(keras_model, tmp_path: Path, tech: str, io_type: str) -> None:
    x = np.zeros((2, 6))
    np.save(tmp_path / 'x.npy', x)
    project = write(keras_model, tmp_path / 'prj', tech=tech, io_type=io_type, input_data_tb=str(tmp_path / 'x.npy'))
    for path in (
        'build_prj.tcl',
        'myproject_test.cpp',
        'myproject_bridge.cpp',
        'hls4ml_config.yml',
        'tb_data/tb_input_features.dat',
        'firmware/myproject.cpp',
        'firmware/myproject.h',
        'firmware/defines.h',
        'firmware/parameters.h',
        'firmware/weights/w2.h',
        'firmware/nnet_utils/nnet_dense.h',
        'firmware/ap_types/ac_fixed.h',
        'firmware/ap_types/ac_channel.h',
    ):
        assert (project / path).is_file(), path
    assert not (project / 'project.tcl').exists() and not (project / 'vivado_synth.tcl').exists()
    tcl = (project / 'build_prj.tcl').read_text()
    assert ('set part xcku115-flvb2104-2-i' in tcl) == (tech == 'fpga')
    assert ('set asic_libraries [list nangate-45nm]' in tcl) == (tech == 'asic')


def test_sources_use_the_catapult_spellings(keras_model, tmp_path: Path) -> None:
    project = write(keras_model, tmp_path / 'prj', io_type='io_stream')
    top = (project / 'firmware/myproject.cpp').read_text()
    assert '\n#pragma hls_design top\nvoid CCS_BLOCK(myproject)(' in top
    assert 'ac_channel<nnet::array<layer1_result_t, 6>> &layer1_out' in top
    assert 'ac_channel<nnet::array<layer2_result_t, 4>> layer2_out;' in top  # a local channel has no name
    assert 'hls::stream' not in top and '#pragma HLS' not in top
    assert 'void CCS_BLOCK(myproject)(' in (project / 'firmware/myproject.h').read_text()
    defines = (project / 'firmware/defines.h').read_text()
    assert '#include "ac_fixed.h"' in defines and '__has_include(<mc_scverify.h>)' in defines
    assert 'typedef ac_fixed<16,6,true> layer1_result_t;' in defines
    testbench = (project / 'myproject_test.cpp').read_text()
    assert 'CCS_MAIN(int argc, char *argv[]) {' in testbench
    assert '    CCS_DESIGN(myproject)(in0, out0);' in testbench
    assert testbench.count('CCS_RETURN(0);') == 2
    assert 'ac_channel<nnet::array<layer1_result_t, 6>> in0;' in testbench


# ---- build_prj.tcl under recording stubs ------------------------------------------------------------


def in_order(lines: list[str], prefixes: list[str]) -> bool:
    """Every prefix starts some line, in the given order."""
    position = 0
    for prefix in prefixes:
        position = next((i for i in range(position, len(lines)) if lines[i].startswith(prefix)), -1) + 1
        if position == 0:
            return False
    return True


def test_a_default_run_records_the_spec_order(fpga_project: Path) -> None:
    run = stubbed(fpga_project)
    lines = run.lines()
    assert in_order(lines, DEFAULT_ORDER), '\n'.join(lines)
    assert run.exit_code == 0
    assert lines.count('project save') == 1 and lines[-1] == 'project save'
    stages = [command[1] for command in run.commands if command[0] == 'go']
    assert stages == list(STAGES)
    invoke = run.starting_with('flow package option set /SCVerify/INVOKE_ARGS')[0].split()[-1]
    assert Path(invoke) == fpga_project.resolve()  # the testbench enters the project folder
    assert '***** C SIMULATION *****' in run.stdout and '***** C/RTL SYNTHESIS *****' in run.stdout


def test_every_command_uses_the_spec_options_and_existing_files(fpga_project: Path) -> None:
    run = stubbed(fpga_project, 'cosim=True power=True da=True vsynth=True')
    for command in run.commands:
        matched = False
        for prefix, subjects in SUBJECTS.items():
            if ' '.join(command).startswith(prefix + ' '):
                assert command[len(prefix.split())] in subjects, command
                matched = True
        for prefix, flags in FLAGS.items():
            if ' '.join(command).startswith(prefix + ' '):
                words = command[len(prefix.split()) :]
                assert {word for word in words if word[:1] == '-' and word[1:2].isalpha()} <= flags, command
                matched = True
        assert matched, f'{command}: not a command of the spec'
        if command[:3] == ['solution', 'file', 'add']:
            assert (fpga_project / command[3]).is_file()


def test_the_top_and_the_clock(keras_model, tmp_path: Path) -> None:
    project = write(keras_model, tmp_path / 'prj', project_name='mlp_top', clock_period=7.5)
    run = stubbed(project)
    assert run.starting_with('directive set -DESIGN_HIERARCHY') == ['directive set -DESIGN_HIERARCHY mlp_top']
    assert run.starting_with('solution file add') == [
        'solution file add firmware/mlp_top.cpp -type C++',
        'solution file add mlp_top_test.cpp -type C++ -exclude true',
    ]
    (clocks,) = [command for command in run.commands if command[:3] == ['directive', 'set', '-CLOCKS']]
    assert clocks[3].startswith('clk {-CLOCK_PERIOD 7.5 -CLOCK_EDGE rising')


def test_fpga_without_a_library_entry_uses_the_default_part_library(fpga_project: Path) -> None:
    run = stubbed(fpga_project)
    assert run.starting_with('solution library add') == [
        'solution library add mgc_Xilinx-KINTEX-u-2_beh -- -rtlsyntool Vivado -manufacturer Xilinx '
        '-family KINTEX-u -speed -2 -part xcku115-flvb2104-2-i',
        'solution library add Xilinx_RAMS',
        'solution library add Xilinx_ROMS',
        'solution library add Xilinx_FIFO',
    ]
    assert run.index('library get') < run.index('solution library add') < run.index('directive set -CLOCKS')
    assert run.index('directive set -CLOCKS') < run.index('go libraries')


def test_fpga_part_from_the_library_database(keras_model, tmp_path: Path) -> None:
    part = 'xcvu9p-flga2104-2-e'
    project = write(keras_model, tmp_path / 'prj', part=part)
    path = f'/CONFIG/PARAMETERS/Vivado/PARAMETERS/Xilinx/PARAMETERS/VIRTEX-uplus/PARAMETERS/-2/PARAMETERS/{part}'
    responses = {'library get * -ret v': 'list mgc_Xilinx-VIRTEX-uplus-2_beh', 'library get * -ret p': f'list {path}'}
    run = stubbed(project, responses=responses)
    assert run.starting_with('solution library add')[0] == (
        'solution library add mgc_Xilinx-VIRTEX-uplus-2_beh -- -rtlsyntool Vivado -vendor Xilinx '
        f'-family VIRTEX-uplus -speed -2 -part {part}'
    )
    unknown = stubbed(project, fails=True)  # an empty database: only the default part has a fallback
    assert f"part '{part}' is not in Catapult's library database" in unknown.stderr


def test_asic_adds_the_libraries_and_no_xilinx_part(keras_model, tmp_path: Path) -> None:
    project = write(keras_model, tmp_path / 'prj', tech='asic', asiclibs='nangate-45nm mylib', fifo=4)
    run = stubbed(project)
    assert run.starting_with('solution library add') == [
        'solution library add nangate-45nm -- -rtlsyntool DesignCompiler',
        'solution library add mylib -- -rtlsyntool DesignCompiler',
        'solution library add ccs_sample_mem',
        'solution library add ccs_sample_rom',
    ]
    assert not run.starting_with('library get') and 'Xilinx' not in '\n'.join(run.lines())
    assert run.index('directive set -FIFO_DEPTH 4') < run.index('go assembly')
    refused = stubbed(project, 'vsynth=True', fails=True)
    assert 'vsynth (Vivado synthesis) needs technology fpga' in refused.stderr


def test_io_stream_sets_the_register_threshold(keras_model, tmp_path: Path, fpga_project: Path) -> None:
    setting = 'solution options set Architectural/DefaultRegisterThreshold 2050'
    project = write(keras_model, tmp_path / 'prj', io_type='io_stream')
    assert setting in stubbed(project).lines()
    assert setting not in stubbed(fpga_project).lines()


def test_without_csim_and_synth_the_script_stops_after_compile(fpga_project: Path) -> None:
    run = stubbed(fpga_project, 'csim=False synth=False')
    assert [command[1] for command in run.commands if command[0] == 'go'] == ['analyze', 'compile']
    assert not run.starting_with('flow run') and not run.starting_with('solution library')
    assert run.lines()[-1] == 'project save' and run.exit_code == 0


def test_csim_only_and_synth_only(fpga_project: Path) -> None:
    csim = stubbed(fpga_project, 'synth=False').lines()
    assert 'go extract' not in csim and any('Verify_orig_cxx_osci.mk' in line for line in csim)
    synth = stubbed(fpga_project, 'csim=0').lines()
    assert 'go extract' in synth and not any('Verify_orig_cxx_osci.mk' in line for line in synth)


@pytest.mark.parametrize(
    'argv, makefile', [('cosim=True', 'Verify_rtl_v_msim.mk'), ('cosim=True vhdl=True verilog=False', 'vhdl_msim.mk')]
)
def test_cosim_runs_the_rtl_after_extract(fpga_project: Path, argv: str, makefile: str) -> None:
    run = stubbed(fpga_project, argv)
    (cosim,) = [i for i, line in enumerate(run.lines()) if makefile in line]
    assert run.index('go extract') < cosim < run.index('project save')
    assert ('options set Output/OutputVHDL true' in run.lines()) == ('vhdl=True' in argv)


def test_cosim_alone_implies_synthesis(fpga_project: Path) -> None:
    run = stubbed(fpga_project, 'synth=False cosim=True')
    assert 'go extract' in run.lines()


def test_validation_compares_c_and_rtl_results(keras_model, tmp_path: Path) -> None:
    project = write(keras_model, tmp_path / 'prj')
    tb_data = project / 'tb_data'
    tb_data.mkdir()
    (tb_data / 'csim_results.log').write_text('0.5 0.25\n')
    rtl_run = 'file copy tb_data/csim_results.log.keep tb_data/csim_results.log'  # the RTL writes the same
    run = stubbed(project, 'validation=True synth=False', responses={'flow run *Verify_rtl_v_msim*': rtl_run})
    assert any('Verify_orig_cxx_osci.mk' in line for line in run.lines()) and 'go extract' in run.lines()
    assert run.exit_code == 0 and 'give the same results' in run.stdout
    assert (tb_data / 'rtl_cosim_results.log').read_text() == (tb_data / 'csim_results.log').read_text()
    silent_rtl = stubbed(project, 'validation=True', responses={'flow run *Verify_rtl_v_msim*': 'list'})
    assert not (tb_data / 'rtl_cosim_results.log').exists()  # no stale RTL results from the run before
    assert silent_rtl.exit_code == 1 and 'ERROR: validation' in silent_rtl.stdout
    assert silent_rtl.lines()[-1] == 'project save'


def test_optional_steps_after_synthesis(fpga_project: Path) -> None:
    lines = stubbed(fpga_project, 'vsynth=True power=True da=True').lines()
    assert in_order(
        lines,
        [
            'go extract',
            'flow run /Vivado/synthesize -shell vivado_concat_v/concat_rtl.v.xv',
            'go switching',
            'flow run /PowerAnalysis/report_pre_pwropt_Verilog',
            'go power',
            'flow run /DesignAnalyzer/launch',
            'project save',
        ],
    )


def test_reset_reloads_an_existing_project(fpga_project: Path) -> None:
    assert stubbed(fpga_project, 'reset=True').starting_with('project') == [
        'project new -name myproject_prj',
        'project save',
    ]
    (fpga_project / 'myproject_prj.ccs').write_text('')
    try:
        reloaded = stubbed(fpga_project, 'reset=True').lines()
        assert in_order(reloaded, ['project load myproject_prj.ccs', 'go new', 'go analyze'])
        assert not any(line.startswith('project new') for line in reloaded)
    finally:
        (fpga_project / 'myproject_prj.ccs').unlink()


def test_python_build_arguments_drive_the_script(fpga_project: Path) -> None:
    arguments = build_arguments(csim=False, synth=True, cosim=True, verilog=True)
    assert arguments.split() == [f'{name}={name in ("synth", "cosim", "verilog")}' for name in STEPS]
    run = stubbed(fpga_project, arguments)
    assert not any('Verify_orig_cxx_osci.mk' in line for line in run.lines())
    assert any('Verify_rtl_v_msim.mk' in line for line in run.lines())


@pytest.mark.parametrize('argv', ['export=True', 'csim=maybe'])
def test_a_bad_option_is_refused_with_the_list(fpga_project: Path, argv: str) -> None:
    run = stubbed(fpga_project, argv, fails=True)
    assert run.commands == []
    assert f"bad option '{argv}'" in run.stderr and 'cosim csim da power reset synth' in run.stderr


# ---- build() ----------------------------------------------------------------------------------------


@pytest.fixture
def no_catapult(monkeypatch, tmp_path: Path) -> Path:
    """An environment without Catapult: an empty PATH folder (plus the system's), no MGC_HOME/CATAPULT_HOME."""
    monkeypatch.setenv('PATH', f'{tmp_path / "bin"}{os.pathsep}/usr/bin{os.pathsep}/bin')
    (tmp_path / 'bin').mkdir()
    monkeypatch.delenv('MGC_HOME', raising=False)
    monkeypatch.delenv('CATAPULT_HOME', raising=False)
    return tmp_path


def fake_catapult(folder: Path, body: str) -> Path:
    executable = folder / 'bin' / 'catapult'
    executable.parent.mkdir(parents=True, exist_ok=True)
    executable.write_text(f'#!/bin/sh\n{body}\n')
    executable.chmod(executable.stat().st_mode | stat.S_IEXEC)
    return executable


def converted(keras_model, folder: Path) -> Any:
    return hls4ml.converters.convert_from_keras_model(keras_model, output_dir=str(folder), backend='Catapult')


def test_build_without_catapult_names_what_it_looked_for(keras_model, no_catapult: Path) -> None:
    with pytest.raises(VendorToolNotFound) as error:
        converted(keras_model, no_catapult / 'prj').build()
    for name in ("'catapult'", 'PATH', 'MGC_HOME', 'CATAPULT_HOME'):
        assert name in str(error.value)


def test_build_finds_catapult_under_mgc_home_and_passes_the_options(
    keras_model, no_catapult: Path, monkeypatch
) -> None:
    fake_catapult(no_catapult / 'mgc', 'echo "$@" > arguments.txt; echo "# Info: done"')
    monkeypatch.setenv('CATAPULT_HOME', str(no_catapult / 'nowhere'))
    monkeypatch.setenv('MGC_HOME', str(no_catapult / 'mgc'))
    hls_model = converted(keras_model, no_catapult / 'prj')
    with pytest.warns(UserWarning, match='no report to return'):  # the fake tool writes no project
        report = hls_model.build(csim=False, cosim=True, log_to_stdout=False)
    project = no_catapult / 'prj'
    expected = f'-shell -f build_prj.tcl -eval set ::argv "{build_arguments(synth=True, cosim=True, verilog=True)}"'
    assert (project / 'arguments.txt').read_text().strip() == expected
    assert report == {}  # the parsed reports: test/unit/backends/test_build_flow.py
    assert (project / 'catapult_build.log').read_text() == '# Info: done\n'


def test_path_comes_before_the_install_variables(keras_model, no_catapult: Path, monkeypatch) -> None:
    fake_catapult(no_catapult, 'echo from PATH')
    fake_catapult(no_catapult / 'mgc', 'echo from MGC_HOME')
    monkeypatch.setenv('MGC_HOME', str(no_catapult / 'mgc'))
    hls_model = converted(keras_model, no_catapult / 'prj')
    with pytest.warns(UserWarning, match='no report to return'):
        hls_model.build(log_to_stdout=False)
    assert (no_catapult / 'prj' / 'catapult_build.log').read_text() == 'from PATH\n'


def test_a_failing_build_raises_with_the_error_lines(keras_model, no_catapult: Path, monkeypatch) -> None:
    fake_catapult(no_catapult / 'cat', 'echo "# Info: starting"; echo "# Error: go compile failed"; exit 3')
    monkeypatch.setenv('CATAPULT_HOME', str(no_catapult / 'cat'))
    with pytest.raises(VendorBuildError, match=r'exit code 3[\s\S]*# Error: go compile failed') as error:
        converted(keras_model, no_catapult / 'prj').build(log_to_stdout=False)
    assert 'Info: starting' not in str(error.value)


def test_steps_without_an_implementation_are_refused(keras_model, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='no export, bup step'):
        converted(keras_model, tmp_path / 'prj').build(export=True, bup=True)


def test_an_unknown_build_option_is_a_type_error(keras_model, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match='unknown option.*cosimm'):
        converted(keras_model, tmp_path / 'prj').build(cosimm=True)


def test_cosim_needs_an_hdl_output(fpga_project: Path) -> None:
    run = stubbed(fpga_project, 'cosim=True verilog=False', fails=True)
    assert 'cosim needs verilog=True or vhdl=True' in run.stderr
