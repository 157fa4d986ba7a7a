"""Test helpers of the Verilog backend: the traced program, run by da4ml's own interpreter, against the
reference interpreter (no Verilator): the fast bit-exactness check of the Verilog kinds' logic; and the
skip mark of a test that needs an open tool."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret


def needs_tool(name: str) -> pytest.MarkDecorator:
    """Skip, naming it, where the open tool `name` (the Debian package of that name) is not on PATH."""
    return pytest.mark.skipif(shutil.which(name) is None, reason=f'{name} is not installed (apt-get install {name})')


def assert_program_matches_reference(model: ModelGraph, x: np.ndarray) -> None:
    """The whole traced program (as da4ml evaluates it) equals the reference interpreter on `x`."""
    from da4ml.trace import FixedVariableArray, comb_trace

    from hls4ml.backends.verilog.trace import trace_graph

    traced = trace_graph(model.graph)
    outputs = [value for array in traced.outputs for value in np.asarray(array._vars).ravel()]
    program = comb_trace(
        traced.inputs[0], FixedVariableArray(np.array(outputs, dtype=object), traced.outputs[0].solver_options)
    )
    (name,) = model.graph.inputs
    source = model.graph.layers[model.graph.producer(name).name].types['result']
    got = program.predict(quantize(x.reshape(len(x), -1), source, 'ap').to_double())
    references, _ = interpret(model, x)
    expected = np.concatenate([reference.to_double().reshape(len(x), -1) for reference in references], axis=1)
    assert np.array_equal(got, expected)
