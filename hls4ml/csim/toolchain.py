"""The C++ compiler's version line, without running `g++ --version` in every process; the linker it links with.

The version line is part of every compile-cache key (compiler.py), and asking the driver for it cost
0.075 s of each fresh process's first compile. It is therefore remembered in the cache, keyed by the
driver's resolved path and its file identity (device, inode, size, modification time in ns): installing
another compiler, or changing the link `g++` resolves to, changes the key and the driver is asked again.

The simulation library is linked with GNU gold where it is installed: the default (BFD) linker spends
0.05-0.1 s loading libstdc++'s symbols for a library that calls into it (the io_stream FIFOs), gold
0.01 s. Both resolve the same symbols; the caller links again with the default linker if gold fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from hls4ml.csim import publish
from hls4ml.csim.cache import cache_root


@lru_cache(maxsize=4)
def find_compiler(name: str) -> tuple[str, str] | None:
    """(name, version line) of the compiler `name` on the PATH; None when there is none."""
    found = shutil.which(name)
    if found is None:
        return None
    driver = os.path.realpath(found)
    identity = _identity(driver)
    known = _remembered()
    if identity is not None and identity in known:
        return name, known[identity]
    result = subprocess.run([name, '--version'], capture_output=True, text=True, check=False, timeout=60)
    lines = result.stdout.splitlines()
    version = lines[0] if lines else name
    if identity is not None and result.returncode == 0:
        _remember(identity, version)
    return name, version


def _identity(driver: str) -> str | None:
    try:
        status = os.stat(driver)
    except OSError:
        return None
    return f'{driver}\0{status.st_dev}\0{status.st_ino}\0{status.st_size}\0{status.st_mtime_ns}'


def _versions_file() -> Path:
    return cache_root() / 'csim' / 'compilers.json'


def _remembered() -> dict[str, str]:
    try:
        known = json.loads(_versions_file().read_text())
    except (OSError, ValueError):
        return {}
    return {str(key): str(value) for key, value in known.items()} if isinstance(known, dict) else {}


def _remember(identity: str, version: str) -> None:
    """Add one compiler to the file, atomically (a reader sees the old file or the new one)."""
    path = _versions_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        known = {**_remembered(), identity: version}
        publish.write_text(path, json.dumps(known, indent=0, sort_keys=True))
    except OSError:
        pass  # an unwritable cache only means asking the driver again next time


@lru_cache(maxsize=1)
def linker_flags() -> tuple[str, ...]:
    """`-fuse-ld=gold` when gold is on the PATH (the compiler driver finds it there), else nothing."""
    return ('-fuse-ld=gold',) if shutil.which('ld.gold') else ()
