"""What the report parsers share: the error for a missing project, the project's name, the testbench
result logs, and the tables of Vivado's own text reports (utilization and timing summary), which
both the Vitis `vsynth` step and Catapult's Vivado synthesis write."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml


class ReportNotFoundError(FileNotFoundError):
    """The folder or file a report is read from does not exist (the message names the path)."""


class ReportFormatError(ValueError):
    """A report file exists but cannot be read as its format (e.g. cut short by a crashed build)."""

    def __init__(self, path: Path, problem: Exception | str) -> None:
        super().__init__(f'{path}: cannot be parsed ({problem})')


def existing_dir(hls_dir: str | Path, what: str) -> Path:
    """`hls_dir` as a Path, or ReportNotFoundError naming it."""
    path = Path(hls_dir)
    if not path.is_dir():
        raise ReportNotFoundError(f'{what}: the project folder {str(path)!r} does not exist')
    return path


PROJECT_NAME = re.compile(r'^[ \t]*(?:variable|set)[ \t]+project_name[ \t]+"?([\w.-]+)"?', re.MULTILINE)


def project_name(hls_dir: Path) -> str:
    """The project name from hls4ml_config.yml (`ProjectName`), else from project.tcl (`variable
    project_name X` as written here, `set project_name "X"` as hls4ml 1.x writes it)."""
    config = hls_dir / 'hls4ml_config.yml'
    if config.is_file():
        name = (yaml.safe_load(config.read_text()) or {}).get('ProjectName')
        if name:
            return str(name)
    tcl = hls_dir / 'project.tcl'
    if tcl.is_file():
        found = PROJECT_NAME.search(tcl.read_text())
        if found:
            return found.group(1)
    raise ReportNotFoundError(
        f'no project name in {str(hls_dir)!r}: neither hls4ml_config.yml (ProjectName) nor project.tcl names it'
    )


def collect(parts: dict[str, tuple[Path, Callable[[Path], Any]]]) -> dict[str, Any]:
    """{key: parse(path)} for the parts whose file exists; one line on stderr names the files that do
    not (hls4ml 1.x prints what it does not find; stderr keeps stdout for the report itself)."""
    report, missing = {}, []
    for key, (path, parse) in parts.items():
        value = parse(path)
        if value is None:
            missing.append(f'{key} ({path})')
        else:
            report[key] = value
    if missing:
        print('Not found, so not in the report: ' + ', '.join(missing), file=sys.stderr)
    return report


def result_lines(path: Path) -> list[list[str]] | None:
    """A testbench results log as one list of value strings per sample, or None when it is missing."""
    if not path.is_file():
        return None
    return [line.split() for line in path.read_text(errors='replace').splitlines() if line.strip()]


def table_cells(line: str) -> list[str]:
    """The cells of a `| a | b |` table row, stripped."""
    return [cell.strip() for cell in line.strip().strip('|').split('|')]


# ---- Vivado text reports ----------------------------------------------------------------------------

# report_utilization rows (UltraScale names 'CLB ...', 7-series 'Slice ...') -> the hls4ml 1.x keys.
UTILIZATION_ROWS = {
    'CLB LUTs': 'LUT',
    'Slice LUTs': 'LUT',
    'CLB Registers': 'FF',
    'Slice Registers': 'FF',
    'Block RAM Tile': 'BRAM_18K',  # counted in 36 Kb tiles: doubled below
    'URAM': 'URAM',
    'DSPs': 'DSP48E',
}


def vivado_utilization(path: Path) -> dict[str, str] | None:
    """LUT, FF, BRAM_18K, URAM and DSP48E used, from Vivado's `report_utilization` text (the first row
    of each kind), or None when the file is missing. BRAM_18K is twice the used 36 Kb block RAM tiles."""
    if not path.is_file():
        return None
    used: dict[str, str] = {}
    for line in path.read_text(errors='replace').splitlines():
        if not line.lstrip().startswith('|'):
            continue
        cells = table_cells(line)
        key = UTILIZATION_ROWS.get(cells[0].rstrip('*').strip())
        if key and key not in used and len(cells) > 1:
            used[key] = cells[1]
    if 'BRAM_18K' in used:
        try:
            blocks = float(used['BRAM_18K']) * 2
        except ValueError as error:
            raise ReportFormatError(path, error) from error
        used['BRAM_18K'] = str(int(blocks) if blocks.is_integer() else blocks)
    return used


TIMING_COLUMNS = ('WNS', 'TNS', 'WHS', 'THS', 'WPWS', 'TPWS')


def vivado_timing(path: Path) -> dict[str, float] | None:
    """WNS, TNS, WHS, THS, WPWS and TPWS (ns) of the Design Timing Summary of Vivado's
    `report_timing_summary` text, or None when the file (or the table) is missing. The values sit two
    lines under the header; the header's column names place them."""
    if not path.is_file():
        return None
    lines = path.read_text(errors='replace').splitlines()
    for index, line in enumerate(lines):
        if 'WNS(ns)' in line and index + 2 < len(lines):
            header = re.split(r'\s{2,}', line.strip())
            values = re.split(r'\s{2,}', lines[index + 2].strip())
            named = dict(zip(header, values, strict=False))
            try:
                return {key: float(named[f'{key}(ns)']) for key in TIMING_COLUMNS if f'{key}(ns)' in named}
            except ValueError as error:
                raise ReportFormatError(path, error) from error
    return None
