"""oneAPI FPGA reports (vendor-tools spec §2.9) as hls4ml 1.x's dictionary: `parse_oneapi_report`.

`make report`, `make fpga_sim` and `make fpga` leave `<name>.<target>.prj/reports/resources/json/`
in the build folder. Of its files three are read: `summary.ndjson` (the compiler's resource estimate),
`loop_attr.ndjson` (fmax, II and latency per loop) and, after the Quartus fit of `fpga`,
`quartus.ndjson`. Their numbers are often strings ("974400", "n/a"); they come back as numbers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hls4ml.report.common import ReportFormatError, ReportNotFoundError, existing_dir

RESOURCES = ('alut', 'reg', 'ram', 'dsp', 'mlab')  # the first five columns of summary.ndjson's rows
QUARTUS_RESOURCES = ('alm', 'alut', 'reg', 'dsp', 'ram', 'mlab')


def parse_oneapi_report(hls_dir: str | Path) -> dict[str, Any]:
    """{target: {'HLS': {'total', 'available'}, 'Loop': {...}, 'Quartus': {...}}} for every
    `<name>.<target>.prj` under `hls_dir` (the project or its build folder); each part only when its
    file exists. ReportNotFoundError when the folder is missing or holds no `.prj`."""
    folder = existing_dir(hls_dir, 'oneAPI report')
    projects = sorted(path for path in folder.glob('**/*.prj') if path.is_dir())
    if not projects:
        raise ReportNotFoundError(
            f'no oneAPI report in {str(folder)!r}: no <name>.<target>.prj folder; '
            "build(build_type='report'), 'fpga_sim' or 'fpga' makes one"
        )
    return {target_of(project): project_report(project) for project in projects}


def target_of(project: Path) -> str:
    """`myproject.fpga_sim.prj` -> 'fpga_sim'."""
    parts = project.name.split('.')
    return parts[-2] if len(parts) >= 3 else parts[0]


def project_report(project: Path) -> dict[str, Any]:
    json_dir = project / 'reports' / 'resources' / 'json'
    report: dict[str, Any] = {}
    summary = read_lines(json_dir / 'summary.ndjson')
    if summary is not None:
        report['HLS'] = hls_resources(summary)
    loops = read_lines(json_dir / 'loop_attr.ndjson')
    if loops is not None:
        report['Loop'] = loop_summary(loops)
    quartus_path = json_dir / 'quartus.ndjson'
    if quartus_path.is_file():
        quartus = quartus_summary(read_json(quartus_path, quartus_path.read_text()), project.name.split('.')[0])
        if quartus:
            report['Quartus'] = quartus
    return report


def read_lines(path: Path) -> list[dict[str, Any]] | None:
    """The objects of a one-JSON-object-per-line file, or None when it is missing."""
    if not path.is_file():
        return None
    return [read_json(path, line) for line in path.read_text().splitlines() if line.strip()]


def read_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportFormatError(path, error) from error


def number(value: Any) -> int | float | None:
    """'974400' -> 974400, '480.00' -> 480.0; None for what is not a number ('n/a')."""
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return int(result) if result.is_integer() else result


def hls_resources(summary: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The `Total` and `Available` rows of the estimatedResources section."""
    rows = {row.get('name'): row.get('data', []) for row in summary if row.get('parent') == 'estimatedResources'}
    return {
        key: dict(zip(RESOURCES, (number(value) for value in rows[name]), strict=False))
        for key, name in (('total', 'Total'), ('available', 'Available'))
        if name in rows
    }


def loop_summary(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The worst achieved fmax (MHz, the minimum of `af`), the worst II (maximum integer `ii`) and the
    worst latency (maximum `lt`, cycles) over every kernel, block and loop node."""
    frequencies, intervals, latencies = [], [], []
    for node in walk(lines):
        frequencies.append(number(node.get('af', node.get('fmax'))))
        interval = number(node.get('ii'))
        intervals.append(interval if isinstance(interval, int) else None)
        latencies.append(number(node.get('lt')))
    summary: dict[str, Any] = {}
    for key, values, choose in (
        ('worstFrequency', frequencies, min),
        ('worstII', intervals, max),
        ('worstLatency', latencies, max),
    ):
        known = [value for value in values if value is not None]
        if known:
            summary[key] = choose(known)
    return summary


def walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every node under the `nodes`/`children` lists, depth first."""
    found = []
    for node in nodes:
        found.append(node)
        found += walk(node.get('nodes', []) + node.get('children', []))
    return found


def oneapi_name(name: str) -> str:
    """The kernel name oneAPI reports for a project: `my_project2x` -> `MyProject2X`."""
    spelled = re.sub(r'(?<=[0-9_])([a-z])', lambda match: match.group(1).upper(), name[:1].upper() + name[1:])
    return spelled.replace('_', '')


def quartus_summary(quartus: dict[str, Any], name: str) -> dict[str, Any]:
    """fmax (MHz) and the fitted resources of the project's kernel (the first node when none is named
    after it)."""
    summary: dict[str, Any] = {}
    clocks = quartus.get('quartusFitClockSummary', {}).get('nodes', [])
    if clocks:
        summary['fmax'] = number(clocks[0].get('clock fmax'))
    nodes = quartus.get('quartusFitResourceUsageSummary', {}).get('nodes', [])
    names = (f'{name}_kernel', oneapi_name(f'{name}_kernel'), oneapi_name(name))  # our functor; hls4ml 1.x's
    kernel = next((node for node in nodes if node.get('name') in names), None)
    chosen = kernel or (nodes[0] if nodes else None)
    if chosen is not None:
        summary.update({key: number(chosen.get(key)) for key in QUARTUS_RESOURCES})
    return summary
