"""Catapult HLS reports (vendor-tools spec §3.6-§3.7) as a dictionary: `parse_catapult_report`.

The project is `<output_dir>/<name>_prj/`, its newest solution `<name>.v<N>/`. hls4ml 1.x reads
only the Vivado reports of the `vsynth` step (UtilizationReport, TimingReport) and the testbench
logs; this also reads Catapult's own latency (`cycle.rpt`) and area score (`rtl.rpt`) into
CSynthesisReport. The layout of those two is known only from third-party parsers and fixtures
([T] in the spec): they are parsed by their section titles and row labels, not by column positions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hls4ml.report.common import (
    ReportNotFoundError,
    collect,
    existing_dir,
    project_name,
    result_lines,
    vivado_timing,
    vivado_utilization,
)

NUMBER = re.compile(r'-?\d+(?:\.\d+)?')


def find_solution(hls_dir: str | Path) -> tuple[Path, str]:
    """(the newest solution folder, the project name), or ReportNotFoundError naming what is missing."""
    folder = existing_dir(hls_dir, 'Catapult report')
    name = project_name(folder)
    project = folder / f'{name}_prj'
    if not project.is_dir():
        raise ReportNotFoundError(
            f'no Catapult project {str(project)!r}: run hls_model.build(...) first (it needs catapult)'
        )
    solutions = [path for path in project.glob(f'{name}.v*') if path.is_dir() and path.suffix[2:].isdigit()]
    if not solutions:
        raise ReportNotFoundError(f'no Catapult solution {name}.v<N> in {str(project)!r}')
    return max(solutions, key=lambda path: int(path.suffix[2:])), name


def parse_catapult_report(output_dir: str | Path) -> dict[str, Any]:
    """CSimResults, CosimResults, CSynthesisReport (cycle.rpt, rtl.rpt), UtilizationReport and
    TimingReport (the Vivado synthesis of `vsynth`) and PerLayerQOFR, each only when its file exists."""
    solution, _ = find_solution(output_dir)
    tb_data, vivado = Path(output_dir) / 'tb_data', solution / 'vivado_concat_v'
    return collect(
        {
            'CSimResults': (tb_data / 'csim_results.log', result_lines),
            'CosimResults': (tb_data / 'rtl_cosim_results.log', result_lines),
            'CSynthesisReport': (solution, synthesis_report),
            'UtilizationReport': (vivado / 'utilization_synth.rpt', vivado_utilization),
            'TimingReport': (vivado / 'timing_summary_synth.rpt', vivado_timing),
            'PerLayerQOFR': (solution / 'nnet_layer_results.txt', layer_results),
        }
    )


def layer_results(path: Path) -> list[str] | None:
    """The lines of hls4ml's `/HLS4ML/collect_reports` output, or None when it is missing."""
    return path.read_text().splitlines() if path.is_file() else None


def synthesis_report(solution: Path) -> dict[str, str] | None:
    """TargetClockPeriod, latency and interval (cycles; Catapult gives one value, so Best = Worst and
    Min = Max) and AreaScore (the Post-Assignment total), as strings; None without either report."""
    cycle, rtl = solution / 'cycle.rpt', solution / 'rtl.rpt'
    if not cycle.is_file() and not rtl.is_file():
        return None
    report: dict[str, str] = {}
    if cycle.is_file():
        report.update(cycle_summary(cycle.read_text(errors='replace').splitlines()))
    if rtl.is_file():
        scores = labelled_numbers(rtl.read_text(errors='replace').splitlines(), 'Total Area Score:')
        if scores:
            report['AreaScore'] = scores[-1]
    return report


def cycle_summary(lines: list[str]) -> dict[str, str]:
    """From cycle.rpt: the `Design Total:` row of `Processes/Blocks in Design` (operations, latency,
    throughput, reset length, II) and the clock period of `Clock Information`."""
    report: dict[str, str] = {}
    total = labelled_numbers(section(lines, 'Processes/Blocks in Design'), 'Design Total:')
    if len(total) >= 3:
        report.update(BestLatency=total[1], WorstLatency=total[1], IntervalMin=total[2], IntervalMax=total[2])
    clocks = [line.split() for line in section(lines, 'Clock Information') if line.split()[1:2] == ['rising']]
    if clocks and len(clocks[0]) > 2:
        report['TargetClockPeriod'] = clocks[0][2]
    return report


def section(lines: list[str], title: str) -> list[str]:
    """The lines of the section whose title line is `title`, up to the next blank line after its table."""
    start = next((index for index, line in enumerate(lines) if line.strip() == title), None)
    if start is None:
        return []
    found: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            if found:
                break
            continue
        found.append(line)
    return found


def labelled_numbers(lines: list[str], label: str) -> list[str]:
    """The numbers after `label` on the first line holding it."""
    for line in lines:
        if label in line:
            return NUMBER.findall(line.split(label, 1)[1])
    return []


def read_catapult_report(hls_dir: str | Path, full_report: bool = False) -> None:
    """Print the newest solution's latency (cycle.rpt) and area (rtl.rpt) summaries; the whole
    reports with `full_report`."""
    solution, _ = find_solution(hls_dir)
    for file, title in (('cycle.rpt', 'Processes/Blocks in Design'), ('rtl.rpt', 'Area Scores')):
        path = solution / file
        if not path.is_file():
            print(f'{file} not found ({path}).\n')
            continue
        lines = path.read_text(errors='replace').splitlines()
        shown = lines if full_report else [title, *section(lines, title)]
        print(f'{path}:\n' + '\n'.join(shown) + '\n')
