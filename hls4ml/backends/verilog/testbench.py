"""The written testbench, simulated: `build(cosim=True)` on the Verilog backend.

    files = testbench_inputs(design, project)     # {'tb/input.mem': ...} from the config's InputData
    report = run_testbench(design)                # Verilator --binary --timing on tb/<name>_tb.v

The inputs (hls4ml 1.x's `input_data_tb`, a .npy or text file) are written into the input layer's type
and packed one sample a line (`hls4ml/model/fixed/ports.py`); the testbench drives one sample a clock
and writes the packed outputs to tb/output.mem; they are read back into values in
tb/rtl_cosim_results.log (one sample a line, as hls4ml 1.x's cosim writes it). The report has the
keys of the vendor co-simulation report (RTL, Status, Latency, Interval) and the outputs.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.backends.base import Design
from hls4ml.backends.verilog.project import RTLProject
from hls4ml.backends.verilog.tools import find_tool, run_tool
from hls4ml.model.fixed.ports import PortFormat, pack_words, port_values, raw_inputs, unpack_words

VERILATOR_FLAGS = ('--binary', '--timing', '-Wno-fatal', '-Wno-lint', '-Wno-style')


def testbench_inputs(design: Design, project: RTLProject) -> dict[str, str]:
    """tb/input.mem from the config's InputData (none without it)."""
    source = design.config.get('InputData')
    if source is None:
        return {}
    values = np.load(source) if str(source).endswith('.npy') else np.loadtxt(source, ndmin=2)
    rows = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    if rows.shape[1] != sum(project.input_sizes):
        raise ValueError(
            f'InputData {source}: {rows.shape[1]} values a sample, the model takes {sum(project.input_sizes)}'
        )
    arrays = np.split(rows, np.cumsum(project.input_sizes)[:-1], axis=1)
    types = [design.graph.producer(name).types['result'] for name in design.graph.inputs]
    raw, _ = raw_inputs(arrays, types, project.input_sizes, project.inputs)
    return {'tb/input.mem': ''.join(word + '\n' for word in pack_words(raw, project.inputs))}


def output_port(facts: dict[str, Any]) -> PortFormat:
    """The output port's format, as rtl_report.json records it."""
    signed, integer, fraction = facts['output_format']
    return PortFormat(signed, integer, fraction, sum(facts['output_sizes']))


def compile_testbench(folder: Path, name: str) -> Path:
    """The testbench as a Verilator binary (tb/obj_dir/V<name>_tb)."""
    verilator = find_tool('verilator', 'verilator')
    command = [verilator, *VERILATOR_FLAGS, '-j', str(min(os.cpu_count() or 1, 4)), '-Isrc', '-Isrc/static']
    command += ['--top-module', f'{name}_tb', f'tb/{name}_tb.v', f'src/{name}_wrapper.v', '-Mdir', 'tb/obj_dir']
    run_tool(command, folder, 'verilator (testbench)')
    return folder / 'tb' / 'obj_dir' / f'V{name}_tb'


def run_testbench(design: Design) -> dict[str, Any]:
    """Compile and run the written testbench on tb/input.mem; the co-simulation report."""
    folder, name = Path(design.output_dir).resolve(), design.project_name
    inputs = folder / 'tb' / 'input.mem'
    if not inputs.is_file():
        raise ValueError(
            f'build(cosim=True) simulates the testbench on {inputs}, which is not there: convert the model with '
            "input_data_tb='inputs.npy' (hls4ml 1.x's testbench data) so that write() puts the inputs there"
        )
    facts = json.loads((folder / 'rtl_report.json').read_text())
    start = time.perf_counter()
    binary = compile_testbench(folder, name)
    compiled = time.perf_counter()
    outputs = folder / 'tb' / 'output.mem'
    arguments = [str(binary), f'+INPUT={inputs}', f'+OUTPUT={outputs}']
    run_tool(arguments, folder / 'src' / 'memfiles', f'the testbench {binary.name}')
    samples = sum(1 for line in inputs.read_text().splitlines() if line.strip())
    port = output_port(facts)
    words = [line for line in outputs.read_text().splitlines() if line.strip()]
    values = port_values(unpack_words(words, port), port)
    (folder / 'tb' / 'rtl_cosim_results.log').write_text(''.join(_row(row) for row in values))
    return _report(facts, samples, values, compiled - start, time.perf_counter() - compiled)


def _row(values: np.ndarray) -> str:
    return ' '.join(repr(float(value)) for value in values) + '\n'


def _report(facts: dict[str, Any], samples: int, values: np.ndarray, compiling: float, running: float) -> dict:
    latency = int(facts['pipeline_stages']) + 1  # the input register, then the stages
    status = 'Pass' if len(values) == samples else f'Fail: {len(values)} outputs for {samples} inputs'
    return {
        'RTL': 'verilog',
        'Simulator': 'verilator',
        'Status': status,
        'Samples': samples,
        'LatencyMin': latency,
        'LatencyMax': latency,
        'IntervalMin': 1,
        'IntervalMax': 1,
        'CompileSeconds': round(compiling, 2),
        'RunSeconds': round(running, 2),
        'Outputs': values,
    }
