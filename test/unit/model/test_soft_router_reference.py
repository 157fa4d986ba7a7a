"""The sparse-soft-top-k router (seed-layers.md B.5.8): its float64 definition against vectors derived by
hand from the definitions, its properties, and the fixed-point twin of nnet_router_soft.h (run through
the interpreter, no C++) against the float definition; the refusals name what to change."""

from __future__ import annotations

import math

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin, UnsupportedOperation
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.router import router_exact
from hls4ml.model.reference.soft_router import soft_router_exact
from hls4ml.model.reference.soft_topk_exact import soft_topk_mask_exact

LOGITS = np.array([[2, 1, 0.5, -1, 1, 0, -0.5, 0.25]])  # seed-layers.md C.5
SIGMOID_1 = 1 / (1 + math.exp(-1))
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables, as the Router's


def _settings(**changes) -> dict:
    settings = {'k': 2, 'l': 0.5, 'p': 2, 'iterations': 12, 'k_max': 8}
    return {**settings, 'mask_on': 'logits', 'renormalize': True, 'output': 'gates', **changes}


def test_hand_derived_vector() -> None:
    """k = 2, l = 1 on C.5: sum clip(r - t, 0, 1) = 2 gives t = 0.5 and m = (1, 1/2, 0, 0, 1/2, 0, 0, 0);
    the gates m p / sum(m p) are e^2 / (e^2 + e) = sigmoid(1) and (1 - sigmoid(1)) / 2 twice."""
    gates, overflow = soft_router_exact(LOGITS, 2, 1.0, 'logits', True, 8)
    half = (1 - SIGMOID_1) / 2
    np.testing.assert_allclose(gates[0], [SIGMOID_1, half, 0, 0, half, 0, 0, 0], atol=1e-12)
    assert overflow.tolist() == [0]
    # k_max = 2 keeps experts 0 and 1 (1 beats 4 on the tie) and renormalises: e / (e + 1/2), 1/2 / (e + 1/2)
    gates, overflow = soft_router_exact(LOGITS, 2, 1.0, 'logits', True, 2)
    np.testing.assert_allclose(gates[0, :2], [math.e / (math.e + 0.5), 0.5 / (math.e + 0.5)], atol=1e-12)
    assert gates[0, 2:].tolist() == [0] * 6 and overflow.tolist() == [1]
    probabilities = np.exp(LOGITS[0]) / np.exp(LOGITS[0]).sum()
    gates, _ = soft_router_exact(LOGITS, 2, 1.0, 'logits', False, 8)  # m p, unnormalised
    np.testing.assert_allclose(gates[0], probabilities * [1, 0.5, 0, 0, 0.5, 0, 0, 0], atol=1e-12)


def test_float_properties() -> None:
    logits = np.random.default_rng(3).normal(0, 1.5, (300, 8))
    gates, overflow = soft_router_exact(logits, 2, 0.5, 'logits', True, 3)
    np.testing.assert_allclose(gates.sum(axis=1), 1, atol=1e-12)
    assert ((gates > 0).sum(axis=1) <= 3).all() and ((gates > 0).sum(axis=1) >= 2).all()
    full, _ = soft_router_exact(logits, 2, 0.5, 'logits', True, 8)
    assert ((full > 0).sum(axis=1) == (gates > 0).sum(axis=1) + overflow).all()
    # exactly hard where the k-th and (k+1)-th logits are l apart (B.4): the hard router's gates
    ordered = -np.sort(-logits, axis=1)
    wide = ordered[:, 1] - ordered[:, 2] >= 0.5
    hard, chosen = router_exact(logits[wide], 2, True)
    np.testing.assert_allclose(np.take_along_axis(full[wide], chosen, axis=1), hard, atol=1e-12)
    assert ((full[wide] > 0).sum(axis=1) == 2).all() and wide.sum() > 50


def _interpreted(tmp_path, settings_list: list[dict], x: np.ndarray, shape=(4,)):
    builder = GraphBuilder('full')
    inputs = builder.input(Origin('x', 'input'), shape)
    weight = np.random.default_rng(1).normal(0, 1, (4, 8))
    logits = builder.dense(Origin('gate', 'Linear'), inputs, weight, None)
    for index, settings in enumerate(settings_list):
        routed = builder.soft_router(Origin(f'router{index}', 'SoftTopKRouter'), logits, settings)
        builder.output(routed, Origin(f'router{index}', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    results, per_layer = interpret(ModelGraph(config, graph, origin), x)
    return [result.to_double() for result in results], per_layer['gate'].to_double()


@pytest.mark.parametrize('mask_on', ['logits', 'probabilities'])
def test_fixed_point_against_the_definition(tmp_path, mask_on: str) -> None:
    """The twin's gates within the table tolerance of the float definition of its own logits; the
    renormalised gates sum to 1 within it; the overflow counts agree wherever no mask value is near 0."""
    strength = 0.5 if mask_on == 'logits' else 0.125
    cases = [
        _settings(mask_on=mask_on, l=strength, k_max=3),
        _settings(mask_on=mask_on, l=strength, k_max=3, output='overflow'),
        _settings(mask_on=mask_on, l=strength, renormalize=False),
    ]
    x = np.random.default_rng(0).normal(0, 1, (300, 4))
    (renormalized, overflow, plain), logits = _interpreted(tmp_path, cases, x)
    exact, exact_overflow = soft_router_exact(logits, 2, strength, mask_on, True, 3)
    keys = logits if mask_on == 'logits' else np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    ordered = -np.sort(-keys, axis=1)
    apart = ordered[:, 2] - ordered[:, 3] > TOLERANCE  # the third and fourth keys: k_max picks the same
    assert apart.sum() > 200
    np.testing.assert_allclose(renormalized[apart], exact[apart], atol=TOLERANCE)
    np.testing.assert_allclose(renormalized.sum(axis=1), 1, atol=TOLERANCE)
    assert ((renormalized > 0).sum(axis=1) <= 3).all()
    exact_plain, _ = soft_router_exact(logits, 2, strength, mask_on, False, 8)
    np.testing.assert_allclose(plain, exact_plain, atol=TOLERANCE)
    clear = _support_is_clear(keys, strength)
    assert clear.sum() > 150
    np.testing.assert_array_equal(overflow[clear, 0], exact_overflow[clear])


def _support_is_clear(keys: np.ndarray, strength: float) -> np.ndarray:
    """Rows whose mask support cannot change by rounding: every routed mask value is at least 1/64 and
    every other key at least l/64 below the threshold t = min over routed (key - l m) (t itself where
    some m < 1, an upper bound of it where the mask is hard)."""
    mask = soft_topk_mask_exact(keys, 2, strength)
    routed = mask > 0
    threshold = np.where(routed, keys - strength * mask, np.inf).min(axis=1)
    lowest_mask = np.where(routed, mask, np.inf).min(axis=1)
    highest_other = np.where(routed, -np.inf, keys).max(axis=1)
    return (lowest_mask >= 1 / 64) & (highest_other <= threshold - strength / 64)


@pytest.mark.parametrize(
    ('changes', 'message'),
    [
        ({'p': 1.5}, 'p=1.5: expected p = 2'),
        ({'k_max': 3, 'renormalize': False}, 'k_max=3 < 8 experts needs renormalize=True'),
        ({'k_max': 1}, 'k_max=1 must be between k=2'),
        ({'l': -0.5}, 'l=-0.5'),
        ({'mask_on': 'scores'}, "mask_on='scores'"),
    ],
)
def test_refusals_name_the_setting(changes: dict, message: str) -> None:
    builder = GraphBuilder('full')
    logits = builder.input(Origin('x', 'input'), (8,))
    with pytest.raises(UnsupportedOperation, match=message.replace('(', r'\(')):
        builder.soft_router(Origin('router', 'SoftTopKRouter'), logits, _settings(**changes))
