"""Shared pytest set-up: the golden-vector summary, and the skip policy of the suite.

Skip policy (a suite that stands on its own): a test marked `vendor` may skip (it needs
vitis_hls, catapult or icpx, which no CI machine has). A test that skips because test data, the
vendor fixed-point headers (fetched by test/vendor.py) or the C++ compiler are missing makes the
run FAIL (exit status 1), since it would otherwise pass hollow on a machine that lacks them. Other
skips are allowed and counted. The summary prints the skips of each kind; `--allow-missing-data`
turns the failure into a warning (offline work on a machine without the vendor headers).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

# Keras is the reference of many tests. TensorFlow's own CPU kernels lack channels_first (NCHW) convolutions
# and dilated transposed convolutions; its oneDNN kernels have them, but TensorFlow turns oneDNN on by
# itself only on CPUs with AVX-512 VNNI/BF16 or AMX. Turned on here for every CPU (before TensorFlow is
# imported; the workers and subprocesses inherit it), so the reference does not depend on the machine.
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '1')

# The suite runs one test per core on every core (pytest -n 2), so a split C-simulation build (one g++ per
# weighted layer, hls4ml/writer/csim_units.py) finds no idle core to use and only pays for its units, each of
# which instantiates its types' fixed-point code again: about twice the g++ time of one unit on the suite's
# small models (test/csim/keras and frameworks: 365 s split, 279 s as one unit). Models compile as one unit
# here unless a test asks for the split (test/csim/csim/test_split_build.py and test_split_families.py compare
# the two bit for bit); HLS4ML_CSIM_SPLIT=1 in the environment runs the whole suite split.
os.environ.setdefault('HLS4ML_CSIM_SPLIT', '0')

# Words of the skip reasons that mean "a prerequisite of the suite is missing" (lower case): the
# vendor-header harness says '<origin> <family> headers not found: <why>', test/vendor.py 'could
# not fetch the hls4ml==1.3.0 wheel', the C++ helpers 'no C++ compiler'.
MISSING_REASONS = ('headers not found', 'could not fetch', 'golden vectors not found', 'test data', 'no c++ compiler')
VENDOR, MISSING, OTHER = 'a vendor tool (allowed)', 'missing data, headers or compiler (NOT allowed)', 'other'
_skips: list[tuple[str, str]] = []  # (kind, reason) of every skipped test or module


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        '--allow-missing-data',
        action='store_true',
        help='do not fail the run when tests skip for missing test data, vendor headers or compiler',
    )


def skip_reason(report) -> str:
    """The reason text of a skip report ('Skipped: ' removed)."""
    longrepr = report.longrepr
    text = str(longrepr[2]) if isinstance(longrepr, tuple | list) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix('Skipped: ')


def skip_kind(report) -> str:
    """Which kind of skip a report is: by the `vendor` marker first, then by the reason."""
    if 'vendor' in getattr(report, 'keywords', {}):
        return VENDOR
    reason = skip_reason(report).lower()
    return MISSING if any(words in reason for words in MISSING_REASONS) else OTHER


def _record(report) -> None:
    if report.skipped and not hasattr(report, 'wasxfail'):
        _skips.append((skip_kind(report), skip_reason(report)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _record(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _record(report)  # a whole module skipped at import (pytest.importorskip, module-level skip)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, 'workerinput')  # an xdist worker: the controller sees every report too


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A skip for missing data, headers or compiler fails the run (unless --allow-missing-data)."""
    if _is_worker(session.config) or session.config.getoption('allow_missing_data'):
        return
    if any(kind == MISSING for kind, _ in _skips) and exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _skip_summary(terminalreporter) -> None:
    kinds = Counter(kind for kind, _ in _skips)
    terminalreporter.section('skips')
    counts = ', '.join(f'{kinds[kind]} for {kind}' for kind in (VENDOR, MISSING, OTHER) if kinds[kind])
    terminalreporter.write_line(f'{len(_skips)} skipped' + (f': {counts}' if counts else ''))
    for reason, count in Counter(reason for kind, reason in _skips if kind == MISSING).most_common():
        terminalreporter.write_line(f'  {count} x {reason}', red=True)
    if kinds[MISSING]:
        allowed = terminalreporter.config.getoption('allow_missing_data')
        verdict = 'allowed by --allow-missing-data' if allowed else 'the run FAILS'
        terminalreporter.write_line(f'tests skipped for missing data, headers or compiler: {verdict}', red=True)


def _golden_summary(terminalreporter) -> None:
    """The per-file golden-vector counts that tests stored with `record_property('golden', ...)`."""
    lines = []
    for outcome in ('passed', 'failed'):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, 'user_properties', []):
                if key == 'golden':
                    lines.append(value)
    if lines:
        terminalreporter.section('golden vectors (vendor headers)')
        for line in sorted(lines):
            terminalreporter.write_line(line)


def pytest_terminal_summary(terminalreporter) -> None:
    _golden_summary(terminalreporter)
    if not _is_worker(terminalreporter.config):
        _skip_summary(terminalreporter)
