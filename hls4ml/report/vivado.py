"""Vitis HLS / Vivado HLS reports of a written project (vendor-tools spec §1.3-§1.6), as hls4ml 1.x's
dictionary: `parse_vivado_report` and the text dump `read_vivado_report`.

The project is `<output_dir>/<name>_prj/<solution>/`; the name comes from hls4ml_config.yml or
project.tcl, the solutions from `hls.app` (Vitis) or `vivado_hls.app` (Vivado HLS). Each part of the
report is read when its file exists and left out otherwise, so a project stopped after C simulation
gives what it has.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hls4ml.report.common import (
    ReportFormatError,
    ReportNotFoundError,
    collect,
    existing_dir,
    project_name,
    result_lines,
    table_cells,
    vivado_timing,
    vivado_utilization,
)

LATENCY = {  # hls4ml 1.x key -> element under PerformanceEstimates/SummaryOfOverallLatency
    'BestLatency': 'Best-caseLatency',
    'WorstLatency': 'Worst-caseLatency',
    'IntervalMin': 'Interval-min',
    'IntervalMax': 'Interval-max',
}


@dataclass(frozen=True)
class VivadoProject:
    """Where the reports of one written Vitis/Vivado HLS project are."""

    folder: Path  # the output_dir
    name: str  # the project (and top function) name
    solutions: tuple[str, ...]

    @property
    def hls_project(self) -> Path:
        return self.folder / f'{self.name}_prj'

    def solution(self, solution: str | None = None) -> Path:
        return self.hls_project / (solution or self.solutions[0])

    def csynth_xml(self, solution: str | None = None) -> Path:
        report = self.solution(solution) / 'syn' / 'report'
        top = report / f'{self.name}_csynth.xml'
        return top if top.is_file() or not (report / 'csynth.xml').is_file() else report / 'csynth.xml'


def find_project(hls_dir: str | Path) -> VivadoProject:
    """The project of `hls_dir`, or ReportNotFoundError naming what is missing."""
    folder = existing_dir(hls_dir, 'Vitis/Vivado HLS report')
    name = project_name(folder)
    hls_project = folder / f'{name}_prj'
    if not hls_project.is_dir():
        raise ReportNotFoundError(
            f'no Vitis/Vivado HLS project {str(hls_project)!r}: run hls_model.build(...) first (it needs vitis_hls)'
        )
    return VivadoProject(folder, name, solution_names(hls_project))


def solution_names(hls_project: Path) -> tuple[str, ...]:
    """The solutions listed in hls.app / vivado_hls.app, else the solution folders, else solution1."""
    for app in ('hls.app', 'vivado_hls.app'):
        path = hls_project / app
        if path.is_file():
            text = re.sub(r'\sxmlns(:\w+)?="[^"]*"', '', path.read_text(errors='replace'))
            text = re.sub(r'<(/?)\w+:', r'<\1', text)  # <AutoPilot:project> -> <project>
            names = [element.get('name', '') for element in parse_xml(path, text).iter('solution')]
            if any(names):
                return tuple(name for name in names if name)
    folders = sorted(path.name for path in hls_project.iterdir() if path.is_dir() and (path / 'syn').is_dir())
    return tuple(folders) or ('solution1',)


def parse_vivado_report(hls_dir: str | Path) -> dict[str, Any]:
    """hls4ml 1.x's report dictionary of the project's first solution: CSimResults, CosimResults
    (testbench logs), CSynthesisReport, CosimReport, VivadoSynthReport, TimingReport, each only when
    its file exists. Raises ReportNotFoundError when there is no project at all."""
    project = find_project(hls_dir)
    tb_data, solution = project.folder / 'tb_data', project.solution()
    return collect(
        {
            'CSimResults': (tb_data / 'csim_results.log', result_lines),
            'CosimResults': (tb_data / 'rtl_cosim_results.log', result_lines),
            'CSynthesisReport': (project.csynth_xml(), csynth_report),
            'CosimReport': (solution / 'sim' / 'report' / f'{project.name}_cosim.rpt', cosim_report),
            'VivadoSynthReport': (project.folder / 'vivado_synth.rpt', vivado_utilization),
            'TimingReport': (project.folder / 'vivado_timing.rpt', vivado_timing),
        }
    )


def csynth_report(path: Path) -> dict[str, str] | None:
    """The summary of `<top>_csynth.xml` (§1.4) under hls4ml 1.x's keys, all strings: clock periods,
    latencies and intervals in cycles ('undef' stays), used and Available resources (DSP48E is named
    DSP). None when the file is missing."""
    if not path.is_file():
        return None
    root = parse_xml(path, path.read_text(errors='replace'))
    report: dict[str, str] = {}
    for key, element in (
        ('TargetClockPeriod', 'UserAssignments/TargetClockPeriod'),
        ('EstimatedClockPeriod', 'PerformanceEstimates/SummaryOfTimingAnalysis/EstimatedClockPeriod'),
    ):
        report[key] = text_of(root, element)
    latency = root.find('PerformanceEstimates/SummaryOfOverallLatency')
    for key, element in LATENCY.items():
        report[key] = text_of(latency, element) if latency is not None else ''
    for prefix, section in (('', 'Resources'), ('Available', 'AvailableResources')):
        for resource in root.findall(f'AreaEstimates/{section}/*'):
            name = 'DSP' if resource.tag == 'DSP48E' else resource.tag
            report[prefix + name] = (resource.text or '').strip()
    return {key: value for key, value in report.items() if value}


def parse_xml(path: Path, text: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise ReportFormatError(path, error) from error


def text_of(root: ElementTree.Element, path: str) -> str:
    element = root.find(path)
    return (element.text or '').strip() if element is not None else ''


COSIM_COLUMNS = {  # hls4ml 1.x key -> token of a `| Verilog| Pass| min| avg| max| min| avg| max|` row
    'RTL': 0,
    'Status': 1,
    'LatencyMin': 2,
    'LatencyAvg': 3,
    'LatencyMax': 4,
    'IntervalMin': 5,
    'IntervalAvg': 6,
    'IntervalMax': 7,
}


def cosim_report(path: Path) -> dict[str, str] | None:
    """The first language that ran (status not NA) of `<top>_cosim.rpt` (§1.6), or None when the file is
    missing; an all-NA report gives {'Status': 'NA'}."""
    if not path.is_file():
        return None
    for line in path.read_text(errors='replace').splitlines():
        cells = table_cells(line)
        if len(cells) > 7 and cells[0] in ('Verilog', 'VHDL', 'SystemC') and cells[1] != 'NA':
            return {key: cells[index] for key, index in COSIM_COLUMNS.items()}
    return {'Status': 'NA'}


# ---- read_vivado_report: the tool's own text --------------------------------------------------------


def read_vivado_report(hls_dir: str | Path, full_report: bool = False) -> None:
    """Print, for every solution, the C-simulation log, the synthesis report (its Performance and
    Utilization summaries; everything with `full_report`) and the co-simulation report."""
    project = find_project(hls_dir)
    print(f'Found {len(project.solutions)} solution(s) in {project.hls_project}.')
    for solution in project.solutions:
        print(f'Reports for solution "{solution}":\n')
        base = project.solution(solution)
        show('C simulation', base / 'csim' / 'report' / f'{project.name}_csim.log', full=True)
        show('Synthesis', base / 'syn' / 'report' / f'{project.name}_csynth.rpt', full=full_report)
        show('Co-simulation', base / 'sim' / 'report' / f'{project.name}_cosim.rpt', full=True)


def show(title: str, path: Path, full: bool) -> None:
    if not path.is_file():
        print(f'{title} report not found ({path}).\n')
        return
    lines = path.read_text(errors='replace').splitlines()
    if not full:
        lines = csynth_summary(lines)
    print(f'{title} report ({path}):\n' + '\n'.join(lines) + '\n')


def csynth_summary(lines: list[str]) -> list[str]:
    """The `<top>_csynth.rpt` text up to the utilization summary table's end (its `+ Detail:` part)."""
    utilization = next((index for index, line in enumerate(lines) if line.startswith('== Utilization')), None)
    if utilization is None:
        return lines
    for index in range(utilization, len(lines)):
        if lines[index].strip().startswith('+ Detail'):
            return lines[:index]
    return lines
