"""`build()`: run Catapult HLS on a written project, when the tool is installed, and return its parsed
reports (hls4ml.report.parse_catapult_report)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hls4ml.backends.base import Design
from hls4ml.backends.tool import Progress, parsed_reports, require_executable, run_tool
from hls4ml.report import parse_catapult_report

EXECUTABLE = 'catapult'
PLACES = ('PATH', 'MGC_HOME', 'CATAPULT_HOME')  # where to look, in order (the variables name the install)
# hls4ml 1.x's build() options with their defaults; STEPS drive build_prj.tcl, NOT_SUPPORTED have no step here
# and `ran_frame` (random frames when there is no tb_data) is accepted and unused: the testbench runs
# tb_data, or one sample of zeros.
OPTIONS: dict[str, Any] = {
    'reset': False,
    'csim': True,
    'synth': True,
    'cosim': False,
    'validation': False,
    'vhdl': False,
    'verilog': True,
    'export': False,
    'vsynth': False,
    'fifo_opt': False,
    'bitfile': False,
    'ran_frame': 5,
    'sw_opt': False,
    'power': False,
    'da': False,
    'bup': False,
}
STEPS = ('reset', 'csim', 'synth', 'cosim', 'validation', 'vhdl', 'verilog', 'vsynth', 'power', 'da')
NOT_SUPPORTED = ('export', 'fifo_opt', 'bitfile', 'sw_opt', 'bup')
# The steps in the order build_prj.tcl runs them, with the name its progress line shows, and what each
# needs (as the script decides: validation compares csim with cosim; the RTL steps need synthesis).
PROGRESS = {
    'csim': 'csim',
    'synth': 'csynth',
    'cosim': 'cosim',
    'validation': 'validation',
    'vsynth': 'vsynth',
    'power': 'power',
    'da': 'da',
}
NEEDS = {
    'validation': ('csim', 'cosim'),
    'cosim': ('synth',),
    'vsynth': ('synth',),
    'power': ('synth',),
    'da': ('synth',),
}


def find_catapult() -> str:
    advice = (
        f'put it on PATH, or set MGC_HOME or CATAPULT_HOME to the Catapult install (with {EXECUTABLE} in its bin/).'
    )
    return require_executable('Catapult', EXECUTABLE, PLACES, advice)


def build_arguments(**steps: bool) -> str:
    """The `::argv` words that build_prj.tcl reads: name=True|False for every step."""
    return ' '.join(f'{name}={bool(steps.get(name, False))}' for name in STEPS)


def planned_steps(chosen: dict[str, Any]) -> list[str]:
    """The progress names of the steps the script will run, in its order."""
    run = {name for name in PROGRESS if chosen[name]}
    for name in NEEDS:  # in dependency order: validation adds cosim, which adds synth
        if name in run:
            run.update(NEEDS[name])
    return [short for name, short in PROGRESS.items() if name in run]


def build_project(design: Design, log_to_stdout: bool = True, **options: Any) -> dict[str, Any]:
    """Run the steps asked for (OPTIONS, by name) and return the parsed reports (CSynthesisReport from
    Catapult's cycle.rpt and rtl.rpt, UtilizationReport and TimingReport after vsynth, the testbench
    logs)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(
            f'Catapult build() got unknown option(s) {", ".join(unknown)}; the options are {", ".join(OPTIONS)}'
        )
    chosen = {**OPTIONS, **options}
    unsupported = [name for name in NOT_SUPPORTED if chosen[name]]
    if unsupported:
        raise ValueError(f'the Catapult build has no {", ".join(unsupported)} step in this version')
    tool = find_catapult()
    arguments = build_arguments(**{name: chosen[name] for name in STEPS})
    command = [tool, '-shell', '-f', 'build_prj.tcl', '-eval', f'set ::argv "{arguments}"']
    progress = Progress('catapult', planned_steps(chosen))
    run_tool(command, Path(design.output_dir), 'catapult_build.log', echo=log_to_stdout, progress=progress)
    progress.finish()
    return parsed_reports(parse_catapult_report, Path(design.output_dir))
