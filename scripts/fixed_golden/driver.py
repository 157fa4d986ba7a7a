"""Render the C++ driver of one golden file, compile it against the vendor headers, feed it the rows.

Compiled drivers are kept in a cache keyed by the source, the headers and the compiler, so running
the generator twice (the reproducibility check) compiles nothing the second time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import jinja2

FLAGS = ('-std=c++14', '-O0', '-w')  # -O0: these drivers are large and run for a second
HERE = Path(__file__).resolve().parent


def render(family: str, entries: list[str]) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE), undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return environment.get_template('driver.cpp.j2').render(family=family, entries=entries)


def _compiler() -> str:
    compiler = shutil.which(os.environ.get('CXX', 'g++'))
    if compiler is None:
        raise SystemExit('no C++ compiler: install g++ (or set CXX)')
    return compiler


def _digest(source: str, include: Path, compiler: str) -> str:
    digest = hashlib.sha256(source.encode())
    digest.update(subprocess.run([compiler, '--version'], capture_output=True, text=True).stdout.encode())
    for header in sorted(include.rglob('*.h')):
        digest.update(str(header.relative_to(include)).encode() + header.read_bytes())
    return digest.hexdigest()[:24]


def build(source: str, include: Path, cache: Path, name: str) -> Path:
    """The compiled driver (from the cache when unchanged); exits with the compiler output on error."""
    compiler = _compiler()
    executable = cache / f'{name}-{_digest(source, include, compiler)}'
    if executable.exists():
        return executable
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        source_path = Path(work) / f'{name}.cpp'
        source_path.write_text(source)
        command = [compiler, *FLAGS, f'-I{include}', str(source_path), '-o', str(Path(work) / name)]
        process = subprocess.run(command, capture_output=True, text=True)
        if process.returncode != 0:
            raise SystemExit(f'the {name} driver does not compile:\n{process.stderr[-6000:]}')
        shutil.copy2(Path(work) / name, executable)
    return executable


def run(executable: Path, lines: list[str]) -> list[str]:
    """The driver's output line for each input line."""
    process = subprocess.run([str(executable)], input='\n'.join(lines) + '\n', capture_output=True, text=True)
    if process.returncode != 0:
        raise SystemExit(f'{executable.name} failed ({process.returncode}): {process.stderr[-2000:]}')
    outputs = process.stdout.split('\n')[: len(lines)]
    if len(outputs) != len(lines):
        raise SystemExit(f'{executable.name} printed {len(outputs)} lines for {len(lines)} rows')
    return outputs
