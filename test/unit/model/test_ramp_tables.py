"""The tables of the functions that tend to 0 below and to x above (softplus, GELU in both forms,
SiLU): where the table ends the kernel's limits are as good as an entry, and every input of the
type is within one step times the slope of the float function."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.model import reference
from hls4ml.model.fixed import FixedArray
from hls4ml.model.tables import FUNCTIONS, RAMP_FUNCTIONS, activation_table, parse_precision

TABLE = 'fixed<18,8,TRN,WRAP,0>'
RESULT = 'fixed<16,6>'
MAX_SLOPES = {'softplus': 1.0, 'gelu': 1.13, 'gelu_tanh': 1.13, 'silu': 1.10}


def test_gelu_and_silu_are_the_framework_functions() -> None:
    x = np.array([-3.0, -0.5, 0.0, 0.7, 2.5])
    exact = np.array([value * 0.5 * (1 + math.erf(value / math.sqrt(2))) for value in x])
    np.testing.assert_allclose(FUNCTIONS['gelu'](x), exact, rtol=1e-12)
    inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    np.testing.assert_allclose(FUNCTIONS['gelu_tanh'](x), 0.5 * x * (1 + np.tanh(inner)), rtol=1e-12)
    np.testing.assert_allclose(FUNCTIONS['silu'](x), x / (1 + np.exp(-x)), rtol=1e-12)


@pytest.mark.parametrize('function', RAMP_FUNCTIONS)
def test_beyond_the_table_the_limits_are_within_half_an_lsb(function: str) -> None:
    spec = activation_table(function, 'fixed<16,6>', TABLE)
    half = 2.0**-10 / 2
    below, above = np.array([spec.lo - spec.step]), np.array([spec.hi])
    assert abs(FUNCTIONS[function](below)[0]) < half
    assert abs(FUNCTIONS[function](above)[0] - above[0]) < half


@pytest.mark.parametrize('function', RAMP_FUNCTIONS)
def test_every_input_is_within_one_step_times_the_slope(function: str) -> None:
    """All 2**16 inputs of fixed<16,6> through the reference kernel (the C++ twin)."""
    input_type = parse_precision('fixed<16,6>')
    x = FixedArray.from_raw(np.arange(-(2**15), 2**15).reshape(1, -1), input_type, 'ap')
    spec = activation_table(function, input_type, TABLE)
    got = getattr(reference, function)(x, spec, RESULT).to_double().reshape(-1)
    exact = FUNCTIONS[function](x.to_double().reshape(-1))
    bound = spec.step * MAX_SLOPES[function] + 2 * 2.0**-10
    assert np.max(np.abs(got - exact)) <= bound
