"""The parts shared by the parsers (Vivado's utilization and timing text, the project name) and the
printed tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hls4ml.report import (
    ReportFormatError,
    parse_oneapi_report,
    parse_vivado_report,
    print_oneapi_report,
    print_vivado_report,
)
from hls4ml.report.common import project_name, vivado_timing, vivado_utilization
from hls4ml.report.printing import as_html, vivado_tables

FIXTURES = Path(__file__).parents[2] / 'fixtures' / 'reports'

SEVEN_SERIES = """\
+----------------------------+------+-------+-----------+-------+
|          Site Type         | Used | Fixed | Available | Util% |
+----------------------------+------+-------+-----------+-------+
| Slice LUTs*                | 9120 |     0 |     53200 | 17.14 |
|   LUT as Logic             | 9120 |     0 |     53200 | 17.14 |
| Slice Registers            | 4410 |     0 |    106400 |  4.14 |
| Block RAM Tile             |    2 |     0 |       140 |  1.43 |
| DSPs                       |   65 |     0 |       220 | 29.55 |
+----------------------------+------+-------+-----------+-------+
"""


def test_seven_series_utilization_names(tmp_path: Path) -> None:
    path = tmp_path / 'vivado_synth.rpt'
    path.write_text(SEVEN_SERIES)
    assert vivado_utilization(path) == {'LUT': '9120', 'FF': '4410', 'BRAM_18K': '4', 'DSP48E': '65'}


def test_missing_vivado_reports_are_none(tmp_path: Path) -> None:
    assert vivado_utilization(tmp_path / 'none.rpt') is None and vivado_timing(tmp_path / 'none.rpt') is None
    (tmp_path / 'empty.rpt').write_text('No timing paths.\n')
    assert vivado_timing(tmp_path / 'empty.rpt') is None


def test_the_project_name_from_either_project_tcl_form_or_the_config() -> None:
    assert project_name(FIXTURES / 'vitis') == 'myproject'  # variable project_name myproject
    assert project_name(FIXTURES / 'vivado') == 'myproject'  # set project_name "myproject"
    assert project_name(FIXTURES / 'catapult') == 'myproject'  # hls4ml_config.yml


def test_print_vivado_report_shows_every_part(capsys) -> None:
    print_vivado_report(parse_vivado_report(FIXTURES / 'vitis'))
    out = capsys.readouterr().out
    for text in ('== C synthesis', 'DSP                          2596 of 12288', '== Co-simulation', 'Pass'):
        assert text in out
    assert '== Vivado synthesis' in out and 'WNS   1.186' in out and 'samples in the results log  3' in out


def test_an_empty_report_says_so(capsys) -> None:
    print_vivado_report({})
    assert 'The report is empty' in capsys.readouterr().out


def test_print_oneapi_report_per_target(capsys) -> None:
    print_oneapi_report(parse_oneapi_report(FIXTURES / 'oneapi'))
    out = capsys.readouterr().out
    assert '== fpga: Quartus fit' in out and 'fmax  412.37' in out
    assert '== report: compiler estimate' in out and 'alut  18560 of 974400' in out


def test_html_tables_escape_their_text() -> None:
    tables = vivado_tables({'CosimReport': {'Status': '<Fail>'}})
    assert as_html(tables) == '<h4>Co-simulation</h4><table><tr><td>Status</td><td>&lt;Fail&gt;</td></tr></table>'


def test_a_report_cut_short_is_named(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'vitis', tmp_path / 'prj')
    xml = tmp_path / 'prj/myproject_prj/solution1/syn/report/myproject_csynth.xml'
    xml.write_text(xml.read_text()[:300])
    with pytest.raises(ReportFormatError, match='myproject_csynth.xml: cannot be parsed'):
        parse_vivado_report(tmp_path / 'prj')
    shutil.copytree(FIXTURES / 'oneapi', tmp_path / 'one')
    summary = tmp_path / 'one/build/myproject.report.prj/reports/resources/json/summary.ndjson'
    summary.write_text(summary.read_text() + '{"name": "Tot')
    with pytest.raises(ReportFormatError, match=r'summary\.ndjson'):
        parse_oneapi_report(tmp_path / 'one')
