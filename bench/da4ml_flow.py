"""da4ml's OWN flow on an HGQ2 model, measured the way the Verilog backend is measured.

    flow = run_da4ml_flow(model, folder, clock_period=5, part='xcvu13p-flga2577-2-e')   # traced and written
    flow.compile()                      # da4ml's Verilog Verilated, da4ml's binder linked
    flow.predict(x)                     # da4ml's RTLModel.predict on that library
    flow.synthesize()                   # the SAME Yosys script as hls4ml's build() (backends/verilog/build.py)

The flow is da4ml's documented one: `da4ml.converter.trace_model` (HGQ2's tracer plugin: HGQ2 layers only)
-> `comb_trace` -> `VerilogModel(latency_cutoff=...)` -> write/compile/predict. Its pipeline is cut at the
latency budget the Verilog backend uses for the same clock (`DELAY_PER_NS` per ns), so stages compare.

da4ml's Makefile (`RTLModel.compile`) needs a newer Verilator than Debian 12's 5.006: it reads
VERILATOR_ROOT from the last line of `verilator -V` (empty there) and links libverilated.a, which 5.006's
--build does not make. `Da4mlFlow.compile` runs the same two steps itself (verilator --cc --build on
da4ml's wrapper; g++ of da4ml's binder with the Verilator runtime that hls4ml's simulation compiles) and
loads the library through da4ml's RTLModel, whose predict() is then da4ml's own. Before that, da4ml's
files get the two Verilator 5.006 workarounds the Verilog backend applies to its own (docs/verilog.md):
the lint code WIDTHTRUNC written as WIDTH (5.006 rejects the unknown code), and every ROM file ending in
a newline.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.backends.verilog.build import parse_stat, summarize, xilinx_family, yosys_script
from hls4ml.backends.verilog.project import DELAY_PER_NS
from hls4ml.csim.rtl import _runtime, find_tool, rtl_cache, run_tool, verilator_root


@dataclass
class Da4mlFlow:
    """da4ml's RTL model of one HGQ2 model, with the seconds each step took."""

    rtl: Any  # da4ml.codegen.VerilogModel
    folder: Path
    name: str
    part: str
    cost: float  # da4ml's own LUT figure ("Estimated cost" of its RTLModel)
    stages: int
    register_bits: int
    seconds: dict[str, float] = field(default_factory=dict)

    def compile(self) -> None:
        """Verilate da4ml's RTL and link da4ml's binder into the library its RTLModel loads (see the module)."""
        start = time.perf_counter()
        patch_for_old_verilator(self.folder)
        verilator = find_tool('verilator', 'verilator')
        version = run_tool([verilator, '--version'], self.folder, 'verilator').strip()
        root = verilator_root(verilator)
        runtime = _runtime(root, hashlib.sha256(version.encode()).hexdigest()[:12], rtl_cache())
        sim, wrapper = self.folder / 'sim', f'{self.name}_wrapper'
        flags = ['-std=c++17', '-fPIC', '-O']
        command = [
            verilator,
            '--cc',
            '-j',
            '1',
            '--build',
            '-Wno-fatal',
            '-Wno-lint',
            '-Wno-style',
            f'../src/{wrapper}.v',
        ]
        command += ['--prefix', f'V{wrapper}', '-CFLAGS', ' '.join(flags), '-I../src', '-I../src/static']
        run_tool(command, sim, 'verilator')
        stamp = str(uuid.uuid4())
        includes = ['-Iobj_dir', f'-I{root / "include"}', f'-I{root / "include" / "vltstd"}']
        link = ['g++', *flags, '-shared', '-pthread', '-fopenmp', *includes, f'{wrapper}_binder.cc']
        link += [f'obj_dir/V{wrapper}__ALL.a', *map(str, runtime), '-o', f'lib{wrapper}_{stamp}.so']
        run_tool(link, sim, 'g++ (da4ml binder)')
        self.rtl._load_lib(stamp)
        self.seconds['verilator'] = time.perf_counter() - start

    def predict(self, x: np.ndarray) -> np.ndarray:
        """da4ml's RTL on the batch (one row per sample; float64)."""
        start = time.perf_counter()
        outputs = np.asarray(self.rtl.predict(np.asarray(x, dtype=np.float64).reshape(len(x), -1)), dtype=np.float64)
        self.seconds['predict'] = time.perf_counter() - start
        return outputs

    def synthesize(self) -> dict[str, Any]:
        """Yosys on da4ml's Verilog with hls4ml's build() script for the same part: the vendor-like report."""
        yosys = find_tool('yosys', 'yosys')
        source = self.folder / 'src'
        sources = sorted((source / 'static').glob('*.v')) + sorted(source.glob(f'{self.name}*.v'))
        sources = [path for path in sources if not path.name.endswith('_wrapper.v')]
        script = self.folder / 'yosys_synth.ys'
        script.write_text(yosys_script(self.name, sources, xilinx_family(self.part)))
        log = self.folder / 'yosys_synth.log'
        start = time.perf_counter()
        run_tool([yosys, '-q', '-l', str(log), '-s', str(script)], source / 'memfiles', 'yosys')
        report = summarize(parse_stat(log.read_text()))
        report['Seconds'] = round(time.perf_counter() - start, 2)
        return report


def patch_for_old_verilator(folder: Path) -> None:
    """The Verilog backend's two Verilator 5.006 workarounds, applied to da4ml's written project."""
    for path in (folder / 'src').rglob('*.v'):
        text = path.read_text()
        path.write_text(
            text.replace('lint_off WIDTHTRUNC', 'lint_off WIDTH').replace('lint_on WIDTHTRUNC', 'lint_on WIDTH')
        )
    for path in (folder / 'src' / 'memfiles').glob('*.mem'):
        text = path.read_text()
        if text and not text.endswith('\n'):
            path.write_text(text + '\n')


def run_da4ml_flow(
    model: Any, folder: str | Path, clock_period: float = 5, part: str = 'xcvu13p-flga2577-2-e'
) -> Da4mlFlow:
    """Trace `model` (HGQ2) with da4ml's converter, pipeline it at the clock's latency budget and write its
    Verilog into `folder` (not compiled: call `.compile()`)."""
    from da4ml.codegen import VerilogModel
    from da4ml.converter import trace_model
    from da4ml.trace import comb_trace

    folder, name = Path(folder).resolve(), 'da4ml_model'
    start = time.perf_counter()
    inputs, outputs = trace_model(model)
    logic = comb_trace(inputs, outputs)
    traced = time.perf_counter()
    cutoff = clock_period * DELAY_PER_NS
    rtl = VerilogModel(logic, name, folder, latency_cutoff=cutoff, clock_period=clock_period, part_name=part)
    rtl.write()
    seconds = {'trace': traced - start, 'write': time.perf_counter() - traced}
    pipeline = rtl._pipe
    stages = len(pipeline.solutions)
    flow = Da4mlFlow(rtl, folder, name, part, float(logic.cost), stages, int(pipeline.reg_bits), seconds)
    return flow
