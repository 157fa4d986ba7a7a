"""A split C-simulation build: its translation units compiled in parallel, each object cached by the
hash of exactly what it compiles, then linked into the library.

The writer decides the split (hls4ml/writer/csim_units.py); compiler.py calls `build_split` on a
cache miss of the whole library, whose key still covers every byte of the tree, so the warm path is
unchanged. An object's key is the compiler's version line, the target CPU (target.py), the flags
(defines included), the include path, the unit's source path and the bytes of every file it can read: its
`depends` and all the static libraries (fixed-point, stream and kernel headers). g++ writes the
files each unit really read (-MMD); one outside that set would mean the key missed an input, so that
object is not cached (never a stale object later) and a warning says so. Objects are published
atomically (temporary name, then rename); a link that fails with cached objects is retried once
with every unit compiled afresh. A cached object about to be linked is marked used, and storing new
ones may prune the least recently used (prune.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from hls4ml.csim import prune, publish
from hls4ml.csim.publish import file_digest
from hls4ml.csim.target import target_key

OBJECT_FLAGS = ('-c', '-MMD')
LINK_FLAGS = ('-shared', '-Wl,-z,defs')  # an unresolved unit function is a link error, not a load-time one


class Unit(Protocol):  # compiler.CompileUnit (not imported: compiler.py imports this module)
    @property
    def source(self) -> str: ...
    @property
    def depends(self) -> tuple[str, ...]: ...
    @property
    def layers(self) -> tuple[str, ...]: ...


class Tree(Protocol):  # compiler.SourceTree
    @property
    def files(self) -> dict[str, bytes]: ...
    @property
    def library_dirs(self) -> tuple[str, ...]: ...
    @property
    def units(self) -> Sequence[Unit]: ...


RunCompiler = Callable[[list[str], Path], None]


class UnitCacheWarning(UserWarning):
    """A compile unit read a file its cache key does not cover (its object was not cached), or a cached
    object did not match its checksum (it was compiled again)."""


def build_split(tree: Tree, root: Path, flags: list[str], setting: Setting) -> None:
    """Compile the units of `tree` (materialised at `root`) and link `root/library.so`."""
    objects, fresh = _objects(tree, root, flags, setting, use_cache=True)
    try:
        _link(root, objects, setting)
    except setting.error:
        if all(fresh):
            raise
        objects, _ = _objects(tree, root, flags, setting, use_cache=False)  # a damaged cached object
        _link(root, objects, setting)


class Setting:
    """The compiler and how to run it, as compiler.py has them."""

    def __init__(
        self,
        cxx: str,
        version: str,
        cxx_flags: Sequence[str],
        run: RunCompiler,
        error: type[Exception],
        cache: Path,
        linker: Sequence[str] = (),
    ) -> None:
        self.cxx, self.version, self.cxx_flags, self.run, self.error = cxx, version, tuple(cxx_flags), run, error
        self.linker = tuple(linker)  # the faster linker's flags (toolchain.linker_flags); the default one if it fails
        self.objects = cache / 'obj'
        self.objects.mkdir(parents=True, exist_ok=True)

    @property
    def object_flags(self) -> list[str]:
        return [flag for flag in self.cxx_flags if flag != '-shared'] + list(OBJECT_FLAGS)


def _objects(
    tree: Tree, root: Path, flags: list[str], setting: Setting, use_cache: bool
) -> tuple[list[Path], list[bool]]:
    """Every unit's object (cached or compiled now, at most one compile per core at once) and whether
    each was compiled now."""
    libraries = _library_files(tree)
    keys = [_object_key(tree, unit, libraries, flags, setting) for unit in tree.units]
    cached = [setting.objects / f'{key}.o' for key in keys]
    missing = [index for index, path in enumerate(cached) if not (use_cache and _intact(path))]
    prune.touch(*(path for index, path in enumerate(cached) if index not in missing))  # to be linked: used
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        compiled = list(pool.map(lambda index: _compile(tree, tree.units[index], root, flags, setting), missing))
    objects = list(cached)
    for index, output in zip(missing, compiled, strict=True):
        objects[index] = _publish(
            output, cached[index], _read_files(output), set(tree.units[index].depends) | libraries
        )
    prune.stored(setting.objects.parent, sum(objects[index].stat().st_size for index in missing))
    return objects, [index in missing for index in range(len(keys))]


def _library_files(tree: Tree) -> set[str]:
    return {path for path in tree.files if any(path.startswith(f'{folder}/') for folder in tree.library_dirs)}


def _object_key(tree: Tree, unit: Unit, libraries: set[str], flags: list[str], setting: Setting) -> str:
    header = [setting.version, target_key(), *setting.object_flags, *flags, unit.source]  # -march=native: the CPU
    digest = hashlib.sha256(json.dumps(header).encode())
    for path in sorted(set(unit.depends) | libraries):
        content = tree.files[path]
        digest.update(f'\0{path}\0{len(content)}\0'.encode())
        digest.update(content)
    return digest.hexdigest()[:40]


def _compile(tree: Tree, unit: Unit, root: Path, flags: list[str], setting: Setting) -> Path:
    output = root / f'{Path(unit.source).stem}.o'
    command = [setting.cxx, *setting.object_flags, *flags, unit.source, '-o', output.name]
    try:
        setting.run(command, root)
    except setting.error as failure:
        what = f'the layers {", ".join(unit.layers)}' if unit.layers else 'the bridge and the top function'
        raise setting.error(f'compiling the C-simulation unit of {what} ({unit.source}): {failure}') from failure
    return output


def _read_files(output: Path) -> set[str] | None:
    """The files of the tree g++ read for `output` (its -MMD list, relative paths); None if unreadable."""
    try:
        text = output.with_suffix('.d').read_text().replace('\\\n', ' ')
    except OSError:
        return None
    names = text.split(':', 1)[1].split() if ':' in text else []
    return {os.path.normpath(name) for name in names if not os.path.isabs(name)}


def _publish(output: Path, target: Path, read: set[str] | None, covered: set[str]) -> Path:
    """The object under its key, unless the key does not cover what it read (then only this build uses it)."""
    if read is None or not read <= covered:
        outside = sorted(read - covered) if read is not None else ['(no dependency list)']
        message = f'C-simulation unit {output.stem} read {", ".join(outside[:5])} outside its cache key; not cached'
        warnings.warn(message, UnitCacheWarning, stacklevel=2)
        return output
    publish.write_text(_checksum_file(target), file_digest(output))  # first: an object is never there without one
    publish.copy_into(output, target)
    return target


def _intact(cached: Path) -> bool:
    """Whether a cached object is there and matches the checksum published with it; a damaged one is
    compiled again (with a warning), never linked."""
    if not cached.is_file():
        return False
    try:
        recorded = _checksum_file(cached).read_text()
    except OSError:
        return False  # published by an older layout: compiled again
    if recorded == file_digest(cached):
        return True
    warnings.warn(
        f'C-simulation object {cached.name} does not match its checksum; compiling it again',
        UnitCacheWarning,
        stacklevel=3,
    )
    return False


def _checksum_file(cached: Path) -> Path:
    return cached.with_suffix('.sha256')


def _link(root: Path, objects: list[Path], setting: Setting) -> None:
    command = [setting.cxx, *LINK_FLAGS, '-fPIC', *[str(path) for path in objects], '-o', 'library.so']
    if setting.linker:
        try:
            setting.run([*command[:1], *setting.linker, *command[1:]], root)
            return
        except setting.error:
            pass  # the default linker decides
    setting.run(command, root)
