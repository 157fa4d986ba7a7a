"""`build()`: run Vitis HLS (or Vivado HLS) on a written project, when the tool is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hls4ml.backends.tool import require_executable, run_tool

TOOLS = {'Vitis': ('vitis_hls', 'XILINX_HLS'), 'Vivado': ('vivado_hls', 'XILINX_VIVADO')}
STEPS = ('reset', 'csim', 'synth', 'cosim', 'export', 'vsynth')


def find_tool(backend: str) -> str:
    executable, variable = TOOLS[backend]
    advice = (
        f'install {backend} HLS and source its settings64.sh (which sets {variable} and PATH), '
        f'or put {executable} on PATH.'
    )
    return require_executable(backend, executable, (variable, 'PATH'), advice)


def build_options(**steps: bool) -> str:
    """The Tcl `opt` array that build_prj.tcl reads."""
    return 'array set opt {' + ' '.join(f'{name} {int(bool(steps.get(name, False)))}' for name in STEPS) + '}\n'


def build_project(
    model: Any,
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
    """Run the steps asked for; returns {'ReturnCode', 'Log'} (report parsing arrives with the reports)."""
    if fifo_opt:
        raise ValueError('fifo_opt needs io_stream, which this version does not support yet')
    tool = find_tool(model.backend.name)
    project = Path(model.output_dir)
    (project / 'build_opt.tcl').write_text(
        build_options(reset=reset, csim=csim, synth=synth, cosim=cosim or validation, export=export, vsynth=vsynth)
    )
    log_path = run_tool([tool, '-f', 'build_prj.tcl'], project, 'vitis_hls.log', echo=log_to_stdout)
    return {'ReturnCode': 0, 'Log': str(log_path)}
