"""Resources from Yosys: the written RTL synthesized, its cells counted into a vendor-like report.

    report = build_project(design)  # {'YosysSynthReport': {'LUT': ..., 'FF': ..., 'CARRY': ..., 'DSP48E': ...}}

With a Xilinx part, `synth_xilinx -family <its family>` maps to that family's primitives (LUT1-6, FDRE...,
CARRY4/CARRY8, DSP48E1/E2, RAMB); with `target='generic'` (or a part of another vendor) `synth -lut 6`
maps to generic 6-input LUTs and flip-flops. The keys follow the Vivado synthesis report of the HLS
backends (LUT, FF, DSP48E, BRAM_18K, URAM), with CARRY added; `Cells` has every cell type's count.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from hls4ml.backends.base import Design
from hls4ml.backends.verilog.testbench import run_testbench
from hls4ml.backends.verilog.tools import find_tool, run_tool

FAMILIES = (  # (part name prefix, synth_xilinx family), first match wins
    ('xcvu', 'xcup'),
    ('xcku', 'xcup'),
    ('xczu', 'xcup'),
    ('xcau', 'xcup'),
    ('xcu', 'xcup'),
    ('xc7', 'xc7'),
    ('xc6s', 'xc6s'),
)
TARGETS = ('auto', 'xilinx', 'generic')


def xilinx_family(part: str) -> str | None:
    """synth_xilinx's family of a Xilinx part (UltraScale parts without 'p' map to xcu)."""
    lowered = part.lower()
    for prefix, family in FAMILIES:
        if lowered.startswith(prefix):
            if family == 'xcup' and re.match(r'xc(vu|ku)\d+-', lowered):  # UltraScale (no 'p')
                return 'xcu'
            return family
    return None


def yosys_script(name: str, sources: list[Path], family: str | None) -> str:
    reads = '\n'.join(f'read_verilog -defer {source}' for source in sources)
    if family is None:
        mapping = f'synth -top {name} -flatten\nabc -lut 6\nopt_clean'
    else:
        mapping = f'synth_xilinx -top {name} -family {family} -flatten -noiopad'
    # ROMs become logic first: Yosys 0.23 finds no LUT-RAM mapping for some of them (read-only, $readmemh)
    roms = 'proc\nflatten\nopt_clean\nmemory -nomap\nmemory_map\nopt'
    return f'{reads}\nhierarchy -top {name}\n{roms}\n{mapping}\nstat\n'


def parse_stat(output: str) -> dict[str, int]:
    """Cell type -> count from the last `stat` of a Yosys log."""
    section = output.rsplit('Number of cells:', 1)[-1]
    cells = {}
    for line in section.splitlines()[1:]:
        match = re.match(r'\s+(\$?[\w$]+)\s+(\d+)\s*$', line)
        if match:
            cells[match.group(1)] = int(match.group(2))
        elif cells and line.strip() == '':
            break
    return cells


def summarize(cells: dict[str, int]) -> dict[str, Any]:
    """The vendor-like totals of a cell count."""

    def total(pattern: str) -> int:
        return sum(count for cell, count in cells.items() if re.fullmatch(pattern, cell))

    return {
        'LUT': total(r'LUT[1-6]|\$lut'),
        'FF': total(r'FD\w*|\$_DFF\w*|\$_SDFF\w*|\$_DFFE\w*|\$_SDFFE\w*|\$dff'),
        'CARRY': total(r'CARRY\d|MUXCY|XORCY'),
        'DSP48E': total(r'DSP48\w*'),
        'BRAM_18K': total(r'RAMB18\w*') + 2 * total(r'RAMB36\w*'),
        'URAM': total(r'URAM\w*'),
        'LUTRAM': total(r'RAM\d+[SDMX]\w*'),
        'Cells': dict(sorted(cells.items())),
    }


def build_project(design: Design, target: str = 'auto', synth: bool = True, cosim: bool = False) -> dict[str, Any]:
    """The reports of the project written in the output directory: `synth`, Yosys' resources
    ('YosysSynthReport'; `target`: 'auto' (synth_xilinx for a Xilinx part, else generic), 'xilinx' or
    'generic' (synth -lut 6)); `cosim`, the written testbench simulated with Verilator on the
    InputData ('CosimReport', hls4ml/backends/verilog/testbench.py)."""
    if target not in TARGETS:
        raise ValueError(f'target must be one of {TARGETS}, got {target!r}')
    reports = {}
    if cosim:
        reports['CosimReport'] = run_testbench(design)
    if synth:
        reports.update(synthesize(design, target))
    return reports


def synthesize(design: Design, target: str) -> dict[str, Any]:
    """Yosys on src/: {'YosysSynthReport': the vendor-like totals}."""
    yosys = find_tool('yosys', 'yosys')
    folder, name = Path(design.output_dir).resolve(), design.project_name
    family = None if target == 'generic' else xilinx_family(str(design.config.get('Part', '')))
    if target == 'xilinx' and family is None:
        raise ValueError(f"part {design.config.get('Part')!r} has no Yosys synth_xilinx family; use target='generic'")
    sources = sorted((folder / 'src' / 'static').glob('*.v')) + sorted((folder / 'src').glob(f'{name}*.v'))
    sources = [source for source in sources if not source.name.endswith('_wrapper.v')]
    memfiles = folder / 'src' / 'memfiles'
    memfiles.mkdir(parents=True, exist_ok=True)
    script = folder / 'yosys_synth.ys'
    script.write_text(yosys_script(name, sources, family))
    start = time.perf_counter()
    run_tool([yosys, '-q', '-l', str(folder / 'yosys_synth.log'), '-s', str(script)], memfiles, 'yosys')
    log = (folder / 'yosys_synth.log').read_text()
    report = summarize(parse_stat(log))
    report['Target'] = f'synth_xilinx -family {family}' if family else 'synth -lut 6'
    report['Seconds'] = round(time.perf_counter() - start, 2)
    return {'YosysSynthReport': report}
