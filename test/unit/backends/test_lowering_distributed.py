"""The printed forms of an adder graph (backends/common/lowering_distributed.py): the typed form's exact
types and power-of-two constants, the C-simulation's raw-integer form, and its fallback when a value would
not fit 62 bits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from unit.estimate.estimate_models import dense_model, raw_weights

from hls4ml.backends.common.distributed import solve_layer
from hls4ml.backends.common.lowering_distributed import adder_graph_code, integer_graph_code

pytest.importorskip('da4ml', reason="da4ml is not installed (pip install 'hls4ml[da]')")


def graph_of(raw: np.ndarray, precision: str = 'fixed<16,6>', weight: str = 'fixed<16,6>', accum: str = 'auto'):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        model = dense_model(
            raw_weights(raw, 16 - int(weight.split(',')[1].rstrip('>'))),
            strategy='distributed_arithmetic',
            types={'weight': weight, 'accum': accum},
            precision=precision,
        )
    layer = model.graph.layers['fc']
    return solve_layer(model.graph, layer, 'ap'), model.graph.input_type(layer)


def test_a_power_of_two_weight_is_a_scaled_input_in_both_forms() -> None:
    """w = 4 * 2**-10 on input 0: no adder; typed: data[0] * 2**-8; integer: x0 scaled by 2**-18 (10 + 8)."""
    graph, data = graph_of(np.array([[4], [0]]))
    typed = adder_graph_code(graph, 'input_t', 'ap')
    assert typed.adders == [] and typed.constants == [('shift_m8', 'ap_ufixed<1,-7>', '0.00390625')]
    assert [(index, operand.source, operand.index) for index, operand in typed.outputs] == [(0, 'data', 0)]
    integer = integer_graph_code(graph, data, 'ap')
    assert integer is not None and integer.inputs == [0]
    assert integer.input_scale == ('ap_ufixed<1,11>', '1024.0')
    assert integer.outputs == [(0, False, 'x', 0, 'shift_m18')]


def test_the_integer_form_is_refused_when_values_exceed_62_bits() -> None:
    """48-bit inputs times 20-bit weights: sums beyond 62 bits run the typed form in C-simulation too."""
    rng = np.random.default_rng(1)
    graph, data = graph_of(rng.integers(-(2**19), 2**19, size=(6, 3)), 'fixed<48,24>', 'fixed<20,4>', 'fixed<80,30>')
    assert max(adder.precision.width for adder in graph.adders) > 62
    assert integer_graph_code(graph, data, 'ap') is None


def test_the_integer_form_divides_out_common_powers_of_two_exactly() -> None:
    """Every divisor is a power of two, every factor too; the types are those of the graph."""
    rng = np.random.default_rng(2)
    graph, data = graph_of(rng.integers(-500, 500, size=(8, 5)))
    integer = integer_graph_code(graph, data, 'ap')
    assert integer is not None and len(integer.adders) == len(graph.adders)
    for _, left, right, divisor in integer.adders:
        for value in (left.factor, right.factor, divisor):
            assert value & (value - 1) == 0
