"""Files published into the compile cache: whole or not at all, under a name readers may already be looking for.

Every cache entry (a library, a cached object, their checksums and index entries) is staged in its final
folder and renamed into place, so a reader in another process sees the old file or the new one, never a part.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex), read in blocks."""
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for block in iter(lambda: handle.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def copy_into(source: Path, target: Path) -> None:
    """Copy `source` to `target`, atomically."""
    descriptor, staged = tempfile.mkstemp(dir=target.parent, prefix='.', suffix='.tmp')
    os.close(descriptor)
    try:
        shutil.copyfile(source, staged)
        os.replace(staged, target)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path`, atomically."""
    descriptor, staged = tempfile.mkstemp(dir=path.parent, prefix='.', suffix='.tmp')
    try:
        with os.fdopen(descriptor, 'w') as handle:
            handle.write(text)
        os.replace(staged, path)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise
