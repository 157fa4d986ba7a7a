"""A precompiled header of the kernel and fixed-point libraries, shared by every model of a dialect.

Parsing those headers took a third of g++'s time on a small model, and every compile unit of a split
build (hls4ml/writer/csim_units.py) parses them again. The writer puts a prelude into the source tree
(`SourceTree.prelude`: every kernel header under the simulation's macros; it names no model); this module
compiles it into a folder named by its key: the compiler, every flag, the target CPU, the defines, the
include folders and the bytes of the prelude and of every file under `SourceTree.library_dirs` (all the
prelude can include; system headers come with the compiler's version line). Headers are found in the
package (`INSTALLED`, filled by `build_now` at install time, as Python's __pycache__ is) or in
`<cache>/pch`. A compile whose header is ready passes it with `-include`; one that finds none compiles as
before and starts the header's build in the background, at the lowest priority (an idle core builds it),
for the next model. The next compile that finds it done publishes it, or the process's exit, which waits
for it: no g++ outlives the process. A header that fails to build is marked and not tried again; the
library is then compiled the plain way, which computes the same bits: a precompiled header only saves
parsing. `HLS4ML_CSIM_PCH=0` turns it off; vendor headers (an include folder outside the tree) never use
it, as the key cannot see their bytes.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hls4ml.csim.target import target_key

PCH_ENV = 'HLS4ML_CSIM_PCH'
FAILED_MARK = 'failed'
KEPT = 16  # precompiled headers kept in a folder (the most recently used)
INSTALLED = Path(__file__).resolve().parents[1] / 'templates' / '__pycache__' / 'csim-pch'  # beside the headers
IN_FLIGHT = 1  # background builds per process: a batch of models with different kernels must not pile up compilers


class SourceTree(Protocol):
    """What this module reads of hls4ml.csim.compiler.SourceTree (which imports this module)."""

    @property
    def files(self) -> dict[str, bytes]: ...
    @property
    def include_dirs(self) -> tuple[str, ...]: ...
    @property
    def external_includes(self) -> tuple[Path, ...]: ...
    @property
    def defines(self) -> tuple[str, ...]: ...
    @property
    def prelude(self) -> str: ...
    @property
    def library_dirs(self) -> tuple[str, ...]: ...


_PENDING: list[PendingHeader] = []
_PENDING_LOCK = threading.Lock()


@dataclass
class PendingHeader:
    """A precompiled header being built in the background; `finish()` waits and publishes it."""

    process: subprocess.Popen
    work: tempfile.TemporaryDirectory
    output: Path
    target: Path
    lock: int
    owner: int = field(default_factory=os.getpid)  # a forked child neither waits for it nor publishes it

    def finish(self, timeout: float) -> None:
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        try:
            _publish(self.target, self.output if self.process.returncode == 0 else None)
        except OSError:
            pass  # the cache folder went away meanwhile (a test's temporary cache): nothing to publish into
        finally:
            self.work.cleanup()
            os.close(self.lock)


def reap(wait: bool = False) -> None:
    """Publish the background builds that are done (all of them, waiting, if `wait`)."""
    with _PENDING_LOCK:
        mine = [pending for pending in _PENDING if pending.owner == os.getpid()]
        done = [pending for pending in mine if wait or pending.process.poll() is not None]
        for pending in done:
            _PENDING.remove(pending)
    for pending in done:
        pending.finish(timeout=600.0)


atexit.register(reap, wait=True)


def enabled(sources: SourceTree, compiler_line: str) -> bool:
    """Whether to precompile: a prelude, no vendor headers, GCC (clang refuses a .gch it cannot use
    instead of falling back to the text), and not turned off."""
    wanted = os.environ.get(PCH_ENV, '1') != '0' and 'clang' not in compiler_line.lower()
    return wanted and bool(sources.prelude) and not sources.external_includes


def header_key(sources: SourceTree, compiler_line: str, flags: tuple[str, ...]) -> str:
    """Everything the precompiled header depends on, hashed."""
    digest = hashlib.sha256()
    header = [compiler_line, *flags, target_key(), *sources.defines, sources.prelude, *sources.include_dirs]
    digest.update(json.dumps(header).encode())
    for path in sorted(_header_inputs(sources)):
        digest.update(f'\0{path}\0{len(sources.files[path])}\0'.encode())
        digest.update(sources.files[path])
    return digest.hexdigest()[:32]


def _header_inputs(sources: SourceTree) -> list[str]:
    folders = tuple(f'{folder.rstrip("/")}/' for folder in sources.library_dirs)
    return [path for path in sources.files if path == sources.prelude or path.startswith(folders)]


def ready_flags(sources: SourceTree, folder: Path) -> list[str]:
    """The g++ flags that use the precompiled header in `folder` (its prelude found by `-include`, the
    prelude's own includes by `-iquote` of its folder in the tree)."""
    prelude = Path(sources.prelude)
    return ['-iquote', str(prelude.parent), '-include', str(folder / prelude.name)]


def lookup(sources: SourceTree, key: str, cache: Path) -> Path | None:
    """The folder of the built header of `key` (installed, else in the cache), or None when it is not (or
    could not be) built."""
    for folder in (INSTALLED / key, cache / 'pch' / key):
        if (folder / f'{Path(sources.prelude).name}.gch').is_file():
            with contextlib.suppress(OSError):  # a read-only package keeps its headers all the same
                os.utime(folder)  # recently used: pruned last
            return folder
    return None


def start(sources: SourceTree, key: str, cache: Path, command: list[str]) -> None:
    """Start building the header of `key` in the background (not if it failed before, or another
    build of it runs, or this process already has one running)."""
    target = cache / 'pch' / key
    reap()
    with _PENDING_LOCK:
        running = sum(pending.owner == os.getpid() for pending in _PENDING)
    if target.exists() or (INSTALLED / key).exists() or running >= IN_FLIGHT:
        return
    lock = os.open(cache / 'locks' / f'pch-{key}.lock', os.O_CREAT | os.O_RDWR)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return
    work = tempfile.TemporaryDirectory(dir=cache / 'build', ignore_cleanup_errors=True)
    output, command = _staged(sources, Path(work.name), command)
    if shutil.which('nice'):  # the lowest priority: it must not slow the compiles waited for
        command = ['nice', '-n', '19', *command]
    process = subprocess.Popen(command, cwd=work.name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with _PENDING_LOCK:
        _PENDING.append(PendingHeader(process, work, output, target, lock))


def build_now(sources: SourceTree, key: str, cache: Path, command: list[str]) -> Path:
    """Build the header of `key` now (an install step) into the package's folder, or the cache's where the
    package is not writable; returns the folder it is in (a failed build leaves its mark there)."""
    found = lookup(sources, key, cache)
    if found is not None:
        return found
    target = INSTALLED / key
    try:
        INSTALLED.mkdir(parents=True, exist_ok=True)
        writable = os.access(INSTALLED, os.W_OK | os.X_OK)
    except OSError:
        writable = False
    if not writable:
        target = cache / 'pch' / key
    with tempfile.TemporaryDirectory(dir=cache / 'build', ignore_cleanup_errors=True) as work:
        output, command = _staged(sources, Path(work), command)
        done = subprocess.run(command, cwd=work, capture_output=True, check=False)
        _publish(target, output if done.returncode == 0 else None)
    return target


def _staged(sources: SourceTree, root: Path, command: list[str]) -> tuple[Path, list[str]]:
    """The prelude and everything it can include written under `root`; (the header's output path, the
    command that builds it)."""
    for path in _header_inputs(sources):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(sources.files[path])
    output = root / f'{sources.prelude}.gch'
    prelude = Path(sources.prelude)
    return output, [*command, '-iquote', str(prelude.parent), '-x', 'c++-header', sources.prelude, '-o', str(output)]


def _publish(target: Path, output: Path | None) -> None:
    """Publish the built header (or the mark that it failed) as the folder `target`, atomically."""
    if target.exists():
        return
    staged = Path(tempfile.mkdtemp(dir=target.parent, prefix=f'.{target.name}.'))
    staged.chmod(0o755)
    if output is None:
        (staged / FAILED_MARK).write_text('g++ could not precompile this prelude; libraries compile without it\n')
    else:
        shutil.copyfile(output.with_suffix(''), staged / output.with_suffix('').name)
        os.replace(output, staged / output.name)
    try:
        os.rename(staged, target)
    except OSError:  # published meanwhile by another process
        shutil.rmtree(staged, ignore_errors=True)
    _prune(target.parent)


def _prune(folder: Path) -> None:
    """Keep the KEPT most recently used headers (each is some 20 MB); a compile that loses its header
    to this meanwhile compiles again without it (hls4ml/csim/compiler.py)."""
    built = sorted((path for path in folder.iterdir() if not path.name.startswith('.')), key=_used, reverse=True)
    for stale in built[KEPT:]:
        shutil.rmtree(stale, ignore_errors=True)


def _used(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
