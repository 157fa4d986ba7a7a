"""Running the open tools of the Verilog backend's build(): Yosys (`build.py`) and the testbench compiled
with Verilator (`testbench.py`). The Verilator binding of compile()/predict() is hls4ml/csim/rtl.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

TIMEOUT = 1800.0  # seconds per tool run; HLS4ML_COMPILE_TIMEOUT overrides


class RTLToolError(RuntimeError):
    """Verilator, Yosys or g++ is missing or failed; the message names the tool and what to do."""


def find_tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RTLToolError(f"'{name}' was not found on PATH: install it (Debian/Ubuntu: apt-get install {package})")
    return path


def run_tool(command: list[str], cwd: Path, what: str) -> str:
    timeout = float(os.environ.get('HLS4ML_COMPILE_TIMEOUT') or TIMEOUT)
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise RTLToolError(f'{what} did not finish within {timeout:g} s (HLS4ML_COMPILE_TIMEOUT)') from expired
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).splitlines()
        errors = [line for line in lines if 'rror' in line] or lines[-20:]
        raise RTLToolError(f'{what} failed:\n' + '\n'.join(errors[:20]) + f'\n(command: {" ".join(command)})')
    return result.stdout
