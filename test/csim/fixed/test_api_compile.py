"""Compile tests of the fixed-point headers: the whole API subset of both faces (api_usage.cpp) must
compile without warnings and reproduce the worked examples of the spec; types beyond the maximum width
must fail to compile with a clear message."""

import subprocess
from pathlib import Path

import pytest

API_SOURCE = Path(__file__).with_name('api_usage.cpp')
FIXED = Path(__file__).resolve().parents[3] / 'hls4ml' / 'templates' / 'fixed'
BUILDS = {
    # The headers are C++17 and must be warning-free under -Wall -Wextra.
    'c++17-strict': ['-Wall', '-Wextra', '-Werror', '-O1'],
    # Kernel tests build with -std=c++14 and the headers as system headers (g++ accepts their
    # `if constexpr` there); -O0 also catches missing definitions of odr-used static members.
    'c++14-isystem-O0': ['-std=c++14', f'-isystem{FIXED}', '-Wall', '-Wextra', '-Werror', '-O0'],
}

pytestmark = pytest.mark.csim


@pytest.mark.parametrize('build_name', BUILDS)
def test_api_compiles_cleanly_and_matches_spec_examples(cpp_builder, build_name):
    build = cpp_builder.build(API_SOURCE.read_text(), BUILDS[build_name], name=f'api_usage-{build_name}')
    assert build.executable, f'api_usage.cpp does not compile cleanly:\n{build.output[:6000]}'
    run = subprocess.run([str(build.executable)], capture_output=True, text=True)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ''
    print(summary)
    assert run.returncode == 0, run.stdout[-4000:]
    passed, total = (int(n) for n in summary.removeprefix('checks passed: ').split(' of '))
    assert passed == total > 300


WIDTH_CASES = {
    'ap declared type': ('#include "ap_fixed.h"\nap_fixed<5000, 10> x;\n', [], '5000'),
    'ap intermediate result': (
        '#include "ap_fixed.h"\nap_fixed<3000, 10> a;\nauto b = a * a;\n',
        [],
        '6000',
    ),
    'ap_int declared type': ('#include "ap_int.h"\nap_uint<4097> x;\n', [], '4097'),
    'ac declared type': ('#include "ac_fixed.h"\nac_fixed<4100, 10, true> x;\n', [], '4100'),
    'lowered limit': ('#include "ac_int.h"\nac_int<65, true> x;\n', ['-DHLS4ML_FIXED_MAX_W=64'], '65'),
    'ap limit from AP_INT_MAX_W': ('#include "ap_int.h"\nap_int<200> x;\n', ['-DAP_INT_MAX_W=128'], '200'),
}


@pytest.mark.parametrize('case', WIDTH_CASES)
def test_width_beyond_maximum_fails_with_clear_message(cpp_builder, case):
    source, flags, width = WIDTH_CASES[case]
    result = cpp_builder.check_syntax(source, flags)
    assert result.returncode != 0, f'{case}: compiled although the width exceeds the maximum'
    assert 'HLS4ML_FIXED_MAX_W' in result.stderr, result.stderr[:3000]
    assert f'({width} <= ' in result.stderr or f'<{width}, ' in result.stderr, result.stderr[:3000]


@pytest.mark.parametrize(
    'source, flags',
    [
        ('#include "ap_fixed.h"\nap_fixed<5000, 10> x(1.5);\nap_int<6000> y = 3;\n', ['-DAP_INT_MAX_W=8192']),
        ('#include "ac_fixed.h"\nac_fixed<5000, 10, true> x(1.5);\n', ['-DHLS4ML_FIXED_MAX_W=8192']),
    ],
)
def test_raised_maximum_width_compiles(cpp_builder, source, flags):
    result = cpp_builder.check_syntax(source, ['-Wall', '-Wextra', '-Werror', *flags])
    assert result.returncode == 0, result.stderr[:3000]


def test_ac_int_cannot_be_built_from_ac_fixed(cpp_builder):
    result = cpp_builder.check_syntax(
        '#include "ac_fixed.h"\nac_fixed<8, 4, true> f = 1.5;\nac_int<8, true> i = f;\n', []
    )
    assert result.returncode != 0
    assert 'to_ac_int' in result.stderr
