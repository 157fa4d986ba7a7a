"""parse_oneapi_report against the hand-written fixtures of test/fixtures/reports/oneapi (written to the
documented formats of vendor-tools.md §2.9, not tool output)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hls4ml.report import ReportNotFoundError, parse_oneapi_report
from hls4ml.report.oneapi import oneapi_name

FIXTURES = Path(__file__).parents[2] / 'fixtures' / 'reports'
HLS = {
    'total': {'alut': 18560, 'reg': 32229, 'ram': 12, 'dsp': 612.5, 'mlab': 40},
    'available': {'alut': 974400, 'reg': 1948800, 'ram': 7110, 'dsp': 4510, 'mlab': 48720},
}
LOOP = {'worstFrequency': 452.49, 'worstII': 1, 'worstLatency': 91}


def test_each_prj_folder_is_one_target() -> None:
    report = parse_oneapi_report(FIXTURES / 'oneapi')
    assert set(report) == {'report', 'fpga'}
    assert report['report'] == {'HLS': HLS, 'Loop': LOOP}  # the early image: no Quartus fit


def test_the_fpga_target_has_the_quartus_fit_of_the_kernel() -> None:
    quartus = parse_oneapi_report(FIXTURES / 'oneapi' / 'build')['fpga']['Quartus']
    # the node named after the kernel, not the first ('Kernel System')
    assert quartus == {'fmax': 412.37, 'alm': 14987.5, 'alut': 19870, 'reg': 35096, 'dsp': 612.5, 'ram': 12, 'mlab': 40}


def test_without_a_kernel_node_the_first_node_is_used(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'oneapi', tmp_path / 'prj')
    path = tmp_path / 'prj/build/myproject.fpga.prj/reports/resources/json/quartus.ndjson'
    quartus = json.loads(path.read_text())
    quartus['quartusFitResourceUsageSummary']['nodes'][1]['name'] = 'SomethingElse'
    path.write_text(json.dumps(quartus))
    assert parse_oneapi_report(tmp_path / 'prj')['fpga']['Quartus']['alm'] == 15204


def test_missing_files_leave_their_part_out(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / 'oneapi', tmp_path / 'prj')
    (tmp_path / 'prj/build/myproject.report.prj/reports/resources/json/loop_attr.ndjson').unlink()
    assert parse_oneapi_report(tmp_path / 'prj')['report'] == {'HLS': HLS}


def test_no_prj_folder_is_an_error_naming_the_folder_and_the_targets(tmp_path: Path) -> None:
    with pytest.raises(ReportNotFoundError, match=r"no oneAPI report in .*build_type='report'"):
        parse_oneapi_report(tmp_path)
    with pytest.raises(ReportNotFoundError, match='does not exist'):
        parse_oneapi_report(tmp_path / 'missing')


@pytest.mark.parametrize(
    'name, spelled',
    [('myproject', 'Myproject'), ('my_project2x', 'MyProject2X'), ('jet_tagger_kernel', 'JetTaggerKernel')],
)
def test_oneapi_kernel_names(name: str, spelled: str) -> None:
    assert oneapi_name(name) == spelled
