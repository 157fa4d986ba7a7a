"""parse_vivado_report / read_vivado_report against the hand-written fixtures of
test/fixtures/reports (written to the documented formats of vendor-tools.md §1.3-§1.6, not tool output)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hls4ml.report import ReportNotFoundError, parse_vivado_report, read_vivado_report
from hls4ml.report.vivado import cosim_report, find_project

FIXTURES = Path(__file__).parents[2] / 'fixtures' / 'reports'
SAMPLES = [
    ['0.117188', '0.0703125', '0.0722656', '0.654297', '0.0859375'],
    ['0.0214844', '0.0126953', '0.866211', '0.0566406', '0.0429688'],
    ['0.0253906', '0.904297', '0.0292969', '0.0166016', '0.0263672'],
]


def test_a_vitis_project_gives_every_part_under_the_hls4ml_keys() -> None:
    report = parse_vivado_report(FIXTURES / 'vitis')
    assert set(report) == {
        'CSimResults',
        'CosimResults',
        'CSynthesisReport',
        'CosimReport',
        'VivadoSynthReport',
        'TimingReport',
    }
    assert report['CSimResults'] == SAMPLES and report['CosimResults'] == SAMPLES
    assert report['CSynthesisReport'] == {
        'TargetClockPeriod': '5.00',
        'EstimatedClockPeriod': '3.412',
        'BestLatency': '9',
        'WorstLatency': '9',
        'IntervalMin': '1',
        'IntervalMax': '1',
        'DSP': '2596',
        'FF': '13567',
        'LUT': '62341',
        'BRAM_18K': '0',
        'URAM': '0',
        'AvailableDSP': '12288',
        'AvailableFF': '3456000',
        'AvailableLUT': '1728000',
        'AvailableBRAM_18K': '5376',
        'AvailableURAM': '1280',
    }
    assert report['CosimReport'] == {
        'RTL': 'Verilog',
        'Status': 'Pass',
        'LatencyMin': '9',
        'LatencyAvg': '9',
        'LatencyMax': '9',
        'IntervalMin': '1',
        'IntervalAvg': '1',
        'IntervalMax': '1',
    }
    # 1.5 block RAM tiles of 36 Kb are 3 BRAM_18K
    assert report['VivadoSynthReport'] == {'LUT': '41876', 'FF': '9214', 'BRAM_18K': '3', 'URAM': '0', 'DSP48E': '2211'}
    assert report['TimingReport'] == {'WNS': 1.186, 'TNS': 0.0, 'WHS': 0.041, 'THS': 0.0, 'WPWS': 2.225, 'TPWS': 0.0}


def test_a_vivado_hls_project_renames_dsp48e_and_keeps_undef() -> None:
    report = parse_vivado_report(FIXTURES / 'vivado')
    synthesis = report['CSynthesisReport']
    assert (synthesis['DSP'], synthesis['AvailableDSP']) == ('73', '220')
    assert 'DSP48E' not in synthesis
    assert (synthesis['BestLatency'], synthesis['WorstLatency'], synthesis['IntervalMax']) == ('28', 'undef', '17')
    # a failed co-simulation without the Total Execution Time column, one transaction: intervals NA
    assert report['CosimReport']['Status'] == 'Fail'
    assert (report['CosimReport']['LatencyMax'], report['CosimReport']['IntervalMin']) == ('29', 'NA')
    assert 'CSimResults' not in report and 'VivadoSynthReport' not in report


def test_solutions_come_from_the_project_file_in_its_order() -> None:
    """vivado_hls.app with an xmlns attribute and two solutions (hls4ml 1.x's project.tcl form)."""
    project = find_project(FIXTURES / 'vivado')
    assert (project.name, project.solutions) == ('myproject', ('solution1', 'solution2'))
    assert find_project(FIXTURES / 'vitis').solutions == ('solution1',)


def test_a_project_stopped_after_c_simulation_gives_what_exists(capsys) -> None:
    assert parse_vivado_report(FIXTURES / 'partial') == {'CSimResults': SAMPLES}
    out = capsys.readouterr().err
    assert out.startswith('Not found, so not in the report: CosimResults (')
    assert 'CSynthesisReport (' in out and 'solution1/syn/report/myproject_csynth.xml)' in out


def test_without_project_file_the_solution_folders_are_used(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'vitis', tmp_path / 'prj')
    (tmp_path / 'prj' / 'myproject_prj' / 'hls.app').unlink()
    shutil.copytree(tmp_path / 'prj/myproject_prj/solution1', tmp_path / 'prj/myproject_prj/solution0')
    assert find_project(tmp_path / 'prj').solutions == ('solution0', 'solution1')


def test_the_summary_csynth_xml_is_read_when_the_top_one_is_missing(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'vitis', tmp_path / 'prj')
    report_dir = tmp_path / 'prj/myproject_prj/solution1/syn/report'
    (report_dir / 'myproject_csynth.xml').rename(report_dir / 'csynth.xml')
    assert parse_vivado_report(tmp_path / 'prj')['CSynthesisReport']['DSP'] == '2596'


def test_an_all_na_cosim_report_has_status_na(tmp_path: Path) -> None:
    path = tmp_path / 'myproject_cosim.rpt'
    path.write_text(
        '|      VHDL|        NA|  NA|  NA|  NA|  NA|  NA|  NA|  NA|\n|   Verilog|  NA|  NA|  NA|  NA|  NA|  NA|  NA|\n'
    )
    assert cosim_report(path) == {'Status': 'NA'}


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(ReportNotFoundError, match='nowhere.*does not exist'):
        parse_vivado_report(tmp_path / 'nowhere')


def test_a_written_but_never_built_project_says_to_build(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / 'vitis' / 'project.tcl', tmp_path / 'project.tcl')
    with pytest.raises(ReportNotFoundError, match=r'myproject_prj.*build\(') as error:
        parse_vivado_report(tmp_path)
    assert isinstance(error.value, FileNotFoundError)


def test_a_folder_without_a_project_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportNotFoundError, match='no project name'):
        parse_vivado_report(tmp_path)


def test_read_prints_the_logs_and_the_summary_of_the_synthesis_report(capsys) -> None:
    read_vivado_report(FIXTURES / 'vitis')
    out = capsys.readouterr().out
    assert 'Found 1 solution(s)' in out and 'CSim done with 0 errors' in out
    assert '|Total                |        0|  2596|    13567|    62341|    0|' in out
    assert 'dense_latency_U0' not in out  # the + Detail: part of the utilization section
    assert '|   Verilog|      Pass|' in out


def test_read_full_report_prints_the_details(capsys) -> None:
    read_vivado_report(FIXTURES / 'vitis', full_report=True)
    assert 'dense_latency_U0' in capsys.readouterr().out


def test_read_says_which_reports_are_missing(capsys) -> None:
    read_vivado_report(FIXTURES / 'partial')
    out = capsys.readouterr().out
    assert 'CSim done' in out
    assert 'Synthesis report not found' in out and 'myproject_csynth.rpt' in out
    assert 'Co-simulation report not found' in out
