"""`build()`: run Vitis HLS (or Vivado HLS) on a written project, when the tool is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hls4ml.backends.base import VendorBuildError, VendorToolNotFound

TOOLS = {'Vitis': ('vitis_hls', 'XILINX_HLS'), 'Vivado': ('vivado_hls', 'XILINX_VIVADO')}
STEPS = ('reset', 'csim', 'synth', 'cosim', 'export', 'vsynth')


def find_tool(backend: str) -> str:
    executable, variable = TOOLS[backend]
    root = os.environ.get(variable)
    candidates = [Path(root) / 'bin' / executable] if root else []
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    found = shutil.which(executable)
    if found is None:
        raise VendorToolNotFound(
            f"{backend} build needs '{executable}', which is not installed here: install {backend} HLS and "
            f'source its settings64.sh (which sets {variable} and PATH), or put {executable} on PATH. '
            'compile()/predict() need no vendor tool.'
        )
    return found


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
    log_path = project / 'vitis_hls.log'
    with open(log_path, 'w') as log:
        process = subprocess.Popen(
            [tool, '-f', 'build_prj.tcl'], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert process.stdout is not None
        for line in process.stdout:
            log.write(line)
            if log_to_stdout:
                print(line, end='')
        code = process.wait()
    if code != 0:
        raise VendorBuildError(_error_lines(log_path, tool, code))
    return {'ReturnCode': code, 'Log': str(log_path)}


def _error_lines(log_path: Path, tool: str, code: int) -> str:
    lines = log_path.read_text(errors='replace').splitlines()
    errors = [line for line in lines if re.match(r'\s*(ERROR|Error|error)[:\s\[]', line)] or lines[-15:]
    return f'{tool} failed (exit code {code}); from {log_path}:\n' + '\n'.join(errors[:25])
