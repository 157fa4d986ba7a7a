"""Writing a project folder safely: one writer at a time, whole files only, never through a link.

* A lock file (`.hls4ml.lock` in the folder, `flock`) makes writers wait for each other, across
  threads and processes, so two models written into one folder never interleave their files.
* Every file is written under a temporary name and renamed into place, so a reader sees the old
  file or the new one, never a torn one. Unchanged files are left alone (their timestamps too).
* Nothing is written through a symbolic link inside the folder (a link could point anywhere): every
  path is checked before the first byte is written, and a link is refused with its name.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = '.hls4ml.lock'
_held = threading.local()  # the folders this thread holds the lock of (the lock is re-entrant per thread)


@contextmanager
def project_lock(folder: Path) -> Iterator[None]:
    """Hold the folder's write lock (created with the folder if needed) for the body of the block.
    Re-entrant within a thread (build() holds it around its write)."""
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    held = _held.__dict__.setdefault('folders', set())
    if key in held:
        yield
        return
    lock = folder / LOCK_NAME
    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        raise ValueError(f'cannot lock the project folder: {lock} ({error.strerror}); is it a link?') from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        held.add(key)
        yield
    finally:
        held.discard(key)
        os.close(descriptor)  # closing releases the lock


def check_no_links(folder: Path, relative_paths: list[str]) -> None:
    """Refuse (ValueError, nothing written yet) when a path below `folder` passes through a link."""
    checked: set[Path] = set()
    for relative in relative_paths:
        path = folder
        for part in Path(relative).parts:
            path = path / part
            if path in checked:
                continue
            checked.add(path)
            if path.is_symlink():
                raise ValueError(
                    f'{path} is a symbolic link; hls4ml does not write through links inside output_dir '
                    '(they may point outside it): remove the link or choose another output_dir'
                )


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    """Write every file of `files` (relative path -> content) atomically; unchanged files stay untouched."""
    check_no_links(folder, list(files))
    for relative, content in files.items():
        _write_atomically(folder / relative, content)


def remove_stale(folder: Path, keep: set[str]) -> None:
    """Delete the regular files directly in `folder` whose names are not in `keep` (old weights)."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for path in folder.iterdir():
        if path.name not in keep and (path.is_symlink() or path.is_file()):
            path.unlink(missing_ok=True)


def _write_atomically(path: Path, content: bytes) -> None:
    try:
        if path.read_bytes() == content:
            return
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    # Staged under a name of this process and thread (cheaper than mkstemp's random names, as unique), created
    # exclusively and never through a link; one left by a crash under a reused process id is replaced.
    staged = path.with_name(f'.{path.name}.{os.getpid()}.{threading.get_ident()}.tmp')
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(staged, flags, 0o644)
    except FileExistsError:
        staged.unlink()
        descriptor = os.open(staged, flags, 0o644)
    try:
        os.fchmod(descriptor, 0o644)  # whatever the umask, as the files of a project always were
        with os.fdopen(descriptor, 'wb') as handle:
            handle.write(content)
        os.replace(staged, path)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
