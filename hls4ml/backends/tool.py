"""Running a vendor tool for `build()`: finding its executable, running it with its log streamed to a
file (and the terminal), and the error lines when it fails. Shared by every backend's build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from hls4ml.backends.base import VendorBuildError, VendorToolNotFound

# The tools' own error lines, compiler diagnostics (`file:line:col: error: ...`, `g++: error: ...`) and
# CMake's errors.
ERROR_LINE = re.compile(r'\s*(#\s*)?(ERROR|Error|error)[:\s\[]|.*\berror: |CMake Error')


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


def run_tool(command: list[str], project: Path, log_name: str, echo: bool = True) -> Path:
    """Run `command` in the project folder, writing its output to `log_name` there (and to stdout when
    `echo`); raise VendorBuildError with the tool's error lines when it fails. Returns the log's path."""
    log_path = project / log_name
    with open(log_path, 'w') as log:
        process = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        for line in process.stdout:
            log.write(line)
            if echo:
                print(line, end='')
        code = process.wait()
    if code != 0:
        raise VendorBuildError(error_summary(log_path, command[0], code))
    return log_path


def error_summary(log_path: Path, tool: str, code: int) -> str:
    """The tool's error lines (else the last lines of its log), at most 25."""
    lines = log_path.read_text(errors='replace').splitlines()
    errors = [line for line in lines if ERROR_LINE.match(line)] or lines[-15:]
    return f'{tool} failed (exit code {code}); from {log_path}:\n' + '\n'.join(errors[:25])
