"""`build()`: run Vitis HLS (or Vivado HLS) on a written project, when the tool is installed, and return
its parsed reports (hls4ml.report.parse_vivado_report)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hls4ml.backends.base import Design, VendorToolNotFound
from hls4ml.backends.tool import Progress, find_executable, parsed_reports, run_tool
from hls4ml.report import parse_vivado_report


@dataclass(frozen=True)
class Launcher:
    """One way to run build_prj.tcl: the executable, where to look for it, its command line."""

    executable: str
    places: tuple[str, ...]  # 'PATH' or an environment variable naming the install (executable in bin/)
    arguments: tuple[str, ...]


LAUNCHERS = {  # in order of preference; vitis_hls -f is deprecated from 2024.2, vitis-run exists from 2023.2
    'Vitis': (
        Launcher('vitis_hls', ('PATH', 'XILINX_HLS'), ('-f', 'build_prj.tcl')),
        Launcher('vitis-run', ('PATH', 'XILINX_VITIS', 'XILINX_HLS'), ('--mode', 'hls', '--tcl', 'build_prj.tcl')),
    ),
    'Vivado': (Launcher('vivado_hls', ('PATH', 'XILINX_VIVADO'), ('-f', 'build_prj.tcl')),),
}
STEPS = ('reset', 'csim', 'synth', 'cosim', 'validation', 'export', 'vsynth')  # the opt array of build_prj.tcl
# build() keyword -> the step name its progress line shows (the synth keyword runs csynth_design)
PROGRESS = {
    'csim': 'csim',
    'synth': 'csynth',
    'cosim': 'cosim',
    'validation': 'validation',
    'export': 'export',
    'vsynth': 'vsynth',
}


def find_tool(backend: str) -> list[str]:
    """The command line that runs build_prj.tcl, or VendorToolNotFound naming every executable and
    variable looked at."""
    for launcher in LAUNCHERS[backend]:
        found = find_executable(launcher.executable, launcher.places)
        if found:
            return [found, *launcher.arguments]
    looked = '; '.join(
        f"'{launcher.executable}' on PATH or in {', '.join(f'${place}/bin' for place in launcher.places[1:])}"
        for launcher in LAUNCHERS[backend]
    )
    raise VendorToolNotFound(
        f'{backend} build needs {backend} HLS, which is not installed here (looked for {looked}): install it '
        'and source its settings64.sh (which sets those variables and PATH). compile()/predict() need no vendor tool.'
    )


def build_options(**steps: bool) -> str:
    """The Tcl `opt` array that build_prj.tcl reads."""
    return 'array set opt {' + ' '.join(f'{name} {int(bool(steps.get(name, False)))}' for name in STEPS) + '}\n'


def build_project(
    design: Design,
    reset: bool = False,
    csim: bool = True,
    synth: bool = True,
    cosim: bool = False,
    validation: bool = False,
    export: bool = False,
    vsynth: bool = False,
    fifo_opt: bool = False,
    log_to_stdout: bool = True,
) -> dict[str, Any]:
    """Run the steps asked for (`validation` also runs csim and cosim and compares their results) and
    return the parsed reports: hls4ml 1.x's dictionary (CSynthesisReport, CosimReport, ...)."""
    if fifo_opt:
        raise ValueError('fifo_opt (FIFO depths from a co-simulation) is not implemented in this version')
    backend = design.backend.name
    command = find_tool(backend)
    project = Path(design.output_dir)
    steps = {
        'reset': reset,
        'csim': csim or validation,
        'synth': synth,
        'cosim': cosim or validation,
        'validation': validation,
        'export': export,
        'vsynth': vsynth,
    }
    (project / 'build_opt.tcl').write_text(build_options(**steps))
    progress = Progress(Path(command[0]).name, [short for name, short in PROGRESS.items() if steps[name]])
    run_tool(command, project, f'{backend.lower()}_build.log', echo=log_to_stdout, progress=progress)
    progress.finish()
    return parsed_reports(parse_vivado_report, project)
