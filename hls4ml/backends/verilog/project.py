"""The RTL project of a model, rendered in memory: traced graph -> da4ml pipeline -> Verilog files.

    project = render_rtl(design)        # RTLProject: files (relative path -> text) and the facts of the design

Files (relative to the output directory):

    src/<name>.v, src/<name>_stage<i>.v   the pipelined top module and one combinational module per stage
    src/<name>_wrapper.v                  uniform-width ports (model_inp, model_out, clk) for simulation
    src/memfiles/*.mem                    ROM contents (activation tables), read with $readmemh
    src/static/*.v                        da4ml's primitive modules (adders, shifts, ROM, mux)
    sim/<name>_wrapper_binder.cc, sim/*.hh   the Verilator binding (batch inference) da4ml writes
    sim/<name>_latency_probe.cc           ours: measures the input-to-output clock cycles
    tb/<name>_tb.v                        a self-contained testbench reading tb/input.mem
    rtl_report.json                       stages, adder-graph cost, register bits, port formats

da4ml (LGPL-3) is used as a library: its generators produce the Verilog; nothing of it is copied into
hls4ml. Its primitive modules carry Verilator lint pragmas for a code that Verilator 5.006 (Debian 12)
does not know (WIDTHTRUNC); they are written with the older umbrella code WIDTH, which every
Verilator 5 knows and which covers the same warnings.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from hls4ml.backends.base import Design
from hls4ml.backends.verilog.fixed import UnsupportedInRTL
from hls4ml.backends.verilog.trace import TracedGraph, flat_values, import_da4ml, trace_graph, traced_layers
from hls4ml.model.fixed.ports import PortFormat

TEMPLATES = Path(__file__).resolve().parents[2] / 'templates' / 'verilog'
MAX_PORT_BITS = 32  # the Verilator binding moves each value as one int32
DELAY_PER_NS = 1.0  # da4ml latency units (about one adder level) per ns of clock period


@dataclass(frozen=True)
class RTLProject:
    name: str
    files: dict[str, str]
    inputs: PortFormat
    outputs: PortFormat
    stages: int  # pipeline registers between input and output (da4ml's count)
    cost: float  # da4ml's adder-graph cost, in LUTs
    register_bits: int
    latency_cutoff: float
    input_sizes: tuple[int, ...]
    output_sizes: tuple[int, ...]
    layer_costs: dict[str, float]  # da4ml's LUT cost of each layer's own logic (the estimator's rows)
    traces: tuple[tuple[str, tuple[int, ...]], ...] = ()  # a trace build: (layer, shape) after the outputs


def latency_cutoff(design: Design) -> float:
    """The da4ml latency budget per pipeline stage: the config's `LatencyCutoff` (Model section), else the
    clock period in ns times DELAY_PER_NS."""
    configured = design.model_settings.get('LatencyCutoff')
    if configured is not None:
        if not isinstance(configured, (int, float)) or configured <= 0:
            raise ValueError(f'HLSConfig Model LatencyCutoff must be a positive number, got {configured!r}')
        return float(configured)
    return float(design.config['ClockPeriod']) * DELAY_PER_NS


def render_rtl(design: Design) -> RTLProject:
    """Trace, pipeline and render the project (nothing is written)."""
    import_da4ml()  # an ImportError naming the extra, before any other da4ml import
    traced = trace_graph(design.graph)
    return _render(design, design.project_name, traced, [], _layer_costs(design, traced))


def render_trace_rtl(design: Design) -> RTLProject:
    """The trace build, for trace(): a top `<project>_trace` of the same traced program whose output port
    carries, after the model's outputs, the values of every layer trace() reports (`traced_layers`).
    da4ml's pipeline registers every output to the last stage, so a layer's values leave with the
    prediction of the same sample. The project's own module is not changed by it."""
    import_da4ml()
    traced = trace_graph(design.graph)
    layers = traced_layers(design.graph)
    shapes = tuple((layer.name, tuple(design.graph.output_tensor(layer).shape)) for layer in layers)
    extra = [traced.layers[layer.name] for layer in layers]
    return _render(design, f'{design.project_name}_trace', traced, extra, {}, shapes)


def _render(
    design: Design,
    name: str,
    traced: TracedGraph,
    extra: list[Any],
    layer_costs: dict[str, float],
    traces: tuple[tuple[str, tuple[int, ...]], ...] = (),
) -> RTLProject:
    """Pipeline the traced program (its outputs, then `extra` arrays) and render top `name`'s files."""
    from da4ml.codegen.rtl.rtl_model import binder_gen
    from da4ml.codegen.rtl.verilog import generate_io_wrapper, pipeline_logic_gen, table_mem_gen
    from da4ml.trace import comb_trace, to_pipeline

    comb = comb_trace(_joined(traced.inputs), _joined(traced.outputs + extra))
    cutoff = latency_cutoff(design)
    pipeline = to_pipeline(comb, cutoff, verbose=False)
    files = {f'src/{module}.v': code for module, code in pipeline_logic_gen(pipeline, name).items()}
    for stage in pipeline.solutions:
        files.update({f'src/memfiles/{table}': _line_ended(rom) for table, rom in table_mem_gen(stage).items()})
    files[f'src/{name}_wrapper.v'] = generate_io_wrapper(pipeline, name, True)
    files[f'sim/{name}_wrapper_binder.cc'] = binder_gen(pipeline, f'{name}_wrapper', 1, 1)
    files.update(_da4ml_sources())
    side = 'output and traced-layer' if traces else 'output'
    inputs, outputs = _port_format(comb.inp_qint, name, 'input'), _port_format(comb.out_qint, name, side)
    project = RTLProject(
        name,
        files,
        inputs,
        outputs,
        len(pipeline.solutions),
        float(pipeline.cost),
        int(pipeline.reg_bits),
        cutoff,
        tuple(array.size for array in traced.inputs),
        tuple(array.size for array in traced.outputs),
        layer_costs,
        traces,
    )
    files.update(_our_files(project))
    return project


def _layer_costs(design: Design, traced: TracedGraph) -> dict[str, float]:
    """The adder-graph cost of the logic between each layer's inputs and its output."""
    from da4ml.trace import comb_trace

    costs = {}
    for layer in design.graph.layers.values():
        if not layer.inputs:
            continue
        sources = [traced.layers[design.graph.producer(name).name] for name in layer.inputs]
        logic = comb_trace(_joined(sources), _joined([traced.layers[layer.name]]), keep_dead_inputs=True)
        costs[layer.name] = float(logic.cost)
    return costs


def _line_ended(rom: str) -> str:
    """ROM contents ending in a newline: Verilator 5.006's $readmemh drops a last entry without one."""
    return rom if rom.endswith('\n') else rom + '\n'


def _joined(arrays: list[Any]) -> list[Any]:
    return [value for array in arrays for value in flat_values(array)]


def _port_format(qints: Any, name: str, side: str) -> PortFormat:
    """The wrapper's uniform format (da4ml's: the widest sign, integer and fraction of all values)."""
    from da4ml.types import minimal_kif

    kifs = [minimal_kif(qint) for qint in qints]
    signed, integer, fraction = (max(column) for column in zip(*kifs, strict=True))
    port = PortFormat(int(signed), int(integer), int(fraction), len(kifs))
    if port.width > MAX_PORT_BITS:
        raise UnsupportedInRTL(
            f'project {name}: the {side} values need {port.width} bits each in the uniform simulation port '
            f'(at most {MAX_PORT_BITS}); narrow the {side} types'
        )
    return port


def _da4ml_sources() -> dict[str, str]:
    """da4ml's primitive modules and Verilator binding helpers, as its RTL writer lays them out."""
    import da4ml.codegen.rtl as rtl

    root = Path(rtl.__file__).parent
    files = {
        f'src/static/{path.name}': _old_verilator(path.read_text()) for path in sorted(root.glob('verilog/source/*.v'))
    }
    for helper in ('binder_util.hh', 'ioutil.hh'):
        files[f'sim/{helper}'] = (root / 'common_source' / helper).read_text()
    return files


def _old_verilator(source: str) -> str:
    return source.replace('lint_off WIDTHTRUNC', 'lint_off WIDTH').replace('lint_on WIDTHTRUNC', 'lint_on WIDTH')


def _our_files(project: RTLProject) -> dict[str, str]:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )
    context = {'p': project, 'max_cycles': 4 * project.stages + 8}
    name = project.name
    return {
        f'sim/{name}_latency_probe.cc': environment.get_template('latency_probe.cc.j2').render(**context),
        f'tb/{name}_tb.v': environment.get_template('testbench.v.j2').render(**context),
        'rtl_report.json': json.dumps(report_facts(project), indent=2, sort_keys=True) + '\n',
    }


def report_facts(project: RTLProject) -> dict[str, Any]:
    """What rtl_report.json records: the facts a reader needs without rerunning the flow."""
    return {
        'project': project.name,
        'pipeline_stages': project.stages,
        'latency_cutoff': project.latency_cutoff,
        'adder_graph_cost_luts': round(project.cost, 1),
        'register_bits': project.register_bits,
        'input_format': [project.inputs.signed, project.inputs.integer, project.inputs.fraction],
        'output_format': [project.outputs.signed, project.outputs.integer, project.outputs.fraction],
        'input_words': math.ceil(project.inputs.width * project.inputs.count / 32),
        'input_sizes': list(project.input_sizes),
        'output_sizes': list(project.output_sizes),
    }
