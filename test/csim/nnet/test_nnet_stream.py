"""Bit-exact C-simulation of the io_stream kernels (nnet_*_stream.h, nnet_stream.h) against the
numpy references, on the cases of the io_parallel tests driven through streams (`stream_cases.py`).

Three drivers per header set (kernels: dense, activations, batch normalization, softmax; merges and
index moves; clone and repack) are compiled with -Wall -Wextra -Werror in both dialects. Each case
checks, for every sample, that every output stream holds exactly the expected number of elements
with the reference's bits (the same bits as the io_parallel kernels), and that every input stream
was read to the end. Header sets that are not on the machine are skipped. On our own headers the
drivers are also built as compile() builds the library (C++17, -DHLS4ML_CSIM_FAST: relu on raw
integers, the integer dense).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from nnet_harness import HEADER_BUILDS, HeaderSet, require
from stream_cases import GROUPS, build, run, stream_cases

pytestmark = pytest.mark.csim

CASES = [(group, case.name.split('-', 1)[1]) for group in GROUPS for case in stream_cases(group, 'ap')]


@functools.cache
def _driver(headers: HeaderSet, group: str, mode: str) -> tuple[dict, dict]:
    """The cases of one driver by name, and the driver's results (built once per process)."""
    cases = stream_cases(group, headers.family)
    return {case.name: case for case in cases}, run(build(cases, headers, group, mode), cases)


@pytest.mark.parametrize('group,case_name', CASES, ids=[f'{group}-{name}' for group, name in CASES])
@pytest.mark.parametrize('headers,mode', HEADER_BUILDS, ids=[f'{headers}-{mode}' for headers, mode in HEADER_BUILDS])
def test_stream_kernel_matches_reference(headers: HeaderSet, mode: str, group: str, case_name: str) -> None:
    require(headers)
    cases, results = _driver(headers, group, mode)
    case = cases[f'{headers.family}-{case_name}']
    result = results[case.name]
    n_samples = case.inputs[0].values.shape[0]
    assert result.left == [[0] * len(case.inputs)] * n_samples, f'{case.name}: input streams not fully read'
    for k, port in enumerate(case.outputs):
        assert result.counts[k] == [port.n_elements] * n_samples, (
            f'{case.name} with {headers}: output {k + 1} holds {result.counts[k][0]} elements, '
            f'expected {port.n_elements}'
        )
        got, expected = np.array(result.values[k]), port.values.value
        mismatched = np.argwhere(got != expected)
        if mismatched.size:
            row, column = mismatched[0]
            inputs = [p.values.value[row].tolist() for p in case.inputs]
            pytest.fail(
                f'{case.name} with {headers}, output {k + 1}: {len(mismatched)} of {got.size} values differ; '
                f'first at sample {row}, value {column}: C++ {got[row, column]!r}, reference '
                f'{expected[row, column]!r}, input rows {inputs}'
            )
