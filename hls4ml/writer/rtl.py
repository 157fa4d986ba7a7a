"""Write the RTL project of a model on the Verilog backend (docs/verilog.md): rendered in memory first
(`render_rtl`: nothing is written when the model cannot be expressed), then written under the folder's
lock, atomically, with the configuration beside it as for the HLS backends. `rtl_interface` tells the
Verilator binding (hls4ml/csim/rtl.py) what to compile, as the C++ writer hands its CSimInterface."""

from __future__ import annotations

from pathlib import Path

from hls4ml.backends.base import Design
from hls4ml.backends.verilog.project import RTLProject, render_rtl, render_trace_rtl
from hls4ml.backends.verilog.testbench import testbench_inputs
from hls4ml.csim.rtl import RTLInterface
from hls4ml.writer import _config_yaml, check_project_names
from hls4ml.writer.files import project_lock, remove_stale, write_files


def write_rtl_project(design: Design) -> tuple[Path, RTLProject]:
    """Trace, render and write the Verilog project; (its folder, the rendered project)."""
    output_dir = check_project_names(design)
    project = render_rtl(design)
    files = {path: content.encode() for path, content in project.files.items()}
    files['hls4ml_config.yml'] = _config_yaml(design.config).encode()
    files.update({path: text.encode() for path, text in testbench_inputs(design, project).items()})
    memfiles = {path.rsplit('/', 1)[1] for path in files if path.startswith('src/memfiles/')}
    stages = {path.rsplit('/', 1)[1] for path in files if path.startswith('src/') and path.count('/') == 1}
    with project_lock(output_dir):
        write_files(output_dir, files)
        remove_stale(output_dir / 'src' / 'memfiles', memfiles)
        remove_stale(output_dir / 'src', stages | {'memfiles', 'static'})
    return output_dir, project


def rtl_interface(project: RTLProject) -> RTLInterface:
    """What the binding compiles: the RTL and the simulation sources (not the testbench nor the report,
    so that they do not change the cache key), and the ports' facts."""
    compiled = {path: text for path, text in project.files.items() if path.startswith(('src/', 'sim/'))}
    return RTLInterface(
        project.name,
        compiled,
        project.inputs,
        project.outputs,
        project.stages,
        project.input_sizes,
        project.output_sizes,
        project.traces,
    )


def trace_interface(design: Design) -> RTLInterface:
    """The trace build of the design (`render_trace_rtl`), for trace(): compiled, never written."""
    return rtl_interface(render_trace_rtl(design))
