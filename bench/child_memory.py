"""The peak memory of the compilers a block of code starts, sampled from /proc (Linux).

`resource.getrusage(RUSAGE_CHILDREN)` cannot tell it: Python starts a child with vfork, and at exec the
kernel records the parent's own high-water mark as the child's, so every g++ looks as large as the Python
process that started it. Here a thread walks this process's descendants (`/proc/<pid>/task/<tid>/children`)
every few milliseconds and keeps the largest `VmHWM` (a process's own peak resident set) of any descendant
that is not Python itself: cc1plus, as, ld, make, sh. A process that lives less than one period can be missed;
compilers of these models live tenths of seconds or more.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType

PERIOD_S = 0.05  # polling every 5 ms took ~0.08 s of the 2 cores from a 0.9 s compile; g++ runs last >= 0.15 s


class ChildPeakMemory:
    """`with ChildPeakMemory() as peak: ...` then `peak.megabytes` (0.0 where /proc has no children files)."""

    def __init__(self) -> None:
        self.megabytes = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> ChildPeakMemory:
        self._thread.start()
        return self

    def __exit__(self, kind: type | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(PERIOD_S):
            for pid in _descendants(os.getpid()):
                self.megabytes = max(self.megabytes, _peak_kilobytes(pid) / 1024)


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        for children in Path(f'/proc/{parent}/task').glob('*/children'):
            try:
                pending += [int(child) for child in children.read_text().split()]
            except (OSError, ValueError):
                continue  # the task ended meanwhile
        if parent != pid:
            found.append(parent)
    return found


def _peak_kilobytes(pid: int) -> float:
    """VmHWM of a process that is not a Python interpreter (whose pages are the framework's, not a compiler's)."""
    try:
        status = Path(f'/proc/{pid}/status').read_text()
    except OSError:
        return 0.0
    fields = dict(line.split(':', 1) for line in status.splitlines() if ':' in line)
    if fields.get('Name', '').strip().startswith('python'):
        return 0.0
    return float(fields.get('VmHWM', '0 kB').split()[0])
