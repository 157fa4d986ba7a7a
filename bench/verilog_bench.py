"""The Verilog backend against the Vitis C-simulation, HGQ2 and da4ml's own flow: conversion and RTL
generation, Verilator compile, predict throughput and bit-exactness, the measured latency, and LUT/FF from
Yosys against the estimate and da4ml's cost.

    .venv/bin/python bench/verilog_bench.py [--models hgq-cnn,hgq-mlp,mlp,cnn] [--samples 100000]
        [--weight-bits 8] [--no-synth] [--no-sim] [--output bench/results/verilog_flows]

Models: 'mlp' and 'cnn' are the plain Keras models of mlp_bench.py (inputs and results ap_fixed<16,6>,
accumulators 'auto', weights and biases fixed<W,2> with W = --weight-bits), through hls4ml only.
'hgq-mlp' and 'hgq-cnn' are HGQ2 models (hgq_rtl_models.py) through both flows, one row each:
  hls4ml: convert_from_keras_model(backend='Verilog') -> write, compile (Verilator), predict, estimate, build (Yosys);
  da4ml:  da4ml.converter.trace_model -> VerilogModel at the same latency budget -> Verilator -> predict, and
          the same Yosys script on its Verilog (da4ml_flow.py).
'convert s': hls4ml's convert_from_keras_model (parse and passes, no RTL yet) and da4ml's trace_model +
comb_trace (trace and CMVM solve); 'write s': hls4ml's write() (trace, CMVM solve, pipeline, Verilog) and
da4ml's VerilogModel + write() (pipeline, Verilog): compare the sums. Bit-exact columns compare on all
samples: hls4ml's RTL with the Vitis C-simulation of the same model; each flow's RTL with HGQ2's own
inference (`model(x, training=False)`); da4ml's RTL with hls4ml's RTL.
Times are wall-clock seconds on whatever else the machine runs (the load is recorded). Writes
<output>.json (every row) and <output>.md (the table), row by row.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np  # noqa: E402
from da4ml_flow import run_da4ml_flow  # noqa: E402
from hgq_rtl_models import hgq_outputs, make_hgq_model  # noqa: E402
from mlp_bench import make_model  # noqa: E402

import hls4ml  # noqa: E402

COLUMNS = (
    'model', 'flow', 'convert s', 'write s', 'verilator s', 'predict samples/s', 'csim samples/s', 'bit-exact vs csim',
    'bit-exact vs HGQ2', 'bit-exact vs hls4ml RTL', 'stages', 'latency cycles', 'estimate LUT', 'estimate FF',
    'da4ml cost LUT', 'register bits', 'Yosys LUT', 'Yosys FF', 'Yosys CARRY', 'Yosys DSP', 'Yosys s',
)  # fmt: skip
CLOCK_PERIOD = 5
PART = 'xcvu13p-flga2577-2-e'


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


def flat(array: np.ndarray) -> np.ndarray:
    return np.asarray(array, dtype=np.float64).reshape(len(array), -1)


def measure_hls4ml(model, config, x, synth: bool, simulate: bool, work: str) -> tuple[dict, np.ndarray | None]:
    """hls4ml's flow: the row and the RTL's outputs (None without simulation)."""
    convert = hls4ml.converters.convert_from_keras_model
    common = {'hls_config': config, 'part': PART, 'clock_period': CLOCK_PERIOD}
    vitis = convert(model, output_dir=f'{work}/vitis', backend='Vitis', **common)
    verilog, conversion = timed(convert, model, output_dir=f'{work}/rtl', backend='Verilog', **common)
    _, write = timed(verilog.write)
    estimate = verilog.estimate().total.resources
    if not simulate:
        report = verilog.build()['YosysSynthReport'] if synth else {}
        row = {'flow': 'hls4ml', 'convert s': conversion, 'write s': write}
        row.update({'estimate LUT': estimate['LUT'].low, 'estimate FF': estimate['FF'].low, **yosys_columns(report)})
        return row, None
    _, compile_seconds = timed(verilog.compile)
    vitis.compile()
    expected, csim = timed(vitis.predict, x)
    got, rtl = timed(verilog.predict, x)
    simulation = verilog.compiled_simulation('bench')
    row = {
        'flow': 'hls4ml', 'convert s': conversion, 'write s': write, 'verilator s': compile_seconds,
        'predict samples/s': len(x) / rtl,
        'csim samples/s': len(x) / csim, 'bit-exact vs csim': bool(np.array_equal(flat(got), flat(expected))),
        'stages': simulation.project.stages, 'latency cycles': simulation.latency_cycles(x[:200]),
        'estimate LUT': estimate['LUT'].low, 'estimate FF': estimate['FF'].low,
        'da4ml cost LUT': simulation.project.cost, 'register bits': simulation.project.register_bits,
    }  # fmt: skip
    if synth:
        report = verilog.build()['YosysSynthReport']
        row.update(yosys_columns(report))
    return row, flat(got)


def yosys_columns(report: dict) -> dict:
    keys = {'Yosys LUT': 'LUT', 'Yosys FF': 'FF', 'Yosys CARRY': 'CARRY', 'Yosys DSP': 'DSP48E', 'Yosys s': 'Seconds'}
    columns = {column: report[key] for column, key in keys.items() if key in report}
    if columns:
        print(f'Yosys: {columns}', flush=True)  # seen before the model's rows are written
    return columns


def measure_da4ml(model, x, synth: bool, simulate: bool, work: str) -> tuple[dict, np.ndarray | None]:
    """da4ml's own flow on the same HGQ2 model: the row and its RTL's outputs."""
    flow = run_da4ml_flow(model, f'{work}/da4ml', clock_period=CLOCK_PERIOD, part=PART)
    if not simulate:
        row = {'flow': 'da4ml', 'convert s': flow.seconds['trace'], 'write s': flow.seconds['write']}
        row.update({'stages': flow.stages, 'da4ml cost LUT': flow.cost, 'register bits': flow.register_bits})
        return {**row, **(yosys_columns(flow.synthesize()) if synth else {})}, None
    flow.compile()
    got = flow.predict(x)
    row = {
        'flow': 'da4ml', 'convert s': flow.seconds['trace'], 'write s': flow.seconds['write'],
        'verilator s': flow.seconds['verilator'],
        'predict samples/s': len(x) / flow.seconds['predict'], 'stages': flow.stages,
        'da4ml cost LUT': flow.cost, 'register bits': flow.register_bits,
    }  # fmt: skip
    if synth:
        row.update(yosys_columns(flow.synthesize()))
    return row, got


def measure(name: str, samples: int, weight_bits: int, synth: bool, simulate: bool, work: str) -> list[dict]:
    """The rows of one model: hls4ml's flow, and da4ml's for the HGQ2 models."""
    hgq = name.startswith('hgq-')
    model = make_hgq_model(name) if hgq else make_model(name)
    config = None if hgq else configure(model, weight_bits)
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (samples, *model.input_shape[1:])).astype(np.float32 if hgq else np.float64)
    ours, ours_outputs = measure_hls4ml(model, config, x, synth, simulate, f'{work}/{name}')
    if not hgq:
        return [{'model': name, **ours}]
    theirs, their_outputs = measure_da4ml(model, x, synth, simulate, f'{work}/{name}')
    if ours_outputs is None or their_outputs is None:
        return [{'model': name, **ours}, {'model': name, **theirs}]
    reference = hgq_outputs(model, x)
    ours['bit-exact vs HGQ2'] = bool(np.array_equal(ours_outputs, reference))
    theirs['bit-exact vs HGQ2'] = bool(np.array_equal(their_outputs, reference))
    theirs['bit-exact vs hls4ml RTL'] = bool(np.array_equal(their_outputs, ours_outputs))
    return [{'model': name, **ours}, {'model': name, **theirs}]


def markdown_row(row: dict) -> str:
    cells = [f'{row[c]:.3g}' if isinstance(row.get(c), float) else str(row.get(c, '-')) for c in COLUMNS]
    return '| ' + ' | '.join(cells) + ' |'


def write_results(output: Path, rows: list[dict], load: str) -> None:
    output.with_suffix('.json').write_text(json.dumps({'load': load, 'rows': rows}, indent=1) + '\n')
    table = ['| ' + ' | '.join(COLUMNS) + ' |', '|' + '---|' * len(COLUMNS), *map(markdown_row, rows)]
    header = f'Load average at the start (1, 5, 15 min): {load}; clock {CLOCK_PERIOD} ns, part {PART}.\n\n'
    output.with_suffix('.md').write_text(header + '\n'.join(table) + '\n')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--models', default='hgq-cnn,hgq-mlp')
    parser.add_argument('--samples', type=int, default=100_000)
    parser.add_argument('--weight-bits', type=int, default=8)
    parser.add_argument('--no-synth', action='store_true')
    parser.add_argument('--no-sim', action='store_true', help='no Verilator, no predict: resources only')
    parser.add_argument('--output', default=str(Path(__file__).parent / 'results' / 'verilog_flows'))
    arguments = parser.parse_args()
    load = ', '.join(f'{value:.2f}' for value in os.getloadavg())
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as work:
        os.environ['HLS4ML_CACHE_DIR'] = f'{work}/cache'  # cold Verilator compiles: the times are the full builds
        for name in arguments.models.split(','):
            synth, simulate = not arguments.no_synth, not arguments.no_sim
            rows += measure(name, arguments.samples, arguments.weight_bits, synth, simulate, work)
            write_results(Path(arguments.output), rows, load)
            print('\n'.join(markdown_row(row) for row in rows[-2:]), flush=True)


if __name__ == '__main__':
    main()
