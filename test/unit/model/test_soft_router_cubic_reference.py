"""The soft routers with p = 4/3 (docs/moe.md): the float64 definitions against a vector derived by hand and
against a threshold solved here from the definition; the fixed-point twins (the cubic soft top-k kernel)
within the bound of docs/topk.md; the interpreter's gates within the table tolerance of the definition;
the IR and the refusals. No C++ (test/csim/model/test_soft_router_cubic_csim.py compiles)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation
from hls4ml.model.fixed import FixedArray
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_router import (
    soft_expert_choice_exact,
    soft_expert_choice_types,
    soft_mask,
    soft_mask_types,
    soft_router_exact,
)
from hls4ml.model.reference.soft_topk_cubic import CubicTypes, soft_topk_cubic_error_bound
from hls4ml.model.types import FixedPrecisionType

P = 4 / 3
TOLERANCE = 2.0**-7  # the router's 1024-entry exp and reciprocal tables


def _cubic_mask_by_definition(row: np.ndarray, k: int, strength: float) -> np.ndarray:
    """y = clip((x - t) / l, 0, 1)^3 with sum y = k, t by plain bisection over [min x - l, max x]."""
    low, high = row.min() - strength, row.max()
    for _ in range(200):
        middle = (low + high) / 2
        spent = (np.clip((row - middle) / strength, 0, 1) ** 3).sum()
        low, high = (middle, high) if spent >= k else (low, middle)
    return np.clip((row - (low + high) / 2) / strength, 0, 1) ** 3


def test_hand_derived_vector() -> None:
    """x = (3, 1, 1, -5), k = 2, l = 1: 1 + 2 (1 - t)^3 = 2 gives t = 1 - 2^(-1/3) and m = (1, 1/2, 1/2, 0);
    the renormalised gates m e / sum(m e), e = exp(x - 3): (1, e^-2 / 2, e^-2 / 2, 0) / (1 + e^-2)."""
    logits = np.array([[3.0, 1.0, 1.0, -5.0]])
    gates, overflow = soft_router_exact(logits, 2, 1.0, 'logits', True, 4, P)
    tail = math.exp(-2) / 2
    np.testing.assert_allclose(gates[0], np.array([1, tail, tail, 0]) / (1 + math.exp(-2)), atol=1e-12)
    assert overflow.tolist() == [0]
    gates, overflow = soft_router_exact(logits, 2, 1.0, 'logits', True, 2, P)  # k_max = 2: expert 1 beats 2
    np.testing.assert_allclose(gates[0], [1 / (1 + tail), tail / (1 + tail), 0, 0], atol=1e-12)
    assert overflow.tolist() == [1]


def test_float_definition_against_bisection() -> None:
    rng = np.random.default_rng(5)
    logits = rng.normal(0, 1.5, (60, 6))
    gates, _ = soft_router_exact(logits, 2, 0.5, 'logits', False, 6, P)
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    masks = np.array([_cubic_mask_by_definition(row, 2, 0.5) for row in logits])
    np.testing.assert_allclose(gates, masks * probabilities, atol=1e-12)
    group = rng.normal(0, 1, (5, 4))  # (tokens, experts): each expert's column of P, k = capacity = 2
    probabilities = np.exp(group) / np.exp(group).sum(axis=1, keepdims=True)
    columns = np.array([_cubic_mask_by_definition(column, 2, 0.25) for column in probabilities.T]).T
    np.testing.assert_allclose(soft_expert_choice_exact(group, 2, 0.25, P), columns * probabilities, atol=1e-12)


@pytest.mark.parametrize(('strength', 'iterations'), [(0.5, 12), (0.3, 16), (0.125, 14)])
def test_twin_mask_within_the_bound(strength: float, iterations: int) -> None:
    """The router's mask (the cubic kernel's twin) of fixed logits within soft_topk_cubic_error_bound of
    the float64 mask of the same logits, at the kernel's bracket width 2^-iterations."""
    source, mask_type = FixedPrecisionType(16, 6), FixedPrecisionType(13, 1, False)
    raw = np.random.default_rng(7).integers(-4 * 2**10, 4 * 2**10, (400, 8))
    keys = FixedArray.from_raw(raw, source, 'ap')
    types = soft_mask_types(source, mask_type, (8, 3), strength, iterations, P)
    assert isinstance(types, CubicTypes)
    mask = soft_mask(keys, 3, strength, iterations, types, mask_type).to_double()
    exact = np.array([_cubic_mask_by_definition(row, 3, strength) for row in keys.to_double()])
    rounded, per_bracket = soft_topk_cubic_error_bound(types, mask_type, strength, 8)
    assert np.abs(mask - exact).max() <= rounded + per_bracket * 2.0**-iterations


def _graph(tmp_path, settings: dict, strength: float = 0.25) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (3, 4))  # 3 tokens
    weight = np.random.default_rng(1).normal(0, 1, (4, 8))
    logits = builder.dense(Origin('gate', 'Linear'), x, weight, None)
    builder.output(builder.soft_router(Origin('router', 'SoftTopKRouter'), logits, settings), Origin('r', 'out'))
    choice = builder.expert_choice(Origin('choice', 'ExpertChoiceRouter'), logits, 2, strength, 14, P)
    builder.output(choice, Origin('choice', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize('mask_on', ['logits', 'probabilities'])
def test_interpreter_against_the_definition(tmp_path, mask_on: str) -> None:
    strength = 0.5 if mask_on == 'logits' else 0.125
    settings = {'k': 2, 'l': strength, 'p': P, 'iterations': 14, 'k_max': 8, 'mask_on': mask_on}
    model = _graph(tmp_path, settings | {'renormalize': True, 'output': 'gates'})
    assert model.graph.layers['router'].attributes['p'] == P
    assert model.graph.layers['choice'].attributes['p'] == P
    x = np.random.default_rng(0).normal(0, 1, (40, 3, 4))
    (gates, choice), per_layer = interpret(model, x)
    logits = per_layer['gate'].to_double().reshape(-1, 3, 8)
    exact, _ = soft_router_exact(logits.reshape(-1, 8), 2, strength, mask_on, True, 8, P)
    by_token = gates.to_double().reshape(-1, 8, 3).swapaxes(1, 2)  # the outputs are (experts, tokens)
    # on probabilities the keys carry the tables' error, which the cubic ramp's slope (up to 3 / l = 24)
    # magnifies: twice the logits' tolerance (the firmware's mask of its own keys: test_twin_mask_within_the_bound)
    np.testing.assert_allclose(by_token.reshape(-1, 8), exact, atol=TOLERANCE * (1 if mask_on == 'logits' else 2))
    expected = soft_expert_choice_exact(logits, 2, 0.25, P)
    np.testing.assert_allclose(choice.to_double().reshape(-1, 8, 3).swapaxes(1, 2), expected, atol=2.0**-6)
    assert (np.abs(expected - soft_expert_choice_exact(logits, 2, 0.25)) > 4 * 2.0**-6).any()  # p matters


def test_expert_choice_types_follow_p() -> None:
    probability = FixedPrecisionType(16, 6)
    _, linear = soft_expert_choice_types(probability, 6, 2, 0.25, 12)
    _, cubic = soft_expert_choice_types(probability, 6, 2, 0.25, 12, P)
    assert not isinstance(linear, CubicTypes) and isinstance(cubic, CubicTypes)


@pytest.mark.parametrize('p', [1.5, 3.0])
def test_other_p_refused(p: float) -> None:
    builder = GraphBuilder('full')
    logits = builder.input(Origin('x', 'input'), (4, 8))
    settings = {'k': 2, 'l': 0.5, 'p': p, 'iterations': 12, 'k_max': 8}
    settings |= {'mask_on': 'logits', 'renormalize': True, 'output': 'gates'}
    with pytest.raises(UnsupportedOperation, match=f'p={p}: expected p = 2'):
        builder.soft_router(Origin('router', 'SoftTopKRouter'), logits, settings)
    with pytest.raises(UnsupportedOperation, match=f'p={p}'):
        builder.expert_choice(Origin('choice', 'ExpertChoiceRouter'), logits, 2, 0.25, 12, p)
