"""The compiler's version line is remembered per driver file, and a changed driver is asked again."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hls4ml.csim import toolchain


def _fake_compiler(folder: Path, version: str) -> Path:
    """A `fakecxx` driver that prints `version` and counts how often it was asked."""
    driver = folder / 'fakecxx'
    driver.write_text(f'#!/bin/sh\necho run >> "{folder}/calls"\necho "{version}"\n')
    driver.chmod(driver.stat().st_mode | stat.S_IEXEC)
    return driver


def _calls(folder: Path) -> int:
    calls = folder / 'calls'
    return len(calls.read_text().splitlines()) if calls.exists() else 0


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_folder = tmp_path / 'bin'
    bin_folder.mkdir()
    monkeypatch.setenv('PATH', f'{bin_folder}{os.pathsep}{os.environ["PATH"]}')
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path / 'cache'))
    toolchain.find_compiler.cache_clear()
    yield bin_folder
    toolchain.find_compiler.cache_clear()


def test_version_is_asked_once_per_driver(fresh: Path) -> None:
    _fake_compiler(fresh, 'fakecxx 1.0')
    assert toolchain.find_compiler('fakecxx') == ('fakecxx', 'fakecxx 1.0')
    toolchain.find_compiler.cache_clear()  # a new process: the remembered line serves
    assert toolchain.find_compiler('fakecxx') == ('fakecxx', 'fakecxx 1.0')
    assert _calls(fresh) == 1


def test_changed_driver_is_asked_again(fresh: Path) -> None:
    driver = _fake_compiler(fresh, 'fakecxx 1.0')
    toolchain.find_compiler('fakecxx')
    toolchain.find_compiler.cache_clear()
    _fake_compiler(fresh, 'fakecxx 2.00')  # another size and time
    os.utime(driver, ns=(driver.stat().st_atime_ns, driver.stat().st_mtime_ns + 1_000_000))
    assert toolchain.find_compiler('fakecxx') == ('fakecxx', 'fakecxx 2.00')
    assert _calls(fresh) == 2


def test_missing_compiler_is_none(fresh: Path) -> None:
    assert toolchain.find_compiler('no-such-compiler-hls4ml') is None
