"""The skip policy of test/conftest.py, run on a throw-away suite in a pytest subprocess: a skip for
missing data or headers fails the run, a vendor-tool skip does not, and the summary counts both."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / 'conftest.py'

SUITE = """
import pytest

@pytest.mark.vendor
def test_needs_vitis():
    pytest.skip('vitis_hls is not installed')

def test_needs_optional_package():
    pytest.skip('an optional package is missing')

def test_passes():
    assert True
"""

MISSING = """
import pytest

def test_needs_headers():
    pytest.skip('vendor ap headers not found: could not fetch the hls4ml==1.3.0 wheel with pip: offline')
"""


MODULE = "import pytest\npytest.skip('golden vectors not found', allow_module_level=True)\n"


def run_suite(folder: Path, *options: str) -> subprocess.CompletedProcess:
    (folder / 'pytest.ini').write_text('[pytest]\nmarkers =\n    vendor: needs a vendor tool\n')
    shutil.copy(CONFTEST, folder / 'conftest.py')
    command = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'no:xdist', *options, str(folder)]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=120)


def test_vendor_and_other_skips_pass_and_are_counted(tmp_path: Path) -> None:
    (tmp_path / 'test_suite.py').write_text(SUITE)
    run = run_suite(tmp_path)
    assert run.returncode == 0, run.stdout
    assert '2 skipped: 1 for a vendor tool (allowed), 1 for other' in run.stdout


def test_skips_for_missing_headers_or_data_fail_the_run(tmp_path: Path) -> None:
    (tmp_path / 'test_suite.py').write_text(SUITE)
    (tmp_path / 'test_missing.py').write_text(MISSING)
    (tmp_path / 'test_module.py').write_text(MODULE)
    run = run_suite(tmp_path)
    assert run.returncode == 1, run.stdout
    counts = '1 for a vendor tool (allowed), 2 for missing data, headers or compiler (NOT allowed), 1 for other'
    assert f'4 skipped: {counts}' in run.stdout
    assert '1 x vendor ap headers not found' in run.stdout
    assert '1 x golden vectors not found' in run.stdout
    assert 'the run FAILS' in run.stdout


def test_allow_missing_data_turns_the_failure_into_a_note(tmp_path: Path) -> None:
    (tmp_path / 'test_module.py').write_text(MODULE)
    run = run_suite(tmp_path, '--allow-missing-data')
    assert run.returncode == 5, run.stdout  # pytest's own "no tests ran", not a failure
    assert 'allowed by --allow-missing-data' in run.stdout
