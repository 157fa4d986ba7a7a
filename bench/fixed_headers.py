"""Compile time and run time of our fixed-point headers beside the vendor headers.

    .venv/bin/python bench/fixed_headers.py [--vendor-ap DIR] [--vendor-ac DIR] [--repeat 5]

The same small translation unit (a 16x16 dense layer: the inner loop of every C-simulation) is
compiled with `g++ -std=c++17 -O2` against our headers and, when found, against the vendor headers
that the published hls4ml 1.3.0 ships (looked up in the peer venv made by
`../shared/bench/peer_compare.sh`, `$HLS4ML_PEER_HOME`, default `~/.cache/hls4ml-peer`). Nothing
of the vendor's is copied: the headers are only put on the include path of the measured g++.
Each binary then runs the layer on 200 000 inputs and prints a checksum of the raw output bits,
which must be equal between our headers and the vendor's (bit-exactness on real code).
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OURS = Path(__file__).resolve().parents[1] / 'hls4ml' / 'templates' / 'fixed'

DENSE_TU = r"""
#include <cstdio>
#include "{header}"
typedef {data_t} data_t;
typedef {accum_t} accum_t;
typedef {result_t} result_t;

static void dense(const data_t in[16], result_t out[16], const data_t weights[256]) {{
    for (int j = 0; j < 16; j++) {{
        accum_t acc = 0;
        for (int i = 0; i < 16; i++) acc += in[i] * weights[j * 16 + i];
        out[j] = acc;
    }}
}}

int main() {{
    data_t weights[256], in[16];
    result_t out[16];
    for (int k = 0; k < 256; k++) weights[k] = ((k * 37) % 101 - 50) / 25.0;
    double checksum = 0;
    for (int sample = 0; sample < 200000; sample++) {{
        for (int i = 0; i < 16; i++) in[i] = ((sample * 13 + i * 7) % 257 - 128) / 16.0;
        dense(in, out, weights);
        for (int j = 0; j < 16; j++) checksum += out[j].to_double() * (j + 1);
    }}
    std::printf("%.17g\n", checksum);
    return 0;
}}
"""

VARIANTS = {
    'ap': dict(
        header='ap_fixed.h',
        data_t='ap_fixed<16,6>',
        accum_t='ap_fixed<32,12>',
        result_t='ap_fixed<16,6,AP_RND,AP_SAT>',
    ),
    'ac': dict(
        header='ac_fixed.h',
        data_t='ac_fixed<16,6,true>',
        accum_t='ac_fixed<32,12,true>',
        result_t='ac_fixed<16,6,true,AC_RND,AC_SAT>',
    ),
}


def find_vendor_headers() -> dict[str, Path]:
    """The vendor header folders inside the peer venv's hls4ml 1.3.0 package, if it exists."""
    home = Path(os.environ.get('HLS4ML_PEER_HOME', Path.home() / '.cache' / 'hls4ml-peer'))
    packages = glob.glob(str(home / 'venv' / 'lib' / 'python*' / 'site-packages' / 'hls4ml' / 'templates'))
    if not packages:
        return {}
    templates = Path(packages[0])
    found = {'ap': templates / 'vivado' / 'ap_types', 'ac': templates / 'catapult' / 'ac_types' / 'include'}
    return {family: path for family, path in found.items() if path.is_dir()}


def compile_and_run(source: Path, include: Path, workdir: Path, tag: str, repeat: int) -> tuple[float, float, str]:
    """Median compile seconds, run seconds and the program's checksum."""
    binary = workdir / tag
    command = ['g++', '-std=c++17', '-O2', '-w', f'-I{include}', str(source), '-o', str(binary)]
    compile_times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True)
        compile_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    checksum = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout.strip()
    return statistics.median(compile_times), time.perf_counter() - start, checksum


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--vendor-ap', type=Path, help='folder with the Xilinx ap_fixed.h (default: peer venv)')
    parser.add_argument('--vendor-ac', type=Path, help='folder with the AC ac_fixed.h (default: peer venv)')
    parser.add_argument('--repeat', type=int, default=5, help='compiles per measurement (median)')
    args = parser.parse_args()
    vendor = find_vendor_headers()
    vendor.update({family: path for family, path in (('ap', args.vendor_ap), ('ac', args.vendor_ac)) if path})
    print('| face | headers | g++ -O2 compile s | run s (200k samples) | checksum |')
    print('|---|---|---|---|---|')
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for family, fields in VARIANTS.items():
            source = workdir / f'dense_{family}.cpp'
            source.write_text(DENSE_TU.format(**fields))
            results = {'ours': compile_and_run(source, OURS, workdir, f'ours_{family}', args.repeat)}
            if family in vendor:
                results['vendor'] = compile_and_run(source, vendor[family], workdir, f'vendor_{family}', args.repeat)
            for name, (compile_s, run_s, checksum) in results.items():
                print(f'| {family} | {name} | {compile_s:.2f} | {run_s:.2f} | {checksum} |')
            if len({result[2] for result in results.values()}) > 1:
                print(f'MISMATCH: {family} checksums differ between our headers and the vendor headers')
                status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
