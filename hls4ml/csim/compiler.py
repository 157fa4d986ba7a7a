"""g++ -> shared library, cached by the content hash of everything that goes into it.

The key covers the translation unit, every header it can include (ours are hashed by content),
the flags and the compiler version, so an unchanged model recompiles in milliseconds and any
change, in the model or in our headers, gives a new library. Libraries are written atomically
(temporary name, then rename), so two processes compiling the same model do not collide.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

CXX_FLAGS = (
    '-std=c++17',
    '-O2',
    '-fPIC',
    '-shared',
    '-fvisibility=hidden',
    '-fno-gnu-unique',
    '-Wall',
    '-Wextra',
)


class CompilationError(RuntimeError):
    """g++ failed; the message carries its error lines."""


def cache_dir() -> Path:
    root = os.environ.get('HLS4ML_CACHE_DIR') or Path.home() / '.cache' / 'hls4ml'
    path = Path(root) / 'csim'
    path.mkdir(parents=True, exist_ok=True)
    return path


@lru_cache(maxsize=1)
def compiler() -> tuple[str, str]:
    """The C++ compiler (env CXX, else g++) and its version line."""
    name = os.environ.get('CXX', 'g++')
    if shutil.which(name) is None:
        raise CompilationError(f"C++ compiler '{name}' not found: install g++ (apt-get install g++) or set CXX")
    version = subprocess.run([name, '--version'], capture_output=True, text=True, check=False).stdout.splitlines()
    return name, version[0] if version else ''


def _hash_tree(digest: hashlib._Hash, folder: Path) -> None:
    for path in sorted(folder.rglob('*')):
        if path.is_file() and path.suffix in ('.h', '.hpp', '.cpp', '.inc'):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())


def library_key(
    source: Path, include_dirs: tuple[Path, ...], hashed_dirs: tuple[Path, ...], defines: tuple[str, ...]
) -> str:
    """Hash of the compiler, the flags, the source and the contents of `hashed_dirs` (by relative path,
    so the same project written elsewhere hits the cache). Include folders outside them (a vendor
    install) count by their path."""
    digest = hashlib.sha256()
    digest.update(' '.join((*compiler(), *CXX_FLAGS, *defines)).encode())
    digest.update(source.read_bytes())
    for folder in hashed_dirs:
        _hash_tree(digest, folder)
    for folder in include_dirs:
        if not any(folder.is_relative_to(hashed) for hashed in hashed_dirs):
            digest.update(str(folder).encode())
    return digest.hexdigest()[:20]


def compile_library(
    source: Path,
    include_dirs: tuple[Path, ...],
    name: str,
    defines: tuple[str, ...] = (),
    hashed_dirs: tuple[Path, ...] = (),
) -> tuple[Path, bool]:
    """The shared library built from `source`: (path, whether it came from the cache).

    `hashed_dirs` are folders the source includes by relative path (not on the include path).
    """
    key = library_key(source, include_dirs, hashed_dirs, defines)
    target = cache_dir() / f'{name}-{key}.so'
    if target.exists():
        return target, True
    command = [compiler()[0], *CXX_FLAGS, *defines, *(f'-I{folder}' for folder in include_dirs), str(source)]
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix='.so.tmp', delete=False) as handle:
        temporary = Path(handle.name)
    try:
        result = subprocess.run([*command, '-o', str(temporary)], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise CompilationError(_summarise_errors(result.stderr, command))
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target, False


def _summarise_errors(stderr: str, command: list[str]) -> str:
    lines = stderr.splitlines()
    errors = [line for line in lines if 'error' in line] or lines
    shown = '\n'.join(errors[:20])
    return f'g++ failed to compile the C-simulation library:\n{shown}\n(command: {" ".join(command)})'
