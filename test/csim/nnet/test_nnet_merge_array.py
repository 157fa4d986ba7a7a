"""Bit-exact C-simulation of the merge and index-move kernels (nnet_merge.h, nnet_array.h) against the
numpy references (reference/merge.py, reference/array_ops.py).

Two drivers per header set (merges; index moves) hold all cases of `merge_array_cases.py`; each case
is one test comparing every output value with the reference. The drivers are compiled with -Wall
-Wextra -Werror in both dialects; header sets that are not on the machine are skipped.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from merge_array_cases import GROUPS, build, group_cases, run
from nnet_harness import HEADER_SETS, HeaderSet, require

pytestmark = pytest.mark.csim

CASES = [(group, case.name.split('-', 1)[1]) for group in GROUPS for case in group_cases(group, 'ap')]


@functools.cache
def _driver(headers: HeaderSet, group: str) -> tuple[dict, dict]:
    """The cases of one driver by name, and the driver's results (built once per process)."""
    cases = group_cases(group, headers.family)
    return {case.name: case for case in cases}, run(build(cases, headers, group), cases)


@pytest.mark.parametrize('group,case_name', CASES, ids=[f'{group}-{name}' for group, name in CASES])
@pytest.mark.parametrize('headers', HEADER_SETS, ids=str)
def test_kernel_matches_reference(headers: HeaderSet, group: str, case_name: str) -> None:
    require(headers)
    cases, results = _driver(headers, group)
    case = cases[f'{headers.family}-{case_name}']
    got, expected = results[case.name], case.expected.value
    assert got.shape == expected.shape, f'{case.name}: C++ shape {got.shape}, reference {expected.shape}'
    mismatched = np.argwhere(got != expected)
    if mismatched.size:
        row, column = mismatched[0]
        inputs = [values.value[row].tolist() for values in case.inputs]
        pytest.fail(
            f'{case.name} with {headers}: {len(mismatched)} of {got.size} values differ; first at sample '
            f'{row}, output {column}: C++ {got[row, column]!r}, reference {expected[row, column]!r}, '
            f'input rows {inputs}'
        )
