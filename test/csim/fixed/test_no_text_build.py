"""HLS4ML_CSIM_NO_TEXT, the C-simulation build of the fixed-point headers without <string>: the
arithmetic is unchanged, every use of text fails to compile (never a silent fallback such as printing
through the implicit conversion to double), and the headers parse without <string>."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.csim

NO_TEXT = ['-DHLS4ML_CSIM_NO_TEXT']

ARITHMETIC = r"""
#include <cstdio>
#include "ap_fixed.h"
#include "ac_fixed.h"
int main() {
    ap_fixed<16, 6> a = 1.75, b = -2.5;
    ap_fixed<16, 6, AP_RND, AP_SAT> c = a * b;
    ac_fixed<12, 4, true> d = 3.125;
    ac_int<9, false> e = 300;
    std::printf("%a %a %a %d\n", (a * b).to_double(), c.to_double(), (d * d).to_double(), int(e + e));
    return 0;
}
"""

TEXT_USES = {
    'ap to_string': 'ap_fixed<8, 3> x = 1; auto text = x.to_string(10);',
    'ap_int to_string': 'ap_int<8> x = 1; auto text = x.to_string();',
    'ac to_string': 'ac_fixed<8, 3> x = 1; auto text = x.to_string(AC_DEC);',
    'ap literal': 'ap_fixed<8, 3> x = "1.5";',
    'ap literal assignment': 'ap_fixed<8, 3> x; x = "1.5";',
    'ac literal': 'ac_fixed<8, 3> x = "1.5";',
    'ap stream output': 'ap_fixed<8, 3> x = 1; std::cout << x;',
    'ap_uint stream output': 'ap_uint<8> x = 1; std::cout << x;',
    'ac stream output': 'ac_int<8> x = 1; std::cout << x;',
}


def test_arithmetic_is_the_same_without_text(cpp_builder) -> None:
    outputs = []
    for flags in ([], NO_TEXT):
        result = cpp_builder.build(ARITHMETIC, ['-Wall', '-Wextra', '-Werror', *flags], 'no-text-arithmetic')
        assert result.executable is not None, result.output
        outputs.append(subprocess.run([str(result.executable)], capture_output=True, text=True, check=True).stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].split()[:2] == ['-0x1.18p+2', '-0x1.18p+2']


@pytest.mark.parametrize('use', sorted(TEXT_USES))
def test_text_use_fails_to_compile(cpp_builder, use: str) -> None:
    source = f'#include <iostream>\n#include "ap_fixed.h"\n#include "ac_fixed.h"\nvoid use() {{ {TEXT_USES[use]} }}\n'
    assert cpp_builder.check_syntax(source, []).returncode == 0, f'{use} must compile with the text headers'
    result = cpp_builder.check_syntax(source, NO_TEXT)
    assert result.returncode != 0, f'{use} compiled under HLS4ML_CSIM_NO_TEXT'
    reason = 'to_string' if 'to_string' in use else 'deleted'
    assert reason in result.stderr, result.stderr[:3000]


def test_headers_parse_without_string(cpp_builder) -> None:
    source = '#include "ap_fixed.h"\n#include "ac_fixed.h"\n'
    included = cpp_builder.check_syntax(source, [*NO_TEXT, '-H']).stderr
    assert not [line for line in included.splitlines() if line.rstrip().endswith(('/string', 'basic_string.h'))]
    with_text = cpp_builder.check_syntax(source, ['-H']).stderr
    assert any(line.rstrip().endswith('/string') for line in with_text.splitlines())
