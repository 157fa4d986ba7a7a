"""`build()`: run Catapult HLS on a written project, when the tool is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hls4ml.backends.tool import require_executable, run_tool

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


def find_catapult() -> str:
    advice = (
        f'put it on PATH, or set MGC_HOME or CATAPULT_HOME to the Catapult install (with {EXECUTABLE} in its bin/).'
    )
    return require_executable('Catapult', EXECUTABLE, PLACES, advice)


def build_arguments(**steps: bool) -> str:
    """The `::argv` words that build_prj.tcl reads: name=True|False for every step."""
    return ' '.join(f'{name}={bool(steps.get(name, False))}' for name in STEPS)


def build_project(model: Any, log_to_stdout: bool = True, **options: Any) -> dict[str, Any]:
    """Run the steps asked for (OPTIONS, by name); returns {'ReturnCode', 'Log'} (report parsing arrives
    with the reports)."""
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
    log_path = run_tool(command, Path(model.output_dir), 'catapult_build.log', echo=log_to_stdout)
    return {'ReturnCode': 0, 'Log': str(log_path)}
