"""Shared helpers for the C-simulation tests: locating the fixed-point headers and compiling small C++
drivers with g++, with a cache of the resulting binaries.

A compiled binary is cached under ``$HLS4ML_CACHE_DIR/test-drivers`` (default
``~/.cache/hls4ml/test-drivers``), keyed by a hash of the driver source, every header under
``hls4ml/templates/fixed``, the compiler flags and the compiler version, so an unchanged driver is never
rebuilt and any header change rebuilds everything.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXED_HEADERS = REPO / 'hls4ml' / 'templates' / 'fixed'


def cache_dir() -> Path:
    base = os.environ.get('HLS4ML_CACHE_DIR')
    root = Path(base) / 'test-drivers' if base else Path.home() / '.cache' / 'hls4ml' / 'test-drivers'
    root.mkdir(parents=True, exist_ok=True)
    return root


def prune_cache(max_age_days: float = 30) -> None:
    """Removes drivers unused for a month, so that header edits do not grow the cache forever."""
    limit = time.time() - max_age_days * 86400
    for path in cache_dir().iterdir():
        try:
            if path.stat().st_mtime < limit:
                path.unlink()
        except OSError:
            pass  # removed concurrently by another worker


def headers_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(FIXED_HEADERS.rglob('*.h')):
        digest.update(str(path.relative_to(FIXED_HEADERS)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass
class BuildResult:
    executable: Path | None
    returncode: int
    output: str
    cached: bool


class CppBuilder:
    """Compiles one-file C++ programs against the fixed-point headers."""

    def __init__(self, compiler: str):
        self.compiler = compiler
        self.version = subprocess.run([compiler, '--version'], capture_output=True, text=True).stdout
        self.headers = headers_digest()

    def build(self, source: str, flags: list[str], name: str = 'driver') -> BuildResult:
        command_flags = ['-std=c++17', f'-I{FIXED_HEADERS}', *flags]
        key = hashlib.sha256('\0'.join([source, self.headers, self.version, *command_flags]).encode()).hexdigest()
        executable = cache_dir() / f'{name}-{key[:24]}'
        if executable.exists():
            os.utime(executable)  # keeps recently used drivers out of prune_cache()
            return BuildResult(executable, 0, '', True)
        prune_cache()
        with tempfile.TemporaryDirectory() as work:
            source_path = Path(work) / f'{name}.cpp'
            source_path.write_text(source)
            output_path = Path(work) / name
            process = subprocess.run(
                [self.compiler, *command_flags, str(source_path), '-o', str(output_path)],
                capture_output=True,
                text=True,
            )
            if process.returncode != 0:
                return BuildResult(None, process.returncode, process.stdout + process.stderr, False)
            # Atomic publish: parallel workers may build the same driver.
            staged = executable.with_suffix(f'.tmp{os.getpid()}')
            shutil.copy2(output_path, staged)
            os.replace(staged, executable)
        return BuildResult(executable, 0, process.stdout + process.stderr, False)

    def check_syntax(self, source: str, flags: list[str]) -> subprocess.CompletedProcess:
        """Compiles without linking or caching (for tests that expect a compile error)."""
        with tempfile.TemporaryDirectory() as work:
            source_path = Path(work) / 'probe.cpp'
            source_path.write_text(source)
            return subprocess.run(
                [
                    self.compiler,
                    '-std=c++17',
                    f'-I{FIXED_HEADERS}',
                    *flags,
                    '-fsyntax-only',
                    str(source_path),
                ],
                capture_output=True,
                text=True,
            )


@pytest.fixture(scope='session')
def cpp_builder() -> CppBuilder:
    compiler = shutil.which(os.environ.get('CXX', 'g++')) or shutil.which('g++')
    if compiler is None:
        pytest.skip('no C++ compiler (g++) available')
    return CppBuilder(compiler)
