"""The Verilog backend on the jet-tagging MLP (16-64-32-32-5) and the example CNN of mlp_bench.py:
conversion and RTL generation, Verilator compile, predict throughput and bit-exactness against the
Vitis C-simulation, the measured latency, and LUT/FF from Yosys against the estimate and da4ml's cost.

    .venv/bin/python bench/verilog_bench.py [--models mlp,cnn] [--samples 100000] [--weight-bits 8] [--no-synth]

Types: inputs and results ap_fixed<16,6>, accumulators 'auto' (exact, so every product becomes an adder
graph), weights and biases fixed<W,2> with W = --weight-bits (the distributed-arithmetic regime; 16-bit
weights cost about 30 LUTs each). Prints one Markdown table row per model; times are wall-clock seconds
on whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
from mlp_bench import make_model  # noqa: E402

import hls4ml  # noqa: E402

COLUMNS = (
    'model', 'write s', 'verilator s', 'predict samples/s', 'csim samples/s', 'bit-exact', 'stages', 'latency cycles',
    'estimate LUT', 'estimate FF', 'Yosys LUT', 'Yosys FF', 'Yosys CARRY', 'Yosys s',
)  # fmt: skip


def configure(model, weight_bits: int) -> dict:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<16,6>')
    for settings in config['LayerName'].values():
        precision = settings.get('Precision')
        if isinstance(precision, dict) and 'weight' in precision:
            precision.update({'weight': f'fixed<{weight_bits},2>', 'bias': f'fixed<{weight_bits},2>'})
    return config


def timed(function, *args, **keywords):
    start = time.perf_counter()
    result = function(*args, **keywords)
    return result, time.perf_counter() - start


def measure(name: str, samples: int, weight_bits: int, synth: bool, work: str) -> dict:
    model = make_model(name)
    config = configure(model, weight_bits)
    convert = hls4ml.converters.convert_from_keras_model
    vitis = convert(model, hls_config=config, output_dir=f'{work}/{name}_vitis', backend='Vitis')
    verilog = convert(model, hls_config=config, output_dir=f'{work}/{name}_rtl', backend='Verilog')
    _, write = timed(verilog.write)
    _, compile_seconds = timed(verilog.compile)
    x = np.random.default_rng(0).uniform(-4, 4, (samples, *model.input_shape[1:]))
    vitis.compile()
    expected, csim = timed(vitis.predict, x)
    got, rtl = timed(verilog.predict, x)
    simulation = verilog.compiled_simulation('bench')
    estimate = verilog.estimate().total.resources
    row = {
        'model': name, 'write s': write, 'verilator s': compile_seconds, 'predict samples/s': samples / rtl,
        'csim samples/s': samples / csim, 'bit-exact': bool(np.array_equal(got, expected)),
        'stages': simulation.project.stages, 'latency cycles': simulation.latency_cycles(x[:200]),
        'estimate LUT': estimate['LUT'].low, 'estimate FF': estimate['FF'].low,
    }  # fmt: skip
    if synth:
        report = verilog.build()['YosysSynthReport']
        row.update({'Yosys LUT': report['LUT'], 'Yosys FF': report['FF'], 'Yosys CARRY': report['CARRY']})
        row['Yosys s'] = report['Seconds']
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--models', default='mlp,cnn')
    parser.add_argument('--samples', type=int, default=100_000)
    parser.add_argument('--weight-bits', type=int, default=8)
    parser.add_argument('--no-synth', action='store_true')
    arguments = parser.parse_args()
    print('| ' + ' | '.join(COLUMNS) + ' |')
    print('|' + '---|' * len(COLUMNS))
    with tempfile.TemporaryDirectory() as work:
        for name in arguments.models.split(','):
            row = measure(name, arguments.samples, arguments.weight_bits, not arguments.no_synth, work)
            cells = [f'{row[c]:.3g}' if isinstance(row.get(c), float) else str(row.get(c, '-')) for c in COLUMNS]
            print('| ' + ' | '.join(cells) + ' |', flush=True)


if __name__ == '__main__':
    main()
