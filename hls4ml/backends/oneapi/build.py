"""`build()`: configure the written CMake project with the oneAPI compiler, make one target (and run
its testbench binary), and return the parsed reports (hls4ml.report.parse_oneapi_report)."""

from __future__ import annotations

import re
import subprocess
import warnings
from pathlib import Path
from typing import Any

from hls4ml.backends.base import Design
from hls4ml.backends.oneapi.toolkit import BUILD_TYPES, TOOLKIT
from hls4ml.backends.tool import Progress, parsed_reports, require_executable, run_tool
from hls4ml.report import parse_oneapi_report

RUNNABLE = ('fpga_emu', 'fpga_sim', 'fpga')  # the targets that are testbench binaries
REPORTING = ('report', 'fpga_sim', 'fpga')  # the targets that leave <name>.<target>.prj/reports/
VERSION = re.compile(r'\b(20\d\d)\.(\d+)')


def compiler_version(compiler: str) -> tuple[int, int] | None:
    """(year, release) from `icpx --version`, or None when it does not say."""
    output = subprocess.run([compiler, '--version'], capture_output=True, text=True, check=False).stdout
    found = VERSION.search(output)
    return (int(found.group(1)), int(found.group(2))) if found else None


def check_version(version: tuple[int, int] | None) -> None:
    """Warn when the compiler is not one of the versions with FPGA support."""
    if version is None:
        warnings.warn(f'could not read the {TOOLKIT.compiler} version; FPGA builds need 2024.1 to 2025.0', stacklevel=3)
    elif not TOOLKIT.oldest <= version <= TOOLKIT.newest:
        found, oldest, newest = ('.'.join(map(str, v)) for v in (version, TOOLKIT.oldest, TOOLKIT.newest))
        warnings.warn(
            f'{TOOLKIT.compiler} {found} is outside {oldest} to {newest}, the releases with FPGA support '
            '(the FPGA support package ends with 2025.0); the build may fail',
            stacklevel=3,
        )


def build_project(
    design: Design, build_type: str = 'fpga_emu', run: bool = False, log_to_stdout: bool = True
) -> dict[str, Any]:
    """`cmake ..` and `make <build_type>` in the project's build/ folder, then (with `run`) the testbench
    binary from the project folder. Returns hls4ml 1.x's {target: {'HLS', 'Loop', 'Quartus'}} for the
    targets that write reports (report, fpga_sim, fpga), else {}."""
    if build_type not in BUILD_TYPES:
        raise ValueError(f'build_type must be one of {", ".join(BUILD_TYPES)}, got {build_type!r}')
    check_version(compiler_version(require_executable('oneAPI', TOOLKIT.compiler, ('PATH',), TOOLKIT.advice)))
    cmake = require_executable('oneAPI', 'cmake', ('PATH',), 'install CMake 3.16 or newer.')
    make = require_executable('oneAPI', 'make', ('PATH',), 'install make.')
    project = Path(design.output_dir).resolve()
    build = project / 'build'
    build.mkdir(exist_ok=True)
    runs = run and build_type in RUNNABLE
    progress = Progress(TOOLKIT.compiler, ['cmake', build_type, *(['run'] if runs else [])])
    progress.start('cmake')
    run_tool([cmake, '..'], build, 'cmake.log', echo=log_to_stdout, progress=progress)
    progress.start(build_type)
    run_tool([make, build_type], build, f'make_{build_type}.log', echo=log_to_stdout, progress=progress)
    if runs:
        progress.start('run')
        (project / 'tb_data').mkdir(exist_ok=True)
        binary = build / f'{design.project_name}.{build_type}'
        run_tool([str(binary)], project, f'{build_type}.log', echo=log_to_stdout, progress=progress)
    progress.finish()
    return parsed_reports(parse_oneapi_report, build) if build_type in REPORTING else {}
