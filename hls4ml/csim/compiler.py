"""g++ -> shared library, cached by the content hash of exactly the bytes that are compiled.

The sources come from memory (`SourceTree`: the writer's rendered files), never from the project
folder: on a cache miss they are written into a private folder of their own and compiled there, so
nothing another writer puts into `output_dir` meanwhile can end up under this model's key.

A cache entry is a library named by its own SHA-256 (`lib/`) and a small index file per source key
(`index/`) naming it. Both are published atomically (temporary name, then rename), the library
first, and every load checks the library's size and checksum against its index entry; a damaged or
missing entry is rebuilt with a warning. One lock file per key keeps two processes (or threads)
from compiling the same library at once: the second waits and then finds it cached. A hit marks the
library used and a store may prune the least recently used ones (prune.py: HLS4ML_CACHE_MAX_MB).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from hls4ml.csim import precompiled, prune, publish, units
from hls4ml.csim.cache import cache_root, locked
from hls4ml.csim.publish import file_digest
from hls4ml.csim.target import target_flags, target_key
from hls4ml.csim.toolchain import find_compiler, linker_flags

CXX_FLAGS = (
    '-std=c++17',
    '-O2',
    '-fPIC',
    '-shared',
    '-fvisibility=hidden',
    '-fno-gnu-unique',
    '-Wall',
    '-Wextra',
    '-Wno-unknown-pragmas',  # the firmware's `#pragma HLS ...` lines are for the HLS tool
    '-DHLS4ML_CSIM_FAST',  # integer multiply-accumulate on raw values where exact (nnet_csim_fast.h)
    '-DHLS4ML_CSIM_NO_TEXT',  # no <string>/<deque> in the fixed and stream headers: parsing only (core.h)
)
DEFAULT_TIMEOUT = 900.0  # seconds; HLS4ML_COMPILE_TIMEOUT overrides


class CompilationError(RuntimeError):
    """g++ failed, timed out or is missing; the message says which and what to do."""


class CacheWarning(UserWarning):
    """A damaged compile-cache entry was found (and rebuilt), or a cached library was used without g++."""


@dataclass(frozen=True)
class CompileUnit:
    """One translation unit of a split simulation build (hls4ml/writer/csim_units.py, hls4ml/csim/units.py).

    `depends` are the tree's files it can read besides the static libraries (`SourceTree.library_dirs`):
    its own source and the weights it embeds. Its cached object is keyed by exactly those bytes.
    """

    source: str
    depends: tuple[str, ...]
    layers: tuple[str, ...]  # the layers it computes (none: the bridge and the top function)


@dataclass(frozen=True)
class SourceTree:
    """Everything one C-simulation library is compiled from.

    `files` maps a relative path to its bytes; `translation_unit` is the one source compiled (it
    includes the rest by relative path); `include_dirs` are folders of the tree put on the include
    path; `external_includes` are folders outside it (a vendor install), which count by their path.
    """

    files: dict[str, bytes] = field(repr=False)
    translation_unit: str
    include_dirs: tuple[str, ...] = ()
    external_includes: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    prelude: str = ''
    library_dirs: tuple[str, ...] = ()
    units: tuple[CompileUnit, ...] = ()  # a split build (the bridge last); none: one translation unit

    def digest(self, compiler_line: str) -> str:
        """The cache key: the compiler, the flags, the target CPU (hls4ml/csim/target.py), the defines, include
        folders and every file's path and bytes."""
        digest = hashlib.sha256()
        header = [compiler_line, *CXX_FLAGS, target_key(), *self.defines, self.translation_unit, *self.include_dirs]
        header += [str(folder) for folder in self.external_includes]
        header += [' '.join((unit.source, *unit.depends)) for unit in self.units]
        digest.update(json.dumps(header).encode())
        for path in sorted(self.files):
            content = self.files[path]
            digest.update(f'\0{path}\0{len(content)}\0'.encode())
            digest.update(content)
        return digest.hexdigest()[:32]

    def materialise(self, root: Path) -> None:
        for relative, content in self.files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def cache_dir() -> Path:
    path = cache_root() / 'csim'
    for sub in ('lib', 'index', 'locks', 'build', 'pch'):
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


def compiler() -> tuple[str, str]:
    """The C++ compiler (env CXX, else g++) and its version line."""
    name = os.environ.get('CXX', 'g++')
    found = find_compiler(name)
    if found is None:
        raise CompilationError(f"C++ compiler '{name}' not found: install g++ (apt-get install g++) or set CXX")
    return found


def compile_library(sources: SourceTree, name: str) -> tuple[Path, bool]:
    """The shared library built from `sources`: (path, whether it came from the cache)."""
    try:
        cxx, version = compiler()
    except CompilationError as missing:
        return _without_compiler(sources, name, missing), True
    cache = cache_dir()
    entry = cache / 'index' / f'{name}-{sources.digest(version)}.json'
    with locked(cache / 'locks' / f'{entry.stem}.lock'):
        library = _verified(entry)
        if library is not None:
            prune.touch(library)  # under the lock: pruning takes it before it removes an entry
            return library, True
        library = _build(sources, cxx, version, cache)
        _publish_entry(entry, library)
    prune.stored(cache, library.stat().st_size)
    return library, False


def _without_compiler(sources: SourceTree, name: str, missing: CompilationError) -> Path:
    """With no compiler, a library cached from the same sources by any compiler still serves."""
    for entry in sorted((cache_dir() / 'index').glob(f'{name}-*.json')):
        recorded = _read_entry(entry) or {}
        compiled_by = str(recorded.get('compiler', ''))
        if entry.stem != f'{name}-{sources.digest(compiled_by)}':
            continue
        library = _verified(entry)
        if library is not None:
            prune.touch(library)
            message = (
                f"C++ compiler '{os.environ.get('CXX', 'g++')}' not found; using the C-simulation library "
                f'that {compiled_by!r} compiled from the same sources'
            )
            warnings.warn(message, CacheWarning, stacklevel=4)
            return library
    raise missing


def _read_entry(entry: Path) -> dict | None:
    try:
        recorded = json.loads(entry.read_text())
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, dict) else None


def _verified(entry: Path) -> Path | None:
    """The library an index entry names, if it is intact; None (with a warning if damaged) otherwise."""
    if not entry.exists():
        return None
    recorded = _read_entry(entry)
    problem: str | None = 'its index entry is unreadable'
    if recorded is not None:
        library = entry.parents[1] / 'lib' / str(recorded.get('library', ''))
        problem = _damage(library, recorded)
        if problem is None:
            return library
    warnings.warn(f'compile cache entry {entry.name}: {problem}; rebuilding it', CacheWarning, stacklevel=4)
    return None


def _damage(library: Path, recorded: dict) -> str | None:
    """What is wrong with a cached library (None: nothing)."""
    if not library.is_file() or library.parent.name != 'lib':
        return f'the library {library.name} is missing'
    if library.stat().st_size != recorded.get('size'):
        return f'the library {library.name} has {library.stat().st_size} bytes, not {recorded.get("size")}'
    if file_digest(library) != recorded.get('sha256'):
        return f'the library {library.name} does not match its checksum'
    return None


def _build(sources: SourceTree, cxx: str, version: str, cache: Path) -> Path:
    """Compile in a private folder; the library is published under its own checksum."""
    with tempfile.TemporaryDirectory(dir=cache / 'build') as work:
        root = Path(work)
        sources.materialise(root)
        output = root / 'library.so'
        base = _base_command(sources, cxx)
        header_flags = _precompiled_header(sources, cxx, version, cache)
        if sources.units:
            setting = units.Setting(cxx, version, CXX_FLAGS, _run_compiler, CompilationError, cache, linker_flags())
            flags = _tree_flags(sources)
            try:
                units.build_split(sources, root, [*flags, *header_flags], setting)
            except CompilationError:
                if not header_flags:
                    raise
                units.build_split(sources, root, flags, setting)  # as below: the plain compile decides
            return _store(output, cache / 'lib')
        try:
            _run_compiler([*base, *header_flags, *linker_flags(), sources.translation_unit, '-o', output.name], root)
        except CompilationError:
            if not header_flags and not linker_flags():
                raise
            # the header was pruned meanwhile, or does not suit, or gold failed: the plain compile decides
            _run_compiler([*base, sources.translation_unit, '-o', output.name], root)
        return _store(output, cache / 'lib')


def _tree_flags(sources: SourceTree) -> list[str]:
    """The target CPU's flags, the sources' defines and include folders (relative: g++ runs in the tree)."""
    includes = [f'-I{folder}' for folder in (*sources.include_dirs, *sources.external_includes)]
    return [*target_flags(), *sources.defines, *includes]


def _base_command(sources: SourceTree, cxx: str) -> list[str]:
    return [cxx, *CXX_FLAGS, *_tree_flags(sources)]


def _header_build(sources: SourceTree, cxx: str, version: str) -> tuple[str, list[str]]:
    """The key of the sources' precompiled header and the command that builds it, for a compile (which looks
    it up) and for the install step (which builds it) alike."""
    key = precompiled.header_key(sources, version, (*CXX_FLAGS, *target_flags()))
    return key, [flag for flag in _base_command(sources, cxx) if flag != '-shared']


def _precompiled_header(sources: SourceTree, cxx: str, version: str, cache: Path) -> list[str]:
    """The flags that use the sources' precompiled header when it is built; else none, and its build
    started in the background for the next compile (hls4ml/csim/precompiled.py)."""
    precompiled.reap()
    if not precompiled.enabled(sources, version):
        return []
    key, command = _header_build(sources, cxx, version)
    folder = precompiled.lookup(sources, key, cache)
    if folder is not None:
        return precompiled.ready_flags(sources, folder)
    precompiled.start(sources, key, cache, command)
    return []


def precompile_header(sources: SourceTree) -> Path | None:
    """Build the precompiled header of `sources` now, beside the package where it is writable (an install
    step: hls4ml/writer's `precompile_headers`); the folder it is in, or None when it is not used here."""
    cxx, version = compiler()
    if not precompiled.enabled(sources, version):
        return None
    key, command = _header_build(sources, cxx, version)
    return precompiled.build_now(sources, key, cache_dir(), command)


def _store(output: Path, folder: Path) -> Path:
    """Publish a library under its checksum. A damaged file of that name is not overwritten but left
    for a new name: this process may have it mapped, and the dynamic loader would hand back that
    mapping for the same path."""
    checksum = file_digest(output)
    library = folder / f'{checksum[:40]}.so'
    if library.is_file() and file_digest(library) == checksum:
        return library
    if library.exists():
        library.unlink(missing_ok=True)  # a mapping of the damaged file keeps its inode alive
        library = folder / f'{checksum[:40]}-{os.urandom(4).hex()}.so'
    publish.copy_into(output, library)
    return library


def _publish_entry(entry: Path, library: Path) -> None:
    recorded = {
        'library': library.name,
        'size': library.stat().st_size,
        'sha256': file_digest(library),
        'compiler': compiler()[1],
    }
    publish.write_text(entry, json.dumps(recorded))


def _run_compiler(command: list[str], cwd: Path) -> None:
    timeout = float(os.environ.get('HLS4ML_COMPILE_TIMEOUT') or DEFAULT_TIMEOUT)
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise CompilationError(
            f'g++ did not finish the C-simulation library within {timeout:g} s; set HLS4ML_COMPILE_TIMEOUT '
            'to allow longer, or make the model smaller'
        ) from expired
    if result.returncode < 0:
        name = signal.Signals(-result.returncode).name
        raise CompilationError(
            f'g++ was killed by {name} while compiling the C-simulation library'
            f'{" (out of memory?)" if name == "SIGKILL" else ""}; {_summarise(result.stderr, command)}'
        )
    if result.returncode != 0:
        raise CompilationError(f'g++ failed to compile the C-simulation library:\n{_summarise(result.stderr, command)}')


def _summarise(stderr: str, command: list[str]) -> str:
    lines = stderr.splitlines()
    errors = [line for line in lines if 'error' in line] or lines or ['(no output)']
    shown = '\n'.join(errors[:20])
    return f'{shown}\n(command: {" ".join(command)})'
