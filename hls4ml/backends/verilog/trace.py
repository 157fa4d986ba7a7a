"""The typed IR graph expressed with da4ml's traced fixed-point arrays: one combinational program.

    traced = trace_graph(graph)     # inputs, outputs and every layer's values, as FixedVariableArrays

Each tensor is a flat FixedVariableArray in the C++'s row-major (channels-last) order. Every layer's
output is written into the layer's result type with its rounding and overflow modes (`fixed.py`), so the
program computes bit for bit what the C-simulation computes. The per-kind rules are in `layers.py`;
a kind without one is refused by name (`check_graph`), before anything is traced or written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hls4ml.backends.verilog.fixed import UnsupportedInRTL, quantizer
from hls4ml.backends.verilog.layers import RULES
from hls4ml.backends.verilog.products import SOLVER
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind, is_port


def import_da4ml() -> Any:
    """da4ml's trace module, or an ImportError naming the extra that installs it."""
    try:
        import da4ml.trace
    except ImportError as error:  # pragma: no cover - the extra is installed where the tests run
        raise ImportError(
            "the Verilog backend needs da4ml: pip install 'hls4ml[rtl]' (or pip install da4ml)"
        ) from error
    return da4ml.trace


def unsupported_layers(graph: Graph) -> list[str]:
    """Why each layer the Verilog backend cannot express is refused (empty: all supported)."""
    problems = []
    for layer in graph.layers.values():
        rule = RULES.get(layer.kind)
        if rule is None:
            problems.append(f'{layer.describe()}: the Verilog backend has no logic for kind {layer.kind}')
            continue
        problems += rule.check(layer, graph)
        for var, precision in layer.types.items():
            if var == 'result' or var == 'accum':
                try:
                    quantizer(precision, f'{layer.describe()} {var} type')
                except UnsupportedInRTL as error:
                    problems.append(str(error))
    return problems


def check_graph(graph: Graph) -> None:
    """UnsupportedInRTL listing every layer the backend cannot express."""
    problems = unsupported_layers(graph)
    if problems:
        raise UnsupportedInRTL('the Verilog backend cannot implement: ' + '; '.join(problems))


@dataclass
class TracedGraph:
    """The traced program: input arrays (one per model input), output arrays, every layer's values."""

    inputs: list[Any]
    outputs: list[Any]
    layers: dict[str, Any] = field(default_factory=dict)


def trace_graph(graph: Graph) -> TracedGraph:
    """Trace every layer in graph order (the IR's order is topological)."""
    trace = import_da4ml()
    check_graph(graph)
    values: dict[str, Any] = {}
    inputs, per_layer = [], {}
    for layer in graph.layers.values():
        if layer.kind == Kind.INPUT:
            size = graph.output_tensor(layer).size
            port = trace.FixedVariableArrayInput(size, solver_options=SOLVER)
            inputs.append(port)
            output = input_port(port, layer.types['result'], layer.describe())
        else:
            output = RULES[layer.kind].trace(layer, [values[name] for name in layer.inputs], graph)
        values.update(dict.fromkeys(layer.outputs, output))
        per_layer[layer.name] = output
    return TracedGraph(inputs, [values[name] for name in graph.outputs], per_layer)


def traced_layers(graph: Graph) -> list[Layer]:
    """The layers trace() reports, chosen as the C-simulation chooses them: those marked `Trace: True`,
    else every layer after the inputs (clones, which only copy a tensor, are never reported)."""
    computed = [layer for layer in graph.layers.values() if not is_port(layer) and layer.kind != Kind.CLONE]
    marked = [layer for layer in computed if layer.attributes.get('trace')]
    return marked or computed


def input_port(port: Any, precision: Any, where: str) -> Any:
    """The input's bits: predict() writes the inputs into the input type (with its modes) before they
    reach the RTL, so the port only fixes the format (WRAP, TRN: the values already fit)."""
    q = quantizer(precision, f'{where} result type')
    return port.quantize(q.signed, q.integer, q.fraction, 'WRAP', 'TRN')


def flat_values(array: Any) -> np.ndarray:
    """The FixedVariables of an array, flattened."""
    return np.asarray(array._vars).ravel()
