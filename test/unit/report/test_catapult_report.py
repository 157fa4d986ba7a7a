"""parse_catapult_report / read_catapult_report against the hand-written fixtures of
test/fixtures/reports/catapult. The cycle.rpt and rtl.rpt layouts are known only from third-party
parsers (vendor-tools.md §3.7, [T]): structure unconfirmed until a real report is seen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hls4ml.report import ReportNotFoundError, parse_catapult_report, read_catapult_report
from hls4ml.report.catapult import find_solution

FIXTURES = Path(__file__).parents[2] / 'fixtures' / 'reports'


def test_the_newest_solution_gives_latency_area_and_vivado_results() -> None:
    report = parse_catapult_report(FIXTURES / 'catapult')
    assert set(report) == {'CSimResults', 'CosimResults', 'CSynthesisReport', 'UtilizationReport', 'TimingReport'}
    assert report['CSynthesisReport'] == {
        'BestLatency': '7',
        'WorstLatency': '7',
        'IntervalMin': '8',
        'IntervalMax': '8',
        'TargetClockPeriod': '5.000',
        'AreaScore': '43512.6',  # Post-Assignment
    }
    assert report['UtilizationReport'] == {'LUT': '38112', 'FF': '7790', 'BRAM_18K': '0', 'URAM': '0', 'DSP48E': '1986'}
    assert report['TimingReport']['WNS'] == 0.874
    assert len(report['CSimResults']) == 3


def test_solution_versions_compare_as_numbers(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'catapult', tmp_path / 'prj')
    (tmp_path / 'prj/myproject_prj/myproject.v10').mkdir()
    assert find_solution(tmp_path / 'prj')[0].name == 'myproject.v10'
    assert parse_catapult_report(tmp_path / 'prj') == {
        'CSimResults': parse_catapult_report(FIXTURES / 'catapult')['CSimResults'],
        'CosimResults': parse_catapult_report(FIXTURES / 'catapult')['CosimResults'],
    }


def test_layer_results_of_the_hls4ml_flow_package_are_kept(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'catapult', tmp_path / 'prj')
    (tmp_path / 'prj/myproject_prj/myproject.v2/nnet_layer_results.txt').write_text('layer2 latency 3\n')
    assert parse_catapult_report(tmp_path / 'prj')['PerLayerQOFR'] == ['layer2 latency 3']


def test_missing_project_and_solution_are_named(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / 'catapult' / 'hls4ml_config.yml', tmp_path)
    with pytest.raises(ReportNotFoundError, match=r'myproject_prj.*needs catapult'):
        parse_catapult_report(tmp_path)
    (tmp_path / 'myproject_prj').mkdir()
    with pytest.raises(ReportNotFoundError, match=r'no Catapult solution myproject\.v<N>'):
        parse_catapult_report(tmp_path)


def test_read_prints_the_summaries_or_everything(capsys) -> None:
    read_catapult_report(FIXTURES / 'catapult')
    out = capsys.readouterr().out
    assert 'Design Total:' in out and 'Total Area Score:' in out and 'I/O Data Ranges' not in out
    read_catapult_report(FIXTURES / 'catapult', full_report=True)
    assert 'I/O Data Ranges' in capsys.readouterr().out
