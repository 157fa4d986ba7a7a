"""End to end on the fixed-point foundation: a small dense network computed three ways.

    .venv/bin/python examples/fixed_point_demo.py

1. in float64 (numpy), the reference;
2. with the bit-exact Python twin (`hls4ml.model.fixed`) in ap_fixed and in ac_fixed;
3. as C++ against the project's own `ap_fixed.h` / `ac_fixed.h`, compiled with g++ and run.

It prints the error of fixed point against float and checks that the C++ outputs are the twin's
outputs bit for bit. The network (16-32-5, ReLU) has seeded random weights: no download, no
framework. (The full compiler, Keras model -> HLS project -> predict(), arrives with issue #3.)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize

HEADERS = Path(__file__).resolve().parents[1] / 'hls4ml' / 'templates' / 'fixed'
SIZES = (16, 32, 5)
N_SAMPLES = 1000
TYPES = {
    'ap': dict(data='ap_fixed<16,6>', accum='ap_fixed<32,12>', result='ap_fixed<16,6,AP_RND,AP_SAT>'),
    'ac': dict(data='ac_fixed<16,6,true>', accum='ac_fixed<32,12,true>', result='ac_fixed<16,6,true,AC_RND,AC_SAT>'),
}


def make_network(seed: int = 7) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = [rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)) for n_in, n_out in zip(SIZES, SIZES[1:], strict=False)]
    return weights, rng.normal(0, 1.5, (N_SAMPLES, SIZES[0]))


def float_forward(weights: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    for index, w in enumerate(weights):
        x = x @ w
        if index < len(weights) - 1:
            x = np.maximum(x, 0)
    return x


def twin_forward(weights: list[np.ndarray], x: np.ndarray, family: str) -> FixedArray:
    """The C++ loop below, written with the twin: products, accumulation, ReLU, one write per layer."""
    types = TYPES[family]
    values = quantize(x, types['data'], family)
    for index, w in enumerate(weights):
        wq = quantize(w, types['data'], family)
        acc = quantize(np.zeros((x.shape[0], w.shape[1])), types['accum'], family)
        for i in range(w.shape[0]):
            column = FixedArray(values.raw[:, i : i + 1], values.type, family)
            row = FixedArray(wq.raw[i : i + 1, :], wq.type, family)
            acc = (acc + column * row).cast(types['accum'])
        if index < len(weights) - 1:
            acc = FixedArray(np.maximum(acc.raw, 0), acc.type, family)
        values = acc.cast(types['result'])
    return values


def cpp_source(weights: list[np.ndarray], x: np.ndarray, family: str) -> str:
    types = TYPES[family]
    lines = [f'#include "{family}_fixed.h"', '#include <cstdio>', '#include <cstdlib>']
    lines += [f'typedef {types[name]} {name}_t;' for name in ('data', 'accum', 'result')]
    for index, w in enumerate(weights):
        values = ', '.join(float(v).hex() for v in w.ravel())
        lines.append(f'static const double w{index}_double[{w.size}] = {{{values}}};')
    lines.append(
        CPP_MAIN.format(n_samples=x.shape[0], n_in=SIZES[0], n_out=SIZES[-1], sizes=', '.join(map(str, SIZES)))
    )
    return '\n'.join(lines)


CPP_MAIN = r"""
static const int sizes[3] = {{{sizes}}};
static const double *weight_doubles[2] = {{w0_double, w1_double}};

int main() {{
    static data_t weights[2][32 * 32];
    for (int layer = 0; layer < 2; layer++)
        for (int k = 0; k < sizes[layer] * sizes[layer + 1]; k++) weights[layer][k] = weight_doubles[layer][k];
    for (int sample = 0; sample < {n_samples}; sample++) {{
        result_t values[32];
        for (int i = 0; i < {n_in}; i++) {{
            double x;
            if (std::scanf("%lf", &x) != 1) return 1;
            values[i] = data_t(x);
        }}
        for (int layer = 0; layer < 2; layer++) {{
            result_t next[32];
            for (int j = 0; j < sizes[layer + 1]; j++) {{
                accum_t acc = 0;
                for (int i = 0; i < sizes[layer]; i++)
                    acc += data_t(values[i]) * weights[layer][i * sizes[layer + 1] + j];
                if (layer == 0 && acc < 0) acc = 0;
                next[j] = acc;
            }}
            for (int j = 0; j < sizes[layer + 1]; j++) values[j] = next[j];
        }}
        for (int j = 0; j < {n_out}; j++) std::printf("%a ", values[j].to_double());
        std::printf("\n");
    }}
    return 0;
}}
"""


def run_cpp(source: str, x: np.ndarray, workdir: Path, family: str) -> tuple[np.ndarray, float]:
    cpp, binary = workdir / f'net_{family}.cpp', workdir / f'net_{family}'
    cpp.write_text(source)
    start = time.perf_counter()
    subprocess.run(['g++', '-std=c++17', '-O2', '-Wall', f'-I{HEADERS}', str(cpp), '-o', str(binary)], check=True)
    compile_seconds = time.perf_counter() - start
    stdin = '\n'.join(' '.join(float(v).hex() for v in row) for row in x)
    out = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, check=True).stdout
    return np.array([[float.fromhex(v) for v in line.split()] for line in out.splitlines()]), compile_seconds


def main() -> int:
    weights, x = make_network()
    reference = float_forward(weights, x)
    print(f'network {"-".join(map(str, SIZES))}, {N_SAMPLES} samples, types {TYPES["ap"]}')
    print('| family | max abs error vs float | argmax agreement | C++ == twin (bits) | g++ compile s |')
    print('|---|---|---|---|---|')
    all_exact = True
    with tempfile.TemporaryDirectory() as tmp:
        for family in TYPES:
            twin = twin_forward(weights, x, family).to_double()
            cpp, compile_seconds = run_cpp(cpp_source(weights, x, family), x, Path(tmp), family)
            exact = np.array_equal(cpp, twin)
            all_exact &= exact
            error = np.abs(twin - reference).max()
            agreement = np.mean(twin.argmax(axis=1) == reference.argmax(axis=1))
            print(f'| {family} | {error:.4f} | {agreement:.3f} | {"yes" if exact else "NO"} | {compile_seconds:.2f} |')
    return 0 if all_exact else 1


if __name__ == '__main__':
    sys.exit(main())
