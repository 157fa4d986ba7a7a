"""The compile cache's size bound (hls4ml/csim/prune.py) on real files, without a compiler: the least
recently used entries go first, a library with its index entries (entries first), an object with its
checksum; nothing used recently or being compiled goes; the bound is read from HLS4ML_CACHE_MAX_MB."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hls4ml.csim import prune
from hls4ml.csim.cache import locked

MB = 1 << 20
HOUR = 3600.0


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / 'csim'
    for sub in ('lib', 'index', 'obj', 'locks'):
        (folder / sub).mkdir(parents=True)
    return folder


def _age(seconds_ago: float, *paths: Path) -> None:
    when = time.time() - seconds_ago
    for path in paths:
        os.utime(path, (when, when))


def _library(cache: Path, name: str, size: int, hours_ago: float) -> tuple[Path, Path]:
    """A library of `size` bytes and its index entry, both last used `hours_ago`."""
    library = cache / 'lib' / f'{name}.so'
    library.write_bytes(b'\0' * size)
    entry = cache / 'index' / f'model-{name}.json'
    entry.write_text(json.dumps({'library': library.name, 'size': size, 'sha256': 'x'}))
    _age(hours_ago * HOUR, library, entry)
    return library, entry


def _object(cache: Path, key: str, size: int, hours_ago: float) -> tuple[Path, Path]:
    obj, checksum = cache / 'obj' / f'{key}.o', cache / 'obj' / f'{key}.sha256'
    obj.write_bytes(b'\0' * size)
    checksum.write_text('x' * 64)
    _age(hours_ago * HOUR, obj, checksum)
    return obj, checksum


def test_the_least_recently_used_go_first_until_the_cache_fits(cache) -> None:
    oldest = _library(cache, 'a', MB, hours_ago=5)
    old_object = _object(cache, 'k1', MB, hours_ago=4)
    middle = _library(cache, 'b', MB, hours_ago=3)
    newer = _library(cache, 'c', MB, hours_ago=2)
    newer_object = _object(cache, 'k2', MB, hours_ago=1)
    left = prune.prune(cache, bound=2 * MB + 1000)
    assert not any(path.exists() for path in (*oldest, *old_object, *middle))  # index entries with them
    assert all(path.exists() for path in (*newer, *newer_object))
    assert left == 2 * MB + 64


def test_a_cache_under_the_bound_is_left_alone(cache) -> None:
    files = [*_library(cache, 'a', MB, hours_ago=50), *_object(cache, 'k', MB, hours_ago=50)]
    assert prune.prune(cache, bound=3 * MB) == 2 * MB + 64
    assert all(path.exists() for path in files)


def test_nothing_used_in_the_last_minutes_goes_whatever_the_bound(cache) -> None:
    recent = [*_library(cache, 'a', MB, hours_ago=0.1), *_object(cache, 'k', MB, hours_ago=0.1)]
    old = _library(cache, 'b', MB, hours_ago=1)
    prune.prune(cache, bound=0)
    assert all(path.exists() for path in recent)
    assert not any(path.exists() for path in old)


def test_a_library_counts_as_used_when_one_of_its_index_entries_is_new(cache) -> None:
    """Another source key published its entry for an identical library just now."""
    library, entry = _library(cache, 'a', MB, hours_ago=5)
    twin = cache / 'index' / 'other-a.json'
    twin.write_text(entry.read_text())
    prune.prune(cache, bound=0)
    assert library.exists() and entry.exists() and twin.exists()


def test_a_touched_entry_is_recent(cache) -> None:
    library, entry = _library(cache, 'a', MB, hours_ago=5)
    prune.touch(library, cache / 'no-such-file')  # a missing file is no error
    prune.prune(cache, bound=0)
    assert library.exists() and entry.exists()


def test_an_entry_being_compiled_or_loaded_is_skipped(cache) -> None:
    """compile_library holds the entry's lock while it verifies and touches: pruning does not wait for it."""
    busy = _library(cache, 'a', MB, hours_ago=5)
    free = _library(cache, 'b', MB, hours_ago=4)
    with locked(cache / 'locks' / f'{busy[1].stem}.lock'):
        prune.prune(cache, bound=0)
    assert all(path.exists() for path in busy)
    assert not any(path.exists() for path in free)


def test_another_process_pruning_is_left_to_it(cache) -> None:
    old = _library(cache, 'a', MB, hours_ago=5)
    with locked(cache / 'locks' / 'prune.lock'):
        assert prune.prune(cache, bound=0) == MB
    assert all(path.exists() for path in old)


def test_a_checksum_without_its_object_and_a_library_without_an_entry_go_too(cache) -> None:
    orphan_checksum = cache / 'obj' / 'k.sha256'
    orphan_checksum.write_text('x')
    orphan_library = cache / 'lib' / 'lost.so'
    orphan_library.write_bytes(b'\0' * 10)
    in_flight = cache / 'lib' / '.staged.tmp'  # being published by another process: not ours to judge
    in_flight.write_bytes(b'\0' * 10)
    _age(HOUR, orphan_checksum, orphan_library, in_flight)
    prune.prune(cache, bound=0)
    assert not orphan_checksum.exists() and not orphan_library.exists() and in_flight.exists()


def test_a_store_scans_only_without_a_ledger_every_few_stores_or_over_the_bound(cache, monkeypatch) -> None:
    """The ledger (the size at the last scan plus the stores since) is shared through the cache: a fresh
    process storing one library does not scan a cache that the ledger says is under the bound."""
    scans: list[int] = []
    monkeypatch.setattr(prune, 'prune', lambda folder, bound: scans.append(bound) or 10 * MB)
    monkeypatch.setenv(prune.MAX_ENV, '100')
    prune.stored(cache, MB)
    assert scans == [100 * MB]  # no ledger yet: scanned
    assert json.loads((cache / prune.LEDGER).read_text()) == {'bytes': 10 * MB, 'stores': 0}
    for _ in range(prune.SCAN_EVERY - 1):
        prune.stored(cache, MB)
    assert len(scans) == 1
    assert json.loads((cache / prune.LEDGER).read_text()) == {'bytes': 25 * MB, 'stores': prune.SCAN_EVERY - 1}
    prune.stored(cache, 0)  # nothing stored: not a store
    prune.stored(cache, MB)
    assert len(scans) == 2  # SCAN_EVERY stores since the last scan
    prune.stored(cache, 91 * MB)
    assert len(scans) == 3  # the ledger says the bound is crossed
    (cache / prune.LEDGER).write_text('{damaged')
    prune.stored(cache, MB)
    assert len(scans) == 4  # a damaged ledger: scanned and written again
    assert json.loads((cache / prune.LEDGER).read_text()) == {'bytes': 10 * MB, 'stores': 0}


@pytest.mark.parametrize(('value', 'megabytes'), [('', prune.DEFAULT_MAX_MB), ('100', 100), (' 0.5 ', 0.5), ('0', 0)])
def test_the_bound_is_read_from_the_environment(monkeypatch, value, megabytes) -> None:
    monkeypatch.setenv(prune.MAX_ENV, value)
    assert prune.max_bytes() == int(megabytes * MB)


@pytest.mark.parametrize('value', ['lots', '-1', 'nan', 'inf', '2GB'])
def test_a_malformed_bound_is_named_and_the_default_kept(monkeypatch, value) -> None:
    monkeypatch.setenv(prune.MAX_ENV, value)
    with pytest.warns(prune.CacheBoundWarning, match=f"HLS4ML_CACHE_MAX_MB='{value}' is not a size in megabytes"):
        assert prune.max_bytes() == prune.DEFAULT_MAX_MB * MB
