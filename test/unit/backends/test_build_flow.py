"""build() from start to finish without a vendor tool: fake `vitis_hls`, `vitis-run`, `vivado`, `catapult`,
`icpx`, `cmake` and `make` executables on PATH (written into a tmp folder) stand in for the tools.

The fake Vitis and Catapult run the generated build_prj.tcl under plain tclsh, with the vendor
commands defined as small procedures that print log lines and write what the tool would write: copies
of the hand-written report fixtures (test/fixtures/reports, written to the documented formats). So the
whole flow runs: the options Python passes, the Tcl's branches, the streamed log with its progress
lines, the tool's exit code, the error lines of a failure, and the parsed report build() returns. It
proves our side of the flow only, never that a real tool accepts the script.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402
from tcl_stubs import TclRun, run_with_stubs  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends.base import VendorBuildError, VendorToolNotFound  # noqa: E402
from hls4ml.backends.catapult.build import find_catapult  # noqa: E402
from hls4ml.backends.tool import Progress, banner_step  # noqa: E402
from hls4ml.backends.vitis.build import find_tool  # noqa: E402
from hls4ml.report import parse_catapult_report, parse_oneapi_report, parse_vivado_report  # noqa: E402

FIXTURES = Path(__file__).parents[2] / 'fixtures' / 'reports'
TOOL_VARIABLES = ('XILINX_HLS', 'XILINX_VITIS', 'XILINX_VIVADO', 'MGC_HOME', 'CATAPULT_HOME')

# Vitis HLS: the commands of build_prj.tcl; each step writes the fixture files the tool would write.
FAKE_VITIS_TCL = r"""
set fixtures $::env(FAKE_FIXTURES)
foreach name {open_project set_top add_files open_solution set_part create_clock set_clock_uncertainty} {
    proc $name {args} {}
}
proc copy_fixture {relative} {
    file mkdir [file dirname $relative]
    file copy -force $::fixtures/$relative $relative
}
proc fail_if {step} {
    if {[info exists ::env(FAKE_FAIL)] && $::env(FAKE_FAIL) eq $step} {
        puts "ERROR: \[HLS 207-3776\] use of undeclared identifier 'layer2_out' (firmware/myproject.cpp:31:5)"
        error "$step failed"
    }
}
proc csim_design {args} {
    puts "INFO: \[SIM 2\] *************** CSIM start ***************"
    fail_if csim
    copy_fixture tb_data/csim_results.log
    copy_fixture myproject_prj/solution1/csim/report/myproject_csim.log
    puts "INFO: \[SIM 1\] CSim done with 0 errors."
}
proc csynth_design {args} {
    puts "INFO: \[HLS 200-1510\] Running: csynth_design"
    fail_if csynth
    foreach file {myproject_csynth.xml myproject_csynth.rpt} { copy_fixture myproject_prj/solution1/syn/report/$file }
}
proc cosim_design {args} {
    puts "INFO: \[COSIM 212-47\] Using XSIM for RTL simulation."
    copy_fixture myproject_prj/solution1/sim/report/myproject_cosim.rpt
    # the RTL run of the testbench writes its results where the C run does
    file copy -force $::env(FAKE_RTL_RESULTS) tb_data/csim_results.log
}
proc export_design {args} { puts "INFO: \[IMPL 213-8\] Exporting RTL as a Vivado IP." }
source [lindex $argv 0]
"""
FAKE_VITIS_HLS = """#!/bin/sh
echo "$*" > launched_with.txt
[ "$1" = "-f" ] || { echo "ERROR: usage: vitis_hls -f <script>"; exit 2; }
exec tclsh "$FAKE_TOOLS/fake_vitis.tcl" "$2"
"""
FAKE_VITIS_RUN = """#!/bin/sh
echo "$*" > launched_with.txt
[ "$1 $2 $3" = "--mode hls --tcl" ] || { echo "ERROR: usage: vitis-run --mode hls --tcl <script>"; exit 2; }
exec tclsh "$FAKE_TOOLS/fake_vitis.tcl" "$4"
"""
FAKE_VIVADO = """#!/bin/sh
echo "INFO: [Common 17-206] Exiting Vivado"
cp "$FAKE_FIXTURES/vivado_synth.rpt" "$FAKE_FIXTURES/vivado_timing.rpt" .
"""

# Catapult: every vendor command reaches `unknown`; the few that write files do so.
FAKE_CATAPULT_TCL = r"""
set fixtures $::env(FAKE_FIXTURES)
proc solution_dir {} { return ${::project_name}_prj/${::project_name}.v1 }
rename unknown _original_unknown
proc unknown {args} {
    set command [join $args " "]
    switch -glob -- $command {
        "project new -name *" { file mkdir [lindex $args 3] }
        "go analyze" { file mkdir [solution_dir] }
        "go compile" {
            if {[info exists ::env(FAKE_FAIL)]} {
                puts "# Error: myproject.cpp(31): identifier 'layer2_out' is undefined (CRD-20)"
                error "go compile failed"
            }
        }
        "flow run /SCVerify/launch_make ./scverify/Verify_orig_cxx_osci.mk*" {
            file mkdir tb_data
            file copy -force $::fixtures/tb_data/csim_results.log tb_data/csim_results.log
        }
        "flow run /SCVerify/launch_make ./scverify/Verify_rtl_*" {
            file copy -force $::fixtures/tb_data/rtl_cosim_results.log tb_data/csim_results.log
        }
        "go extract" {
            foreach file {cycle.rpt rtl.rpt} {
                file copy -force $::fixtures/myproject_prj/myproject.v2/$file [solution_dir]
            }
        }
        "flow run /Vivado/synthesize*" {
            file copy -force $::fixtures/myproject_prj/myproject.v2/vivado_concat_v [solution_dir]
        }
    }
    if {[string match "go *" $command]} { puts "# Info: Completed transformation '[lindex $args 1]'" }
    return ""
}
set script [lindex $argv 0]
eval [lindex $argv 1]
source $script
"""
FAKE_CATAPULT = """#!/bin/sh
echo "$*" > launched_with.txt
exec tclsh "$FAKE_TOOLS/fake_catapult.tcl" "$3" "$5"
"""

# oneAPI: icpx answers --version; cmake configures nothing; make writes the target's report folder.
FAKE_ICPX = """#!/bin/sh
echo "Intel(R) oneAPI DPC++/C++ Compiler 2025.0.4 (2025.0.4.20241205)"
"""
FAKE_CMAKE = """#!/bin/sh
echo "-- The CXX compiler identification is IntelLLVM 2025.0.4"
echo "-- Build files have been written to: $(pwd)"
"""
FAKE_MAKE = """#!/bin/sh
target="$1"
echo "[ 50%] Building CXX object CMakeFiles/$target.dir/src/firmware/myproject_kernel.cpp.o"
if [ -n "$FAKE_FAIL" ]; then
    echo "src/firmware/myproject_kernel.cpp:12:5: error: no member named 'pipe' in namespace 'sycl::ext::intel'"
    echo "make[2]: *** [CMakeFiles/$target.dir/build.make:76] Error 1"
    exit 2
fi
if [ -d "$FAKE_FIXTURES/build/myproject.$target.prj" ]; then
    cp -r "$FAKE_FIXTURES/build/myproject.$target.prj" .
fi
printf '#!/bin/sh\\necho "Running on device: Intel(R) FPGA Emulation Device"\\nmkdir -p tb_data\\n' > myproject.$target
printf 'echo "0.1 0.9" > tb_data/results.log\\n' >> myproject.$target
chmod +x myproject.$target
echo "[100%] Built target $target"
"""


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation='relu'), keras.layers.Dense(2)])


@pytest.fixture
def tools(monkeypatch, tmp_path: Path) -> Path:
    """An empty folder first on PATH (then the system's, for tclsh), no vendor install variables."""
    folder = tmp_path / 'bin'
    folder.mkdir()
    monkeypatch.setenv('PATH', f'{folder}{os.pathsep}/usr/bin{os.pathsep}/bin')
    monkeypatch.setenv('FAKE_TOOLS', str(folder))
    for variable in TOOL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv('FAKE_FAIL', raising=False)
    if shutil.which('tclsh') is None:
        pytest.skip('tclsh is not installed (apt-get install tcl)')
    return folder


def install(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def converted(keras_model: keras.Model, folder: Path, backend: str, **kwargs: Any) -> Any:
    return hls4ml.converters.convert_from_keras_model(keras_model, output_dir=str(folder), backend=backend, **kwargs)


# ---- progress ---------------------------------------------------------------------------------------


def test_progress_numbers_the_planned_steps_and_recognises_the_banners(capsys) -> None:
    progress = Progress('vitis_hls', ['csim', 'csynth'])
    for line in ('INFO: starting', '***** C SIMULATION *****', 'more', '***** C/RTL SYNTHESIS *****\n'):
        progress.see(line)
    progress.start('export')
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(' (after')[0] for line in lines] == [
        '[vitis_hls] step 1/2: csim',
        '[vitis_hls] step 2/2: csynth',
        '[vitis_hls] step -: export',
    ]
    assert progress.current == 'export' and progress.seen == ['csim', 'csynth', 'export']
    assert banner_step('***** VIVADO SYNTHESIS *****') == 'vsynth' and banner_step('** C SIMULATION **') is None


# ---- Vitis ------------------------------------------------------------------------------------------


@pytest.fixture
def fake_vitis(tools: Path, monkeypatch) -> Path:
    (tools / 'fake_vitis.tcl').write_text(FAKE_VITIS_TCL)
    install(tools, 'vitis_hls', FAKE_VITIS_HLS)
    install(tools, 'vivado', FAKE_VIVADO)
    monkeypatch.setenv('FAKE_FIXTURES', str(FIXTURES / 'vitis'))
    monkeypatch.setenv('FAKE_RTL_RESULTS', str(FIXTURES / 'vitis' / 'tb_data' / 'rtl_cosim_results.log'))
    return tools


def test_vitis_build_streams_the_log_and_returns_the_parsed_report(keras_model, fake_vitis, tmp_path, capsys) -> None:
    project = tmp_path / 'prj'
    report = converted(keras_model, project, 'Vitis').build(csim=True, synth=True, cosim=True, vsynth=True)
    assert report == parse_vivado_report(FIXTURES / 'vitis')
    out = capsys.readouterr().out
    steps = [line.split(' (after')[0] for line in out.splitlines() if line.startswith('[vitis_hls]')]
    assert steps[:-1] == [
        '[vitis_hls] step 1/4: csim',
        '[vitis_hls] step 2/4: csynth',
        '[vitis_hls] step 3/4: cosim',
        '[vitis_hls] step 4/4: vsynth',
    ]
    assert steps[-1].startswith('[vitis_hls] done in ')
    assert 'CSim done with 0 errors' in out  # the tool's own lines, streamed
    assert (project / 'launched_with.txt').read_text().split() == ['-f', 'build_prj.tcl']
    assert (
        'array set opt {reset 0 csim 1 synth 1 cosim 1 validation 0 export 0 vsynth 1}'
        in (project / 'build_opt.tcl').read_text()
    )
    assert 'CSim done with 0 errors' in (project / 'vitis_build.log').read_text()
    # the C results stay in csim_results.log, the RTL's go to rtl_cosim_results.log
    assert (project / 'tb_data' / 'rtl_cosim_results.log').is_file()


def test_vitis_build_without_log_shows_only_progress(keras_model, fake_vitis, tmp_path, capsys) -> None:
    report = converted(keras_model, tmp_path / 'prj', 'Vitis').build(synth=False, log_to_stdout=False)
    assert set(report) == {'CSimResults'}
    out = capsys.readouterr().out
    assert 'CSim done' not in out and '[vitis_hls] step 1/1: csim' in out


def test_vitis_validation_compares_the_c_and_rtl_results(keras_model, fake_vitis, tmp_path, capsys) -> None:
    report = converted(keras_model, tmp_path / 'prj', 'Vitis').build(synth=False, validation=True)
    assert report['CSimResults'] == report['CosimResults']
    out = capsys.readouterr().out
    assert 'C simulation and RTL co-simulation give the same results' in out and 'step 3/3: validation' in out


def test_vitis_validation_failure_is_a_build_error(keras_model, fake_vitis, tmp_path, monkeypatch) -> None:
    different = tmp_path / 'different.log'
    different.write_text('0.5 0.5\n')
    monkeypatch.setenv('FAKE_RTL_RESULTS', str(different))
    with pytest.raises(VendorBuildError, match=r'exit code 1\) during validation[\s\S]*ERROR: validation'):
        converted(keras_model, tmp_path / 'prj', 'Vitis').build(validation=True, log_to_stdout=False)


def test_a_failing_vitis_step_raises_with_the_tool_error_lines(keras_model, fake_vitis, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('FAKE_FAIL', 'csynth')
    with pytest.raises(VendorBuildError) as error:
        converted(keras_model, tmp_path / 'prj', 'Vitis').build(log_to_stdout=False)
    message = str(error.value)
    assert message.startswith('vitis_hls failed (exit code 1) during csynth; from ')
    assert "ERROR: [HLS 207-3776] use of undeclared identifier 'layer2_out'" in message
    assert 'CSim done' not in message


def test_vitis_run_is_used_when_vitis_hls_is_missing(keras_model, fake_vitis, tmp_path) -> None:
    (fake_vitis / 'vitis_hls').unlink()
    install(fake_vitis, 'vitis-run', FAKE_VITIS_RUN)
    project = tmp_path / 'prj'
    report = converted(keras_model, project, 'Vitis').build(log_to_stdout=False)
    assert (project / 'launched_with.txt').read_text().split() == ['--mode', 'hls', '--tcl', 'build_prj.tcl']
    assert report['CSynthesisReport']['DSP'] == '2596'


def test_vitis_is_found_under_xilinx_hls(keras_model, fake_vitis, tmp_path, monkeypatch) -> None:
    install_dir = tmp_path / 'Vitis' / '2024.1'
    (install_dir / 'bin').mkdir(parents=True)
    shutil.move(fake_vitis / 'vitis_hls', install_dir / 'bin' / 'vitis_hls')
    monkeypatch.setenv('XILINX_HLS', str(install_dir))
    report = converted(keras_model, tmp_path / 'prj', 'Vitis').build(log_to_stdout=False)
    assert 'CSynthesisReport' in report


def test_without_vitis_the_error_names_the_executables_and_variables(keras_model, tools, tmp_path) -> None:
    with pytest.raises(VendorToolNotFound) as error:
        converted(keras_model, tmp_path / 'prj', 'Vitis').build()
    for name in ("'vitis_hls'", "'vitis-run'", '$XILINX_HLS/bin', '$XILINX_VITIS/bin', 'settings64.sh'):
        assert name in str(error.value)


def test_without_vivado_hls_the_error_names_it(keras_model, tools, tmp_path) -> None:
    with pytest.raises(VendorToolNotFound, match=r"'vivado_hls' on PATH or in \$XILINX_VIVADO/bin"):
        converted(keras_model, tmp_path / 'prj', 'Vivado').build()


def test_a_build_that_writes_no_report_warns_and_returns_nothing(keras_model, tools, tmp_path) -> None:
    install(tools, 'vitis_hls', '#!/bin/sh\necho "INFO: nothing to do"\n')
    with pytest.warns(UserWarning, match='no report to return.*myproject_prj'):
        assert converted(keras_model, tmp_path / 'prj', 'Vitis').build(log_to_stdout=False) == {}


def test_fifo_opt_is_refused(keras_model, tmp_path) -> None:
    with pytest.raises(ValueError, match='fifo_opt'):
        converted(keras_model, tmp_path / 'prj', 'Vitis').build(fifo_opt=True)


# ---- Catapult ---------------------------------------------------------------------------------------


@pytest.fixture
def fake_catapult(tools: Path, monkeypatch) -> Path:
    (tools / 'fake_catapult.tcl').write_text(FAKE_CATAPULT_TCL)
    install(tools, 'catapult', FAKE_CATAPULT)
    monkeypatch.setenv('FAKE_FIXTURES', str(FIXTURES / 'catapult'))
    return tools


def test_catapult_build_returns_the_parsed_report(keras_model, fake_catapult, tmp_path, capsys) -> None:
    project = tmp_path / 'prj'
    report = converted(keras_model, project, 'Catapult').build(validation=True, vsynth=True)
    expected = parse_catapult_report(FIXTURES / 'catapult')
    assert report == expected
    out = capsys.readouterr().out
    steps = [line.split(' (after')[0] for line in out.splitlines() if line.startswith('[catapult] step')]
    assert steps == [
        '[catapult] step 1/5: csim',
        '[catapult] step 2/5: csynth',
        '[catapult] step 3/5: cosim',
        '[catapult] step 4/5: validation',
        '[catapult] step 5/5: vsynth',
    ]
    assert "# Info: Completed transformation 'extract'" in out
    assert 'give the same results' in out
    launched = (project / 'launched_with.txt').read_text()
    assert launched.startswith('-shell -f build_prj.tcl -eval set ::argv "reset=False csim=True synth=True')


def test_a_failing_catapult_step_raises_with_the_error_lines(keras_model, fake_catapult, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('FAKE_FAIL', '1')
    with pytest.raises(VendorBuildError) as error:
        converted(keras_model, tmp_path / 'prj', 'Catapult').build(log_to_stdout=False)
    message = str(error.value)
    assert message.startswith('catapult failed (exit code 1); from ')  # go compile runs before the csim banner
    assert "# Error: myproject.cpp(31): identifier 'layer2_out' is undefined (CRD-20)" in message


# ---- oneAPI -----------------------------------------------------------------------------------------


@pytest.fixture
def fake_oneapi(tools: Path, monkeypatch) -> Path:
    for name, text in (('icpx', FAKE_ICPX), ('cmake', FAKE_CMAKE), ('make', FAKE_MAKE)):
        install(tools, name, text)
    monkeypatch.setenv('FAKE_FIXTURES', str(FIXTURES / 'oneapi'))
    return tools


def test_oneapi_report_target_returns_the_parsed_report(keras_model, fake_oneapi, tmp_path, capsys) -> None:
    project = tmp_path / 'prj'
    report = converted(keras_model, project, 'oneAPI').build(build_type='report')
    assert report == {'report': parse_oneapi_report(FIXTURES / 'oneapi')['report']}
    out = capsys.readouterr().out
    assert '[icpx] step 1/2: cmake' in out and '[icpx] step 2/2: report' in out
    assert '[100%] Built target report' in out
    assert (project / 'build' / 'make_report.log').is_file()


def test_oneapi_emulator_run_has_no_report(keras_model, fake_oneapi, tmp_path, capsys) -> None:
    project = tmp_path / 'prj'
    assert converted(keras_model, project, 'oneAPI').build(build_type='fpga_emu', run=True, log_to_stdout=False) == {}
    assert '[icpx] step 3/3: run' in capsys.readouterr().out
    assert (project / 'tb_data' / 'results.log').read_text() == '0.1 0.9\n'


def test_a_failing_oneapi_compile_raises_with_the_compiler_errors(
    keras_model, fake_oneapi, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv('FAKE_FAIL', '1')
    with pytest.raises(VendorBuildError) as error:
        converted(keras_model, tmp_path / 'prj', 'oneAPI').build(build_type='fpga', log_to_stdout=False)
    message = str(error.value)
    assert message.startswith('make failed (exit code 2) during fpga; from ')
    assert "error: no member named 'pipe'" in message and 'Building CXX object' not in message


# ---- the Vitis build_prj.tcl under recording stubs (vendor-tools spec §1.2, §5.1) ------------------


@pytest.fixture
def vitis_project(keras_model, tmp_path: Path) -> Path:
    return Path(converted(keras_model, tmp_path / 'prj', 'Vitis').write())


def stubbed_vitis(project: Path, options: str | None, responses: dict[str, str] | None = None) -> TclRun:
    if options is not None:
        (project / 'build_opt.tcl').write_text(f'array set opt {{{options}}}\n')
    run = run_with_stubs(project / 'build_prj.tcl', responses=responses)
    assert run.returncode != 2, run.stderr
    return run


def test_the_default_vitis_run_follows_the_spec_order(vitis_project: Path) -> None:
    run = stubbed_vitis(vitis_project, None)
    commands = [words[0] for words in run.commands]
    assert sorted(set(commands), key=commands.index) == [
        'open_project',
        'set_top',
        'add_files',
        'open_solution',
        'set_part',
        'create_clock',
        'set_clock_uncertainty',
        'csim_design',
        'csynth_design',
    ]
    assert commands.index('open_solution') > max(i for i, name in enumerate(commands) if name == 'add_files')
    assert run.exit_code == 0
    allowed = {'add_files': {'-tb', '-cflags'}, 'open_solution': {'-reset'}, 'open_project': {'-reset'}}
    allowed['create_clock'] = {'-period', '-name'}
    for words in run.commands:  # every option is one the spec lists for its command
        values = {word for before, word in zip(words, words[1:], strict=False) if before == '-cflags'}
        options = {word for word in words[1:] if word.startswith('-')} - values
        assert options <= allowed.get(words[0], set()), words


def test_vitis_validation_runs_both_simulations_and_fails_without_rtl_results(vitis_project: Path) -> None:
    run = stubbed_vitis(vitis_project, 'reset 0 csim 0 synth 0 cosim 0 validation 1 export 0 vsynth 0')
    assert [line for line in run.lines() if line.endswith('_design') or '_design ' in line] == [
        'csim_design',
        'cosim_design -trace_level all',
    ]
    assert run.exit_code == 1 and 'ERROR: validation: tb_data/csim_results.log' in run.stdout


def test_vitis_cosim_results_go_to_their_own_log_and_validation_passes(vitis_project: Path) -> None:
    tb_data = vitis_project / 'tb_data'
    tb_data.mkdir(exist_ok=True)
    (tb_data / 'csim_results.log').write_text('0.25 0.75\n')
    rtl_run = 'set channel [open tb_data/csim_results.log w]; puts $channel {0.25 0.75}; close $channel'
    run = stubbed_vitis(
        vitis_project, 'reset 0 csim 0 synth 0 cosim 1 validation 1 export 0 vsynth 0', {'cosim_design*': rtl_run}
    )
    assert run.exit_code == 0 and 'give the same results' in run.stdout
    assert (tb_data / 'rtl_cosim_results.log').read_text() == '0.25 0.75\n'
    assert (tb_data / 'csim_results.log').read_text() == '0.25 0.75\n'
    assert not (tb_data / 'csim_results.log.keep').exists()


# ---- vendor: the real tools (skipped where they are not installed) ----------------------------------


@pytest.mark.vendor
def test_a_real_vitis_build_returns_its_synthesis_report(keras_model, tmp_path: Path) -> None:
    try:
        find_tool('Vitis')
    except VendorToolNotFound as missing:
        pytest.skip(str(missing))
    report = converted(keras_model, tmp_path / 'prj', 'Vitis').build(csim=True, synth=True, log_to_stdout=False)
    synthesis = report['CSynthesisReport']
    assert float(synthesis['TargetClockPeriod']) == 5.0 and int(synthesis['WorstLatency']) >= 1
    assert {'DSP', 'LUT', 'FF', 'AvailableDSP'} <= set(synthesis) and len(report['CSimResults']) >= 1


@pytest.mark.vendor
def test_a_real_catapult_build_returns_its_latency_and_area(keras_model, tmp_path: Path) -> None:
    try:
        find_catapult()
    except VendorToolNotFound as missing:
        pytest.skip(str(missing))
    report = converted(keras_model, tmp_path / 'prj', 'Catapult').build(csim=True, synth=True, log_to_stdout=False)
    synthesis = report['CSynthesisReport']
    assert float(synthesis['TargetClockPeriod']) == 5.0 and float(synthesis['AreaScore']) > 0
