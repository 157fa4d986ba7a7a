"""Bit-exact C-simulation of the convolution and pooling kernels against the numpy references.

The cases of `conv_pool_cases.py` run in two drivers per header set (convolutions, pooling), rendered
and cached by `nnet_harness` like the other kernels, compiled with -Wall -Wextra -Werror in both
dialects; header sets that are not on the machine are skipped. The static_assert checks of the
config structs are tested by compiling a few wrong configs.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conv_pool_cases import GROUPS, group_cases
from nnet_harness import (
    NNET,
    WARNING_FLAGS,
    DriverCase,
    HeaderSet,
    compile_source,
    compiler,
    render,
)
from nnet_harness import run_driver as run_cases

pytestmark = pytest.mark.csim

INCLUDES = '#include "nnet_conv.h"\n#include "nnet_pooling.h"\n'
CASE_NAMES = [(group, case.name.split('-', 1)[1]) for group in GROUPS for case in group_cases(group, 'ap')]


def build(cases: list[DriverCase], headers: HeaderSet, group: str) -> Path:
    # The shared driver template includes the other kernel headers; ours go first (include guards).
    flags = [*WARNING_FLAGS, *headers.flags(), '-O1']
    return compile_source(INCLUDES + render(cases), flags, [headers.include, NNET], f'nnet-{group}-{headers}')


@pytest.fixture(scope='module')
def group_results(header_set: HeaderSet):
    """Each group's cases and C++ results for this header set, built on first use."""
    built: dict[str, tuple[dict[str, DriverCase], dict[str, np.ndarray]]] = {}

    def results(group: str):
        if group not in built:
            cases = group_cases(group, header_set.family)
            outputs = run_cases(build(cases, header_set, group), cases)
            built[group] = ({case.name: case for case in cases}, outputs)
        return built[group]

    return results


@pytest.mark.parametrize('group,case_name', CASE_NAMES, ids=[name for _, name in CASE_NAMES])
def test_kernel_matches_reference(header_set: HeaderSet, group_results, group: str, case_name: str) -> None:
    cases, results = group_results(group)
    case = cases[f'{header_set.family}-{case_name}']
    got, expected = results[case.name], case.expected.value
    mismatched = np.argwhere(got != expected)
    if mismatched.size:
        row, column = mismatched[0]
        pytest.fail(
            f'{case.name} with {header_set}: {len(mismatched)} of {got.size} values differ; first at sample '
            f'{row}, output {column}: C++ {got[row, column]!r}, reference {expected[row, column]!r}'
        )


def test_cases_exercise_rounding_and_saturation() -> None:
    """The narrow cases really round and saturate (else they would not test the operation order)."""
    saturated = [
        case.name
        for group in GROUPS
        for case in group_cases(group, 'ap')
        if 'SAT' in str(case.expected.type) and np.any(np.abs(case.expected.raw) == case.expected.type.raw_max)
    ]
    assert any('conv2d' in name for name in saturated) and any('average' in name for name in saturated)


WRONG_CONFIGS = {
    'parallelization_factor must divide': (
        'conv',
        'conv2d_config',
        'in_height = 3; static const unsigned in_width = 3; static const unsigned out_height = 3; '
        'static const unsigned out_width = 3; static const unsigned parallelization_factor = 2;',
    ),
    'out_width must be': ('conv', 'conv1d_config', 'in_width = 5; static const unsigned out_width = 4;'),
    'depthwise conv: n_filt must be': (
        'conv',
        'depthwise_conv1d_config',
        'in_width = 5; static const unsigned out_width = 5; static const unsigned n_chan = 2;',
    ),
    'entirely in the padding': (
        'pooling',
        'pooling2d_config',
        'pad_left = 2; static const unsigned in_width = 4; static const unsigned out_width = 3;',
    ),
}
WRONG_PROGRAM = """#include "{header}"
struct config : nnet::{base} {{
    static const unsigned {members}
    typedef ap_fixed<16, 6> accum_t;
    typedef ap_fixed<16, 6> weight_t;
    typedef ap_fixed<16, 6> bias_t;
}};
ap_fixed<16, 6> data[100], res[100], weights[100], biases[100];
void run() {{ nnet::{kernel}<ap_fixed<16, 6>, ap_fixed<16, 6>, config>({arguments}); }}
"""


@pytest.mark.parametrize('message', list(WRONG_CONFIGS))
def test_wrong_configs_do_not_compile(message: str) -> None:
    headers = HeaderSet('own', 'ap')
    if compiler() is None or headers.missing():
        pytest.skip('no C++ compiler or headers')
    kernel, base, members = WRONG_CONFIGS[message]
    pooling = kernel.startswith('pooling')
    source = WRONG_PROGRAM.format(
        header='nnet_pooling.h' if pooling else 'nnet_conv.h',
        base=base,
        members=members,
        kernel=kernel,
        arguments='data, res' if pooling else 'data, res, weights, biases',
    )
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / 'wrong.cpp'
        path.write_text(source)
        process = subprocess.run(
            [compiler(), '-fsyntax-only', *headers.flags(), str(path)], capture_output=True, text=True
        )
    assert process.returncode != 0
    assert message in process.stderr, process.stderr[-2000:]


@pytest.mark.parametrize('synthesis', [True, False])
def test_pragmas_expand_only_in_synthesis(tmp_path: Path, synthesis: bool) -> None:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    for stub in ('ap_fixed.h', 'ap_int.h'):  # types do not matter to -E
        (tmp_path / stub).write_text('')
    source = tmp_path / 'all.cpp'
    source.write_text(INCLUDES)
    flags = ['-E', '-P', f'-I{tmp_path}', f'-I{NNET}', *(['-D__SYNTHESIS__'] if synthesis else [])]
    process = subprocess.run([compiler(), *flags, str(source)], capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    pragmas = {line.strip() for line in process.stdout.splitlines() if line.strip().startswith('#pragma')}
    expected = {
        '#pragma HLS PIPELINE II=CONFIG_T::reuse_factor',
        '#pragma HLS PIPELINE II=1',
        '#pragma HLS ALLOCATION operation instances=mul limit=multiplier_limit',
        '#pragma HLS ARRAY_RESHAPE variable=weights cyclic factor=block_factor',
        '#pragma HLS ARRAY_PARTITION variable=acc complete',
    }
    assert pragmas >= expected if synthesis else not pragmas, sorted(pragmas)
