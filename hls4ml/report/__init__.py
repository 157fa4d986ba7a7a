"""Vendor reports of a built project, as hls4ml 1.x's dictionaries (docs/backends.md, "Builds and
reports").

    report = hls4ml.report.parse_vivado_report('my-hls-test')   # Vitis and Vivado HLS
    hls4ml.report.print_vivado_report(report)
    hls4ml.report.read_vivado_report('my-hls-test')             # the tool's own text
    hls4ml.report.parse_oneapi_report('my-hls-test')            # {target: {...}}
    hls4ml.report.parse_catapult_report('my-hls-test')

A folder without a project raises ReportNotFoundError (a FileNotFoundError) naming the path; a
project whose build stopped early gives the parts that exist; a report file that is not in its format
(e.g. cut short) raises ReportFormatError (a ValueError) naming the file.
"""

from hls4ml.report.catapult import parse_catapult_report, read_catapult_report
from hls4ml.report.common import ReportFormatError, ReportNotFoundError
from hls4ml.report.oneapi import parse_oneapi_report
from hls4ml.report.printing import print_oneapi_report, print_vivado_report
from hls4ml.report.vivado import parse_vivado_report, read_vivado_report

__all__ = [
    'ReportFormatError',
    'ReportNotFoundError',
    'parse_catapult_report',
    'parse_oneapi_report',
    'parse_vivado_report',
    'print_oneapi_report',
    'print_vivado_report',
    'read_catapult_report',
    'read_vivado_report',
]
