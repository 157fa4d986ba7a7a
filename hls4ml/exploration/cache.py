"""The results cache: one small JSON file per evaluated point, named by the content hash of everything
its record depends on (the model, the point's configuration, the backend settings, the data, the
metric, and hls4ml's own code: a record computed by another version of the estimator or the
kernels is never taken for this one's). A re-run reads what it finds and computes only the rest,
so every strategy is resumable: stop a sweep at any time and start it again. The files are written
by the caller's process (the workers need no shared file system), each under a temporary name and
renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.csim.cache import cache_root


def default_cache_dir() -> Path:
    """`$HLS4ML_CACHE_DIR/explore`, else `~/.cache/hls4ml/explore` (beside the C-simulation cache)."""
    return cache_root() / 'explore'


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A content hash of hls4ml's Python, C++ and template files (about 3 MB: milliseconds)."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(package.rglob('*')):
        if path.suffix in ('.py', '.h', '.j2') and '__pycache__' not in path.parts:
            digest.update(f'\0{path.relative_to(package).as_posix()}\0'.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def data_digest(*arrays: Any) -> str:
    """A content hash of the evaluation data (shape, dtype and bytes of each array; None counts too)."""
    digest = hashlib.sha256()
    for array in arrays:
        if array is None:
            digest.update(b'\0none')
            continue
        values = np.ascontiguousarray(np.asarray(array))
        digest.update(f'\0{values.shape}\0{values.dtype}\0'.encode())
        digest.update(values.tobytes())
    return digest.hexdigest()[:32]


def job_key(*parts: Any) -> str:
    """The key of one evaluation: a hash of its parts as sorted JSON."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class ResultCache:
    """Records by key under `folder` (None: no cache, every point is computed)."""

    def __init__(self, folder: str | os.PathLike | None) -> None:
        self.folder = Path(folder) if folder is not None else None

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2] / f'{key}.json'

    def get(self, key: str) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        try:
            record = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None  # missing or damaged: computed again
        return record if isinstance(record, dict) else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store a record (floats round-trip exactly through JSON)."""
        if self.folder is None:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
        temporary.write_text(json.dumps(record, sort_keys=True))
        os.replace(temporary, path)
