"""The real vendor fixed-point headers, for the tests that compare ours with them.

They are never part of the project. The published hls4ml 1.3.0 wheel ships them (Xilinx ap_types
under `templates/vivado/ap_types`, Algorithmic C under `templates/catapult/ac_types/include`): the
first test that asks fetches that wheel from the package index with pip and unpacks only those two
folders into a cache outside the repository ($HLS4ML_CACHE_DIR/vendor-headers, default
~/.cache/hls4ml/vendor-headers), once per machine. The benchmark peer venv (hls4ml 1.3.0, made by
shared/bench/peer_compare.sh under $HLS4ML_PEER_HOME) is used when it is there. A test skips only
when neither works, and the skip says why (no index, no pip).
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from functools import cache
from pathlib import Path

PEER_HOME = Path(os.environ.get('HLS4ML_PEER_HOME', Path.home() / '.cache' / 'hls4ml-peer'))
WHEEL = 'hls4ml==1.3.0'
_FOLDERS = {'ap': ('vivado', 'ap_types'), 'ac': ('catapult', 'ac_types', 'include')}
_MARKERS = {'ap': 'ap_fixed.h', 'ac': 'ac_fixed.h'}


def vendor_headers(family: str) -> Path | None:
    """The folder holding ap_fixed.h ('ap') or ac_fixed.h ('ac') of the vendor, or None."""
    folder = _peer_headers(family)
    if folder is not None:
        return folder
    unpacked = _unpacked_wheel()
    if isinstance(unpacked, str):
        return None
    folder = unpacked.joinpath(*_FOLDERS[family])
    return folder if (folder / _MARKERS[family]).is_file() else None


def why_missing() -> str:
    """The reason vendor_headers() found nothing (for skip messages)."""
    unpacked = _unpacked_wheel()
    return unpacked if isinstance(unpacked, str) else f'the {WHEEL} wheel has no vendor headers'


def _peer_headers(family: str) -> Path | None:
    pattern = str(PEER_HOME / 'venv' / 'lib' / 'python*' / 'site-packages' / 'hls4ml' / 'templates')
    for templates in glob.glob(pattern):
        folder = Path(templates).joinpath(*_FOLDERS[family])
        if (folder / _MARKERS[family]).is_file():
            return folder
    return None


def _cache_root() -> Path:
    base = os.environ.get('HLS4ML_CACHE_DIR') or Path.home() / '.cache' / 'hls4ml'
    return Path(base) / 'vendor-headers'


@cache
def _unpacked_wheel() -> Path | str:
    """The unpacked templates/ folder of the wheel, or why it could not be had. One process fetches
    at a time (a lock file), so parallel test workers do not download twice."""
    root = _cache_root()
    target = root / WHEEL.replace('==', '-') / 'templates'
    if (target / '.complete').is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with open(root / '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / '.complete').is_file():
            return target
        return _fetch(target)


def _fetch(target: Path) -> Path | str:
    with tempfile.TemporaryDirectory() as work:
        command = [sys.executable, '-m', 'pip', 'download', WHEEL, '--no-deps', '--only-binary=:all:', '-d', work]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f'could not fetch the {WHEEL} wheel with pip: {error}'
        wheels = list(Path(work).glob('*.whl'))
        if result.returncode != 0 or not wheels:
            lines = (result.stderr or result.stdout).strip().splitlines()
            return f'could not fetch the {WHEEL} wheel with pip: {lines[-1] if lines else result.returncode}'
        shutil.rmtree(target, ignore_errors=True)
        _unpack(wheels[0], target)
    (target / '.complete').write_text(WHEEL)
    return target


def _unpack(wheel: Path, target: Path) -> None:
    """Only the two header folders, each path checked to stay inside the target."""
    prefixes = ['hls4ml/templates/' + '/'.join(folder) + '/' for folder in _FOLDERS.values()]
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.endswith('/') or not any(member.startswith(prefix) for prefix in prefixes):
                continue
            relative = Path(member).relative_to('hls4ml/templates')
            destination = (target / relative).resolve()
            if not destination.is_relative_to(target.resolve()):
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(archive.read(member))
