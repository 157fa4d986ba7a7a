"""The C-simulation compile cache kept under a size bound: what was used longest ago goes first.

Each distinct model source adds a library (compiler.py: `lib/` with its entries in `index/`) and, in a split
build, objects (units.py: `obj/<key>.o` with `<key>.sha256`); a sweep over hundreds of precisions would fill
the disk. After a cache miss stored something, `stored()` checks the bound (HLS4ML_CACHE_MAX_MB, default
DEFAULT_MAX_MB) and, when the cache is over it, removes the least recently used entries until it fits.
Precompiled headers (`pch/`) are bounded apart (precompiled.py) and not counted here.

Using an entry marks it used (`touch`: its modification time). Nothing used in the last RECENT_SECONDS is
removed, whatever the bound: another process may have just verified an entry and be about to load or link
it. A library goes with the index entries naming it, the entries first and under their compile locks
(compile_library verifies and touches under the same lock), so the next compile of that model is a clean
miss, never a warning about a missing library; a process that has the library loaded keeps its inode. An
object goes before its checksum (units.py publishes the checksum first); an object removed between another
build's check and its link makes that link fail, and units.py then compiles every unit afresh.

Cheap on the normal path: a hit only touches. A store adds its bytes to a small ledger in the cache
(`size.json`, under a lock: every process and thread shares it); only when the ledger says the bound is
crossed, every SCAN_EVERY stores (to see what others removed or added) or when there is no ledger yet are the
sizes scanned (one stat per file of `lib/` and `obj/`); index entries are read only when something must go.
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from hls4ml.csim.cache import locked, try_locked

MAX_ENV = 'HLS4ML_CACHE_MAX_MB'
DEFAULT_MAX_MB = 2048  # libraries and objects; a library of the MLPs is 0.1-1 MB, of its CNN a few MB
RECENT_SECONDS = 600.0  # used this recently: never removed (another process may be about to load or link it)
SCAN_EVERY = 16  # stores between two scans, when the ledger does not say the bound is crossed
LEDGER = 'size.json'  # the cache's size at the last scan plus what was stored since, and how many stores


class CacheBoundWarning(UserWarning):
    """HLS4ML_CACHE_MAX_MB is not a size in megabytes; the default bound is kept."""


def max_bytes() -> int:
    """The bound on the libraries and objects of the cache, in bytes (HLS4ML_CACHE_MAX_MB, in MB)."""
    text = os.environ.get(MAX_ENV, '').strip()
    if not text:
        return DEFAULT_MAX_MB << 20
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = math.nan
    if not (math.isfinite(megabytes) and megabytes >= 0):
        message = (
            f'{MAX_ENV}={text!r} is not a size in megabytes (a number >= 0, e.g. 4096); '
            f'the compile cache is kept under the default {DEFAULT_MAX_MB} MB'
        )
        warnings.warn(message, CacheBoundWarning, stacklevel=3)
        return DEFAULT_MAX_MB << 20
    return int(megabytes * (1 << 20))


def touch(*paths: Path) -> None:
    """Mark cache files used now, so they are pruned last (a cache this user may not write stays as it is)."""
    for path in paths:
        try:
            os.utime(path)
        except OSError:
            pass


def stored(cache: Path, size: int) -> None:
    """After a cache miss stored `size` new bytes into `cache` (the csim folder): prune when the bound may be
    crossed (nothing stored: nothing to do)."""
    if size <= 0:
        return
    bound = max_bytes()
    with locked(cache / 'locks' / f'{LEDGER}.lock'):
        estimate, stores = _read_ledger(cache / LEDGER)
        if estimate is not None and estimate + size <= bound and stores + 1 < SCAN_EVERY:
            _write_ledger(cache / LEDGER, estimate + size, stores + 1)
            return
    remaining = prune(cache, bound)
    with locked(cache / 'locks' / f'{LEDGER}.lock'):
        _write_ledger(cache / LEDGER, remaining, 0)


def _read_ledger(path: Path) -> tuple[int | None, int]:
    """(the bytes of lib/ and obj/ at the last scan plus those stored since, or None if unknown; the stores
    since that scan)."""
    try:
        recorded = json.loads(path.read_text())
        return int(recorded['bytes']), int(recorded['stores'])
    except (OSError, ValueError, TypeError, KeyError):
        return None, 0  # none yet, or damaged: the next store scans


def _write_ledger(path: Path, estimate: int, stores: int) -> None:
    try:
        path.write_text(json.dumps({'bytes': estimate, 'stores': stores}))
    except OSError:
        pass  # a cache this user may not write: every store scans


@dataclass
class _Entry:
    """One removable cache entry: its files in the order they go, their bytes, its last use, and the index
    entries naming it (removed first, under their compile locks)."""

    files: tuple[Path, ...]
    size: int
    used: float
    index: list[Path] = field(default_factory=list)


def prune(cache: Path, bound: int) -> int:
    """Remove the least recently used libraries and objects of `cache` until they take at most `bound`
    bytes, none used in the last RECENT_SECONDS; returns the bytes left. When another process is pruning
    the same cache, this one leaves it to that one."""
    libraries, objects = _files(cache / 'lib'), _files(cache / 'obj')
    total = sum(status.st_size for status in (*libraries.values(), *objects.values()))
    if total <= bound:
        return total
    with try_locked(cache / 'locks' / 'prune.lock') as ours:
        if not ours:
            return total
        entries = _library_entries(cache, libraries) + _object_entries(cache / 'obj', objects)
        now = time.time()
        for entry in sorted(entries, key=lambda entry: entry.used):
            if total <= bound or now - entry.used < RECENT_SECONDS:
                break
            if _remove(cache, entry):
                total -= entry.size
    return total


def _files(folder: Path) -> dict[str, os.stat_result]:
    """The names of the published files of a cache folder (not the temporary `.name` ones being published)
    and their stat (names, not Path objects, which took half of a scan's time)."""
    found = {}
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                if not item.name.startswith('.'):
                    try:
                        found[item.name] = item.stat()
                    except OSError:
                        pass  # removed meanwhile
    except OSError:
        pass  # no such folder yet
    return found


def _library_entries(cache: Path, libraries: dict[str, os.stat_result]) -> list[_Entry]:
    """Each library with the index entries naming it; used last when it or one of them was."""
    folder = cache / 'lib'
    entries = {name: _Entry((folder / name,), status.st_size, status.st_mtime) for name, status in libraries.items()}
    for index in (cache / 'index').glob('*.json'):
        try:
            named = json.loads(index.read_text()).get('library')
            used = index.stat().st_mtime
        except (OSError, ValueError, AttributeError):
            continue  # unreadable or removed meanwhile: compile_library rebuilds it with a warning, as ever
        if named in entries:
            entries[named].index.append(index)
            entries[named].used = max(entries[named].used, used)
    return list(entries.values())


def _object_entries(folder: Path, objects: dict[str, os.stat_result]) -> list[_Entry]:
    """Each object with its checksum (the object first); a checksum left without its object goes alone."""
    entries = []
    for name, status in objects.items():
        stem, _, suffix = name.rpartition('.')
        if suffix == 'o':
            checksum = objects.get(f'{stem}.sha256')
            size = status.st_size + (checksum.st_size if checksum else 0)
            entries.append(_Entry((folder / name, folder / f'{stem}.sha256'), size, status.st_mtime))
        elif suffix == 'sha256' and f'{stem}.o' not in objects:
            entries.append(_Entry((folder / name,), status.st_size, status.st_mtime))
    return entries


def _remove(cache: Path, entry: _Entry) -> bool:
    """Remove an entry unless one of its index entries is being compiled or loaded now, or it was used since
    the scan; whether it was removed."""
    with ExitStack() as stack:
        for index in entry.index:
            if not stack.enter_context(try_locked(cache / 'locks' / f'{index.stem}.lock')):
                return False
        if _last_used(*entry.index, *entry.files) > time.time() - RECENT_SECONDS:
            return False
        try:
            for path in (*entry.index, *entry.files):
                path.unlink(missing_ok=True)
        except OSError:
            return False  # a cache this user may not write: what is left still holds together
    return True


def _last_used(*paths: Path) -> float:
    times = [0.0]
    for path in paths:
        try:
            times.append(path.stat().st_mtime)
        except OSError:
            pass
    return max(times)
