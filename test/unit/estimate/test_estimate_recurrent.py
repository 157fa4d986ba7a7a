"""The recurrent rule (hls4ml/estimate/kinds_recurrent.py) checked by hand on one-feature, one-state
cells whose weights are all the 16-bit constant WIDE (8 signed digits: one DSP per product)."""

from __future__ import annotations

import numpy as np
import pytest
from estimate_models import WIDE, convert, raw_weights

from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.converters.recurrent_parts import Direction, attributes
from hls4ml.estimate.primitives import Range
from hls4ml.model.kinds import Kind

STEPS = 4


def cell_model(kind: str, static: bool, reuse_factor: int = 1, recurrent_reuse_factor: int = 1):
    """x (STEPS, 1) -> one recurrent layer with one state value, every weight WIDE, zero biases."""
    record = {'SimpleRNN': Kind.SIMPLE_RNN, 'LSTM': Kind.LSTM, 'GRU': Kind.GRU}[kind]
    gates = {'SimpleRNN': 1, 'LSTM': 4, 'GRU': 3}[kind]
    weights = raw_weights(np.full((1, gates), WIDE))
    direction = Direction(record, weights, weights.copy(), np.zeros(gates), np.zeros(gates))
    builder = GraphBuilder('off')
    x = builder.input(Origin('x', 'input'), (STEPS, 1))
    y = builder.recurrent(Origin('cell', kind), x, record, attributes(direction, (STEPS, 1), False, False, False))
    builder.output(y, Origin('y', 'output'))
    settings = {
        'Static': static,
        'ReuseFactor': reuse_factor,
        'RecurrentReuseFactor': recurrent_reuse_factor,
        'Precision': {'weight': 'fixed<16,6>', 'recurrent_weight': 'fixed<16,6>', 'accum': 'fixed<40,16>'},
    }
    return convert(builder, {'cell': settings})


def cell(estimate):
    (found,) = [layer for layer in estimate.layers if layer.name == 'cell']
    return found


@pytest.mark.parametrize(('kind', 'dsp'), [('SimpleRNN', 2), ('GRU', 3 + 3 + 3), ('LSTM', 4 + 4 + 3)])
def test_one_cell_counts_its_two_products_and_its_gate_products(kind: str, dsp: int) -> None:
    """Static: one cell. DSPs: gates x 1 input weights + gates x 1 recurrent weights (constants WIDE),
    plus the gate products per state value: none for SimpleRNN, 3 for LSTM (f c, i g, o act(c)) and GRU
    (r (h U_h), z h, z n), each an 18-bit table value times a 16-bit state, one DSP."""
    estimate = cell_model(kind, static=True).estimate()
    assert cell(estimate).resources['DSP'] == Range(dsp, dsp)


@pytest.mark.parametrize('kind', ['SimpleRNN', 'LSTM', 'GRU'])
def test_unrolled_cells_cost_one_cell_per_step_and_start_every_reuse_factor(kind: str) -> None:
    static = cell(cell_model(kind, static=True).estimate())
    unrolled = cell(cell_model(kind, static=False, reuse_factor=2, recurrent_reuse_factor=3).estimate())
    shared = cell(cell_model(kind, static=True, reuse_factor=2, recurrent_reuse_factor=3).estimate())
    assert unrolled.resources['DSP'].high <= STEPS * static.resources['DSP'].high
    assert unrolled.resources['DSP'].high > shared.resources['DSP'].high
    assert unrolled.interval == Range(3, 3)  # max(ReuseFactor, RecurrentReuseFactor)
    assert static.interval == static.latency  # one shared cell: the next inference waits for the last step


def test_static_latency_is_the_steps_one_after_the_other() -> None:
    """latency = STEPS x (slower product + gate depth + loop overhead): a multiple of STEPS."""
    model = cell(cell_model('LSTM', static=True).estimate())
    assert model.latency.low % STEPS == 0 and model.latency.high % STEPS == 0
    assert model.latency.low >= STEPS * 2  # each step at least a product and a table read
