"""Running a vendor tool for `build()`: finding its executable, running it with its log streamed to a
file (and the terminal), one progress line per build step as the log reaches it, and the error lines
when it fails. Shared by every backend's build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hls4ml.backends.base import VendorBuildError, VendorToolNotFound
from hls4ml.report.common import ReportNotFoundError

# The tools' own error lines, compiler diagnostics (`file:line:col: error: ...`, `g++: error: ...`) and
# CMake's errors.
ERROR_LINE = re.compile(r'\s*(#\s*)?(ERROR|Error|error)[:\s\[]|.*\berror: |CMake Error')

# The step banners the generated Tcl prints (`report_step` in the Vitis and Catapult build_prj.tcl)
# -> the step's short name, as build() names it.
BANNERS = {
    'C SIMULATION': 'csim',
    'C/RTL SYNTHESIS': 'csynth',
    'C/RTL COSIMULATION': 'cosim',
    'VALIDATION': 'validation',
    'EXPORT IP': 'export',
    'VIVADO SYNTHESIS': 'vsynth',
    'POWER': 'power',
    'DESIGN ANALYZER': 'da',
}
BANNER = re.compile(r'^\*{5} (.+) \*{5}\s*$')


def banner_step(line: str) -> str | None:
    """The step a `***** C SIMULATION *****` banner line starts, else None."""
    found = BANNER.match(line)
    return BANNERS.get(found.group(1)) if found else None


class Progress:
    """Prints `[tool] step 2/4: csynth (after 12 s)` when a build step starts: either announced by the
    caller (`start`) or recognised in the tool's log by its banner (`see`). Knows the step that is
    running, for the error message when the tool fails."""

    def __init__(self, tool: str, planned: list[str]) -> None:
        self.tool, self.planned = tool, planned
        self.current: str | None = None
        self.started = time.monotonic()
        self.seen: list[str] = []

    def start(self, step: str) -> None:
        if step == self.current:
            return
        self.current = step
        self.seen.append(step)
        number = f'{self.planned.index(step) + 1}/{len(self.planned)}' if step in self.planned else '-'
        print(f'[{self.tool}] step {number}: {step} (after {time.monotonic() - self.started:.0f} s)', flush=True)

    def see(self, line: str) -> None:
        step = banner_step(line)
        if step is not None:
            self.start(step)

    def finish(self) -> None:
        print(f'[{self.tool}] done in {time.monotonic() - self.started:.0f} s', flush=True)


def find_executable(executable: str, places: tuple[str, ...]) -> str | None:
    """The first `executable` found in `places`, in order: 'PATH', or the name of an environment
    variable holding an install folder (the executable is in its bin/)."""
    for place in places:
        if place == 'PATH':
            found = shutil.which(executable)
            if found:
                return found
            continue
        root = os.environ.get(place)
        if root and (Path(root) / 'bin' / executable).is_file():
            return str(Path(root) / 'bin' / executable)
    return None


def require_executable(backend: str, executable: str, places: tuple[str, ...], advice: str) -> str:
    """`find_executable`, or VendorToolNotFound naming the executable and saying how to get it (`advice`)."""
    found = find_executable(executable, places)
    if found is None:
        raise VendorToolNotFound(
            f"{backend} build needs '{executable}', which is not installed here: {advice} "
            'compile()/predict() need no vendor tool.'
        )
    return found


def run_tool(
    command: list[str], project: Path, log_name: str, echo: bool = True, progress: Progress | None = None
) -> Path:
    """Run `command` in the project folder, writing its output to `log_name` there (and to stdout when
    `echo`; `progress` sees every line); raise VendorBuildError with the tool's error lines when it
    fails. Returns the log's path."""
    log_path = project / log_name
    with open(log_path, 'w') as log:
        process = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        try:
            for line in process.stdout:
                log.write(line)
                log.flush()
                if echo:
                    sys.stdout.write(line)
                if progress is not None:
                    progress.see(line)
            code = process.wait()
        except BaseException:  # e.g. Ctrl-C: do not leave the tool running
            process.kill()
            process.wait()
            raise
    if code != 0:
        step = progress.current if progress is not None else None
        raise VendorBuildError(error_summary(log_path, Path(command[0]).name, code, step))
    return log_path


def error_summary(log_path: Path, tool: str, code: int, step: str | None = None) -> str:
    """The tool's error lines (else the last lines of its log), at most 25."""
    lines = log_path.read_text(errors='replace').splitlines()
    errors = [line for line in lines if ERROR_LINE.match(line)] or lines[-15:]
    during = f' during {step}' if step else ''
    return f'{tool} failed (exit code {code}){during}; from {log_path}:\n' + '\n'.join(errors[:25])


def parsed_reports(parse: Callable[[Path], dict[str, Any]], folder: Path) -> dict[str, Any]:
    """`parse(folder)` after a build that succeeded; {} with a warning when the tool wrote no report
    (e.g. a build of C simulation only), instead of failing a build that worked."""
    try:
        return parse(folder)
    except ReportNotFoundError as error:
        # stacklevel: this, the backend's build_project and build, ModelGraph.build, then the caller
        warnings.warn(f'the build finished, but there is no report to return: {error}', stacklevel=5)
        return {}
