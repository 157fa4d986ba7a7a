"""The dialect pragma spellings (preprocessed with and without __SYNTHESIS__) and our hls::stream model."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from nnet_harness import NNET, TEMPLATES, HeaderSet, compile_source, compiler

pytestmark = pytest.mark.csim

KERNEL_HEADERS = ['nnet_dense.h', 'nnet_activation_table.h', 'nnet_softmax.h', 'nnet_batchnorm.h', 'nnet_helpers.h']
EXPECTED_PRAGMAS = {
    'vitis': [
        '#pragma HLS PIPELINE II=CONFIG_T::reuse_factor',
        '#pragma HLS PIPELINE II=1',
        '#pragma HLS ALLOCATION operation instances=mul limit=multiplier_limit',
        '#pragma HLS ARRAY_PARTITION variable=acc complete',
        '#pragma HLS ARRAY_RESHAPE variable=weights cyclic factor=block_factor',
        '#pragma HLS INLINE',
    ],
    'ac': ['#pragma hls_pipeline_init_interval CONFIG_T::reuse_factor', '#pragma hls_unroll yes'],
}


def _preprocess(tmp_path: Path, dialect: str, synthesis: bool) -> str:
    if compiler() is None:
        pytest.skip('no C++ compiler')
    for stub in ('ap_fixed.h', 'ap_int.h', 'ac_fixed.h', 'ac_int.h'):  # types do not matter to -E
        (tmp_path / stub).write_text('')
    source = tmp_path / 'all.cpp'
    source.write_text(''.join(f'#include "{header}"\n' for header in KERNEL_HEADERS))
    flags = ['-E', '-P', f'-I{tmp_path}', f'-I{NNET}']
    flags += ['-DHLS4ML_DIALECT_AC'] if dialect == 'ac' else []
    flags += ['-D__SYNTHESIS__'] if synthesis else []
    process = subprocess.run([compiler(), *flags, str(source)], capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    return process.stdout


@pytest.mark.parametrize('dialect', ['vitis', 'ac'])
def test_pragmas_expand_only_in_synthesis(tmp_path: Path, dialect: str) -> None:
    synthesized = _preprocess(tmp_path, dialect, synthesis=True)
    pragmas = {line.strip() for line in synthesized.splitlines() if line.strip().startswith('#pragma')}
    for expected in EXPECTED_PRAGMAS[dialect]:
        assert expected in pragmas, f'{expected!r} missing; got {sorted(pragmas)}'
    assert '#pragma' not in _preprocess(tmp_path, dialect, synthesis=False)


STREAM_PROGRAM = r"""
#include <cstdio>
#include "hls_stream.h"
// Destroyed after main's thread-local spare buffers of the ring-buffer build: frees its own buffer.
hls::stream<int> outliving("outliving");
int main(int argc, char **) {
    outliving.write(3);
    hls::stream<int> fifo("layer2_out");
    fifo.write(1);
    fifo << 2;
    std::printf("%d %zu %d\n", int(fifo.empty()), fifo.size(), int(fifo.full()));
    int value = 0;
    fifo >> value;
    const int second = fifo.read();
    std::printf("%d %d\n", value, second);
    const bool read_from_empty = fifo.read_nb(value);
    const bool written = fifo.write_nb(7);
    std::printf("%d %d\n", int(read_from_empty), int(written));
    const bool read_seven = fifo.read_nb(value);
    std::printf("%d %d %d\n", int(read_seven), value, int(fifo.empty()));
    // Growth and wrap-around (the ring buffer of the C-simulation build starts with 16 places).
    long checksum = 0, expected = 0, next = 0;
    for (int round = 0; round < 5; ++round) {
        for (int k = 0; k < 7 + 23 * round; ++k)
            fifo.write(int(next++));
        for (int k = 0; k < 5 + 19 * round; ++k)
            checksum += (expected++ == fifo.read()) ? 1 : -1000;
    }
    const std::size_t left = fifo.size();
    while (!fifo.empty())
        checksum += (expected++ == fifo.read()) ? 1 : -1000;
    std::printf("%ld %zu %ld\n", checksum, left, next);
    // Streams made afresh call after call, more at once than buffers are kept, of changing sizes: the
    // ring buffers' storage is reused from call to call, and every FIFO still starts empty.
    long reused = 0;
    for (int call = 0; call < 4; ++call) {
        hls::stream<int> streams[20];
        for (int s = 0; s < 20; ++s) {
            reused += streams[s].empty() ? 1 : -1000;
            for (int k = 0; k < 3 + 37 * ((s + call) % 5); ++k)
                streams[s].write(1000 * s + k);
        }
        for (int s = 0; s < 20; ++s)
            for (int k = 0; k < 3 + 37 * ((s + call) % 5); ++k)
                reused += streams[s].read() == 1000 * s + k ? 1 : -1000;
        reused += streams[call].empty() ? 1 : -1000;
        streams[call].write(5);  // destroyed holding a value
    }
    std::printf("%ld\n", reused);
    if (argc > 1)
        fifo.read();  // empty: must abort with the stream's name
    return 0;
}
"""


@pytest.mark.parametrize('build', ['deque', 'csim ring buffer'])
def test_hls_stream_model(build: str) -> None:
    """The same FIFO behaviour from std::deque and from the ring buffer of HLS4ML_CSIM_NO_TEXT."""
    if compiler() is None:
        pytest.skip('no C++ compiler')
    flags = ['-std=c++14', '-Wall', '-Wextra', '-Werror', f'-I{TEMPLATES / "stream"}']
    flags += ['-DHLS4ML_CSIM_NO_TEXT'] if build != 'deque' else []
    executable = compile_source(STREAM_PROGRAM, flags, [TEMPLATES / 'stream'], f'hls-stream-{build[:5]}')
    normal = subprocess.run([str(executable)], capture_output=True, text=True)
    assert normal.returncode == 0
    assert normal.stdout.split('\n')[:6] == ['0 2 0', '1 2', '0 1', '1 7 1', '265 50 265', '6244']
    failing = subprocess.run([str(executable), 'read-empty'], capture_output=True, text=True)
    assert failing.returncode != 0
    assert "hls::stream 'layer2_out': read from an empty stream" in failing.stderr


TRACE_PROGRAM = r"""
#include <cstdio>
#include "ap_fixed.h"
#include "nnet_helpers.h"
struct no_peek { int read(); };
static_assert(!nnet::has_peek<no_peek>::value, "a stream without peek_run is read and written back");
static_assert(nnet::has_peek<hls::stream<int>>::value == PEEK, "our C-simulation stream is looked at in place");
typedef nnet::array<ap_fixed<16, 6>, 3> element;
static element values_of(int e) {
    element values;
    for (unsigned j = 0; j < 3; j++)
        values[j] = 0.25 * (3 * e + j) - 1.5;
    return values;
}
int main() {
    // 10 elements written and read first: the 14 traced wrap around the end of the ring's 16 places
    hls::stream<element> fifo("traced");
    for (int e = 0; e < 10; e++)
        fifo.write(values_of(100 + e));
    for (int e = 0; e < 10; e++)
        fifo.read();
    for (int e = 0; e < 14; e++)
        fifo.write(values_of(e));
    float traced[42];
    nnet::trace_stream<element, 14>(fifo, nnet::trace_row(traced, true, 0));
    for (int k = 0; k < 42; k++)
        std::printf("%g ", traced[k]);
    std::printf("| %zu |", fifo.size());
    while (!fifo.empty())
        std::printf(" %g", fifo.read()[0].to_double());
    std::printf("\n");
    std::fflush(stdout);
    nnet::trace_stream<element, 1>(fifo, nnet::trace_row(traced, true, 0)); // empty: the read reports it
    return 0;
}
"""


@pytest.mark.parametrize('build', ['deque', 'csim ring buffer'])
def test_a_traced_stream_is_copied_and_left_as_it_was(build: str) -> None:
    """trace_stream looks at our C-simulation FIFO in place, in the runs of elements before and after the ring
    wraps (peek_run), and reads and writes back any other stream (here the deque build, as the vendors'
    streams): the same values and the stream unchanged. A missing element is reported as a deadlock."""
    headers = HeaderSet('own', 'ap')
    if compiler() is None or headers.missing():
        pytest.skip(headers.missing() or 'no C++ compiler')
    ring = build != 'deque'
    flags = [*headers.flags(), '-Wall', '-Werror', '-O1', f'-DPEEK={int(ring)}']
    flags += ['-DHLS4ML_CSIM_NO_TEXT'] if ring else []
    executable = compile_source(TRACE_PROGRAM, flags, [headers.include, NNET, TEMPLATES / 'stream'], 'trace-copy')
    run = subprocess.run([str(executable)], capture_output=True, text=True)
    assert run.returncode != 0
    assert "hls::stream 'traced': read from an empty stream" in run.stderr
    traced, size, left = run.stdout.strip().split('|')
    assert [float(v) for v in traced.split()] == [0.25 * k - 1.5 for k in range(42)]
    assert int(size) == 14
    assert [float(v) for v in left.split()] == [0.25 * 3 * e - 1.5 for e in range(14)]
