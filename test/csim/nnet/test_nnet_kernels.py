"""Bit-exact C-simulation of every nnet kernel against the numpy reference kernels.

One driver per header set (our own or the vendor's ap/ac headers) runs all cases of
`nnet_cases.py`; each case is one test comparing every output value with the reference. The drivers
are compiled with -Wall -Wextra -Werror, so these tests also prove that every kernel compiles
warning-free in both dialects. Header sets that are not on the machine are skipped.
"""

from __future__ import annotations

import numpy as np
import pytest
from nnet_cases import all_cases
from nnet_harness import HEADER_SETS, HeaderSet, build_driver, require, run_driver

pytestmark = pytest.mark.csim

CASE_NAMES = [case.name.split('-', 1)[1] for case in all_cases('ap')]


@pytest.fixture(scope='module', params=HEADER_SETS, ids=str)
def driver_results(request) -> tuple[HeaderSet, dict]:
    headers: HeaderSet = request.param
    require(headers)
    cases = all_cases(headers.family)
    return headers, {case.name: case for case in cases}, run_driver(build_driver(cases, headers), cases)


@pytest.mark.parametrize('case_name', CASE_NAMES)
def test_kernel_matches_reference(driver_results, case_name: str) -> None:
    headers, cases, results = driver_results
    case = cases[f'{headers.family}-{case_name}']
    got, expected = results[case.name], case.expected.value
    mismatched = np.argwhere(got != expected)
    if mismatched.size:
        row, column = mismatched[0]
        pytest.fail(
            f'{case.name} with {headers}: {len(mismatched)} of {got.size} values differ; first at sample '
            f'{row}, output {column}: C++ {got[row, column]!r}, reference {expected[row, column]!r}, '
            f'input row {case.inputs.value[row].tolist()}'
        )
