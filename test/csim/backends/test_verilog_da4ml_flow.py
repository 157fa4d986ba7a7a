"""The Verilog backend beside da4ml's OWN flow on the same HGQ2 model (bench/da4ml_flow.py, the flow the
bench compares with): hls4ml's RTL is bit-exact with the Vitis C-simulation, and the two RTLs, each
Verilated, agree bit for bit with each other and with HGQ2's own inference; both are synthesized by the
same Yosys script and report LUT/FF/CARRY counts. The model is the tiny heterogeneous dense model of
hgq_models (WRAP/RND quantizers, pruned weights). Skips, naming what is missing, without hgq2, da4ml,
Verilator or Yosys (scripts/setup_env.sh installs all four)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip('hgq', reason='HGQ2 is not installed (pip install hls4ml[hgq])')
pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')

import hgq_models  # noqa: E402
from verilog_programs import needs_tool  # noqa: E402

import hls4ml  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / 'bench'))
from da4ml_flow import run_da4ml_flow  # noqa: E402

pytestmark = [
    pytest.mark.csim,
    needs_tool('verilator'),
    needs_tool('yosys'),
]


def test_both_flows_agree_and_report_yosys_counts(tmp_path):
    model = hgq_models.dense_model()
    x = hgq_models.inputs((hgq_models.DENSE_FEATURES,), 5000, seed=11)
    expected = hgq_models.hgq_outputs(model, x)
    convert = hls4ml.converters.convert_from_keras_model
    vitis = convert(model, output_dir=str(tmp_path / 'vitis'), backend='Vitis')
    verilog = convert(model, output_dir=str(tmp_path / 'rtl'), backend='Verilog', clock_period=5)
    verilog.write()
    verilog.compile()
    vitis.compile()
    ours = np.asarray(verilog.predict(x)).reshape(len(x), -1)
    np.testing.assert_array_equal(ours, np.asarray(vitis.predict(x)).reshape(len(x), -1))
    np.testing.assert_array_equal(ours, expected)

    flow = run_da4ml_flow(model, tmp_path / 'da4ml', clock_period=5)
    flow.compile()
    np.testing.assert_array_equal(flow.predict(x), expected)
    assert flow.stages == verilog.compiled_simulation('test').project.stages  # one latency budget, one pipeline

    theirs, ours_report = flow.synthesize(), verilog.build()['YosysSynthReport']
    for report in (theirs, ours_report):
        assert report['LUT'] > 0 and report['FF'] > 0 and report['CARRY'] > 0
    # the same traced arithmetic: da4ml's cost and Yosys' counts of the two designs within a fifth of each other
    assert abs(ours_report['LUT'] - theirs['LUT']) <= 0.2 * theirs['LUT']
    assert abs(verilog.estimate().total.resources['LUT'].low - flow.cost) <= 0.2 * flow.cost


def test_heterogeneous_saturating_quantizers_are_bit_exact(tmp_path):
    """HGQ2's per-element quantizers (FixedPointQuantizer: SAT/TRN, pruned elements) around a convolution
    and max pooling: the RTL equals HGQ2 and the C-simulation bit for bit."""
    model = hgq_models.conv_model()
    x = hgq_models.inputs(hgq_models.CONV_SHAPE, 3000, seed=12)
    convert = hls4ml.converters.convert_from_keras_model
    vitis = convert(model, output_dir=str(tmp_path / 'vitis'), backend='Vitis')
    verilog = convert(model, output_dir=str(tmp_path / 'rtl'), backend='Verilog')
    kinds = [layer.kind for layer in verilog.graph.layers.values()]
    assert kinds.count('FixedPointQuantizer') == 3
    verilog.compile()
    vitis.compile()
    got = np.asarray(verilog.predict(x)).reshape(len(x), -1)
    np.testing.assert_array_equal(got, hgq_models.hgq_outputs(model, x))
    np.testing.assert_array_equal(got, np.asarray(vitis.predict(x)).reshape(len(x), -1))
