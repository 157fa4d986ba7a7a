"""Where hls4ml keeps what it builds between runs, and the lock that lets one builder at a time fill
an entry: the C-simulation libraries (`compiler.py`), the Verilated RTL (`rtl.py`), the writer's
compiled templates and the exploration's results all live under one root."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_root() -> Path:
    """`$HLS4ML_CACHE_DIR`, else `~/.cache/hls4ml` (not created here: each user makes its own folder)."""
    return Path(os.environ.get('HLS4ML_CACHE_DIR') or Path.home() / '.cache' / 'hls4ml')


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (created), held for the `with` block: other processes and threads
    asking for the same path wait."""
    with open(path, 'a') as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def try_locked(path: Path) -> Iterator[bool]:
    """The lock of `locked(path)` if it is free now: yields whether it was taken (never waits)."""
    with open(path, 'a') as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
