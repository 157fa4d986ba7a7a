"""Shared pytest set-up: the golden-vector summary printed at the end of a run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the per-file golden-vector counts that tests stored with `record_property('golden', ...)`."""
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
