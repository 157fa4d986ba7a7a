"""Bit-exact check of our fixed-point headers against the golden vectors of the real vendor headers.

For every CSV file in ``test/data/fixed_golden`` a C++ driver is generated with one template
instantiation per distinct parameter tuple (a table of function pointers), compiled against
``hls4ml/templates/fixed`` and fed all rows on stdin; every row without a vendor-quirk tag must
match bit for bit (raw bits read through ``operator[]``, result W/I/S from the deduced type,
doubles as ``%a``, integers, strings). Quirk rows (spec section 12, and the tags the generator
added: test/data/fixed_golden/README.md) are counted and skipped.
"""

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from golden import GOLDEN_FILES, load_rows

FLAGS = ['-O0', '-w']  # -O0 halves the compile time of these large drivers

PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include "@HEADER@"

static char bit_buffer[8192];
static void print_bits(int width) {
    char out[2100];
    int n = 0;
    for (int nibble = (width - 1) / 4; nibble >= 0; --nibble) {
        int digit = 0;
        for (int b = 3; b >= 0; --b)
            if (nibble * 4 + b < width && bit_buffer[nibble * 4 + b]) digit |= 1 << b;
        if (digit || n || nibble == 0) out[n++] = "0123456789abcdef"[digit];
    }
    out[n] = 0;
    fputs(out, stdout);
}
template <class T> void put_raw(const T &v) {
    for (int i = 0; i < T::width; ++i) bit_buffer[i] = v[i];
    print_bits(T::width);
}
static int hex_digit(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }
template <class T> void set_raw(T &v, const char *hex) {
    const int n = (int)strlen(hex);
    for (int i = 0; i < T::width; ++i) {
        const int digit = i / 4 < n ? hex_digit(hex[n - 1 - i / 4]) : 0;
        v[i] = ((digit >> (i % 4)) & 1) != 0;
    }
}
template <class R> void put_result(const R &r) {
    printf("%d %d %d ", R::width, i_width_of((const R *)0), (int)is_signed_type((const R *)0));
    put_raw(r);
}
"""

AP_TRAITS = r"""
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N>
bool is_signed_type(const ap_fixed<W, I, Q, O, N> *) { return true; }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N>
bool is_signed_type(const ap_ufixed<W, I, Q, O, N> *) { return false; }
template <int W> bool is_signed_type(const ap_int<W> *) { return true; }
template <int W> bool is_signed_type(const ap_uint<W> *) { return false; }
template <class R> int i_width_of(const R *) { return R::iwidth; }
template <int W> int i_width_of(const ap_int<W> *) { return W; }
template <int W> int i_width_of(const ap_uint<W> *) { return W; }
template <class T> void conv(const char *x, const char *) {
    T v;
    set_raw(v, x);
    int implicit = v;
    printf("%a %a %d %lld %d %s %s %s", v.to_double(), (double)v.to_float(), v.to_int(),
           (long long)v.to_int64(), implicit, v.to_string(10).c_str(), v.to_string(2).c_str(),
           v.to_string(16).c_str());
}
"""

AC_TRAITS = r"""
template <class R> bool is_signed_type(const R *) { return R::sign; }
template <class R> int i_width_of(const R *) { return R::i_width; }
template <class T> void conv(const char *x, const char *) {
    T v;
    set_raw(v, x);
    printf("%a - %d %lld %d %s %s %s", v.to_double(), v.to_int(), (long long)v.to_int64(), v.to_int(),
           v.to_string(AC_DEC).c_str(), v.to_string(AC_BIN).c_str(), v.to_string(AC_HEX).c_str());
}
"""

KERNELS = r"""
template <class T> void cast_double(const char *x, const char *) {
    T v = strtod(x, 0);
    put_raw(v);
    printf(" %a", v.to_double());
}
template <class S, class D> void cast_fixed(const char *x, const char *) {
    S s;
    set_raw(s, x);
    D d = s;
    put_raw(d);
}
template <class T> void shift(const char *x, const char *k) {
    T v;
    set_raw(v, x);
    const int n = atoi(k);
    put_raw(T(v << n));
    putchar(' ');
    put_raw(T(v >> n));
}
#define BINARY(NAME, EXPR)                                       \
    template <class A, class B> void NAME(const char *a, const char *b) { \
        A x;                                                      \
        B y;                                                      \
        set_raw(x, a);                                            \
        set_raw(y, b);                                            \
        EXPR;                                                     \
    }
BINARY(op_add, put_result(x + y))
BINARY(op_sub, put_result(x - y))
BINARY(op_mul, put_result(x * y))
BINARY(op_div, put_result(x / y))
BINARY(op_mod, put_result(x % y))
BINARY(op_lt, printf("%d", int(x < y)))
BINARY(op_eq, printf("%d", int(x == y)))
template <class A, class B> void op_neg(const char *a, const char *) {
    A x;
    set_raw(x, a);
    put_result(-x);
}
typedef void (*entry)(const char *, const char *);
"""

MAIN = r"""
int main() {
    static char line[1024], a[512], b[512];
    while (fgets(line, sizeof line, stdin)) {
        int index = 0;
        a[0] = b[0] = 0;
        sscanf(line, "%d %511s %511s", &index, a, b);
        table[index](a, b);
        putchar('\n');
    }
    return 0;
}
"""


def fixed_type(family: str, W, I, S, Q='TRN', O='WRAP', N='0') -> str:  # noqa: E741
    if family == 'ap':
        return f'ap_{"" if int(S) else "u"}fixed<{W},{I},AP_{Q},AP_{O},{N}>'
    return f'ac_fixed<{W},{I},{"true" if int(S) else "false"},AC_{Q},AC_{O}>'


def int_type(family: str, W, S) -> str:
    if family == 'ap':
        return f'ap_{"" if int(S) else "u"}int<{W}>'
    return f'ac_int<{W},{"true" if int(S) else "false"}>'


def as_int(text: str) -> int:
    return int(text, 16)


def same_double(expected: str, got: str) -> bool:
    return float.fromhex(expected) == float.fromhex(got)


@dataclass
class Kind:
    """How one kind of golden file becomes driver calls and how its output is compared."""

    entry: Callable[[str, dict], str]  # C++ table entry for a row
    args: Callable[[dict], tuple[str, ...]]  # driver input for a row
    check: Callable[[dict, list[str]], list[str]]  # mismatching columns of a row


def check_raw(column: str) -> Callable[[dict, list[str]], list[str]]:
    return lambda row, out: [] if as_int(out[0]) == as_int(row[column]) else [column]


def check_cast_double(row: dict, out: list[str]) -> list[str]:
    bad = [] if as_int(out[0]) == as_int(row['raw']) else ['raw']
    return bad + ([] if same_double(row['d'], out[1]) else ['d'])


def check_arith(row: dict, out: list[str]) -> list[str]:
    if row['op'] in ('lt', 'eq'):
        return [] if out[0] == row['r'] else ['r']
    bad = [c for c, got in zip(('Wr', 'Ir', 'Sr'), out, strict=False) if row.get(c, got) != got]
    return bad + ([] if as_int(out[3]) == as_int(row['r']) else ['r'])


def check_int_ops(row: dict, out: list[str]) -> list[str]:
    if row['op'] in ('lt', 'eq'):
        return [] if out[0] == row['r'] else ['r']
    bad = [c for c, got in (('Wr', out[0]), ('Sr', out[2])) if row[c] != got]
    return bad + ([] if as_int(out[3]) == as_int(row['r']) else ['r'])


CONV_COLUMNS = (
    'to_double',
    'to_float',
    'to_int',
    'to_int64',
    'int_implicit',
    'str_dec',
    'str_bin',
    'str_hex',
)


def check_conv(row: dict, out: list[str]) -> list[str]:
    bad = []
    for column, got in zip(CONV_COLUMNS, out, strict=False):
        expected = row[column]
        if expected in ('-', 'UB'):
            continue
        equal = same_double(expected, got) if column.startswith('to_d') or column == 'to_float' else expected == got
        if not equal:
            bad.append(column)
    return bad


def check_shift(row: dict, out: list[str]) -> list[str]:
    return [c for c, got in (('shl', out[0]), ('shr', out[1])) if as_int(got) != as_int(row[c])]


def binary_entry(types: Callable[[str, dict], tuple[str, str]]) -> Callable[[str, dict], str]:
    def entry(family: str, row: dict) -> str:
        a, b = types(family, row)
        return f'&op_{row["op"]}<{a}, {b}>'

    return entry


def arith_types(family: str, row: dict) -> tuple[str, str]:
    a = fixed_type(family, row['W1'], row['I1'], row['S1'])
    return a, (fixed_type(family, row['W2'], row['I2'], row['S2']) if row['op'] != 'neg' else a)


def int_op_types(family: str, row: dict) -> tuple[str, str]:
    return int_type(family, row['W1'], row['S1']), int_type(family, row['W2'], row['S2'])


KINDS = {
    'cast_double': Kind(
        lambda f, r: f'&cast_double<{fixed_type(f, r["W"], r["I"], r["S"], r["Q"], r["O"], r["N"])}>',
        lambda r: (r['x'],),
        check_cast_double,
    ),
    'cast_fixed': Kind(
        lambda f, r: '&cast_fixed<{}, {}>'.format(
            fixed_type(f, r['W2'], r['I2'], r['S2'], 'TRN', r['O2']),
            fixed_type(f, r['W'], r['I'], r['S'], r['Q'], r['O'], r['N']),
        ),
        lambda r: (r['x_raw'],),
        check_raw('raw'),
    ),
    'arith': Kind(binary_entry(arith_types), lambda r: (r['a'], r['b'] or '0'), check_arith),
    'conv': Kind(lambda f, r: f'&conv<{fixed_type(f, r["W"], r["I"], r["S"])}>', lambda r: (r['raw'],), check_conv),
    'shift': Kind(
        lambda f, r: f'&shift<{fixed_type(f, r["W"], r["I"], r["S"])}>',
        lambda r: (r['raw'], r['k']),
        check_shift,
    ),
    'int_cast_double': Kind(
        lambda f, r: f'&cast_double<{int_type(f, r["W"], r["S"])}>', lambda r: (r['x'],), check_raw('raw')
    ),
    'int_ops': Kind(binary_entry(int_op_types), lambda r: (r['a'], r['b']), check_int_ops),
}


def kind_of(file_name: str) -> tuple[str, Kind]:
    family, rest = file_name.split('_', 1)
    return family, KINDS[rest.removesuffix('.csv')]


def driver_source(family: str, entries: list[str]) -> str:
    header = 'ap_fixed.h' if family == 'ap' else 'ac_fixed.h'
    table = 'static const entry table[] = {\n    ' + ',\n    '.join(entries) + '};\n'
    traits = AP_TRAITS if family == 'ap' else AC_TRAITS
    return PRELUDE.replace('@HEADER@', header) + traits + KERNELS + table + MAIN


def test_every_golden_file_has_a_driver() -> None:
    assert len(GOLDEN_FILES) == 14, 'test/data/fixed_golden must hold the 14 golden files'
    assert {name.split('_', 1)[1].removesuffix('.csv') for name in GOLDEN_FILES} == set(KINDS)


@pytest.mark.csim
@pytest.mark.parametrize('file_name', GOLDEN_FILES)
def test_golden_file(file_name, cpp_builder, record_property):
    family, kind = kind_of(file_name)
    rows = load_rows(file_name)
    checked = [row for row in rows if not row['quirk']]
    entries: dict[str, int] = {}
    lines = []
    for row in checked:
        index = entries.setdefault(kind.entry(family, row), len(entries))
        lines.append(' '.join((str(index), *kind.args(row))))

    build = cpp_builder.build(driver_source(family, list(entries)), FLAGS, name=file_name.removesuffix('.csv'))
    assert build.executable, f'driver for {file_name} does not compile:\n{build.output[:5000]}'
    run = subprocess.run([str(build.executable)], input='\n'.join(lines) + '\n', capture_output=True, text=True)
    assert run.returncode == 0, f'driver for {file_name} failed: {run.stderr[:2000]}'
    outputs = run.stdout.split('\n')[: len(checked)]
    assert len(outputs) == len(checked), f'driver printed {len(outputs)} lines for {len(checked)} rows'

    mismatches = []
    for row, out in zip(checked, outputs, strict=True):
        bad = kind.check(row, out.split(' '))
        if bad:
            mismatches.append(f'{",".join(bad)}: row {dict(row)} -> got {out!r}')
    skipped = len(rows) - len(checked)
    record_property(
        'golden',
        f'C++ headers   {file_name}: {len(checked)} rows checked, {skipped} skipped (vendor quirk), '
        f'{len(mismatches)} mismatched ({len(entries)} instantiations)',
    )
    first = '\n'.join(mismatches[:8])
    assert not mismatches, f'{len(mismatches)} mismatches in {file_name}, first ones:\n{first}'
