"""Reference of the conditional mixture of experts (hls4ml/model/reference/moe.py): the float64 form
against a loop written from the definition; the fixed-point twin against the float form within the
gate tables' tolerance, and against the Router and Dense references it is made of, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.reference.dense import dense
from hls4ml.model.reference.moe import moe, moe_exact, soft_moe_exact
from hls4ml.model.reference.router import router, router_choices
from hls4ml.model.tables import softmax_tables, take

EXPERTS, D, OUT = 5, 4, 3
LOGITS, DATA, WEIGHT = 'fixed<16,6>', 'fixed<16,6>', 'fixed<12,2>'
TYPES = {'accum': 'fixed<32,12>', 'gate': 'ufixed<16,1,RND,SAT>', 'gate_accum': 'fixed<18,8,RND,SAT>'}
TYPES['result'] = 'fixed<40,16>'


def _case(seed: int):
    rng = np.random.default_rng(seed)
    x, logits = rng.normal(0, 1, (30, D)), rng.normal(0, 1.5, (30, EXPERTS))
    logits[0] = 0.5  # all tied: experts 0 .. k-1
    kernels, biases = rng.normal(0, 0.5, (EXPERTS, D, OUT)), rng.normal(0, 0.2, (EXPERTS, OUT))
    return x, logits, kernels, biases


def _tables(k: int, renormalize: bool):
    exp_spec, inv_spec = softmax_tables(
        LOGITS, 'fixed<18,8,RND,SAT>', 'fixed<18,8,RND,SAT>', TYPES['gate_accum'], k if renormalize else EXPERTS
    )
    return {'exp_': exp_spec, 'inv_': inv_spec}


def _definition(x, logits, kernels, biases, k, renormalize):
    rows = []
    for features, scores in zip(x, logits, strict=True):
        probabilities = np.exp(scores) / np.exp(scores).sum()
        chosen = sorted(range(EXPERTS), key=lambda e: (-scores[e], e))[:k]
        gates = probabilities[chosen] / (probabilities[chosen].sum() if renormalize else 1.0)
        rows.append(sum(g * (features @ kernels[e] + biases[e]) for g, e in zip(gates, chosen, strict=True)))
    return np.array(rows)


@pytest.mark.parametrize(('k', 'renormalize'), [(1, False), (2, True), (2, False), (3, True)])
def test_float_form_is_the_definition(k: int, renormalize: bool) -> None:
    x, logits, kernels, biases = _case(k)
    expected = _definition(x, logits, kernels, biases, k, renormalize)
    np.testing.assert_allclose(moe_exact(x, logits, kernels, biases, k, renormalize), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(('k', 'renormalize'), [(1, False), (2, True), (3, False)])
def test_fixed_point_twin_near_the_float_form(k: int, renormalize: bool) -> None:
    x, logits, kernels, biases = _case(10 + k)
    xq, lq = quantize(x, DATA), quantize(logits, LOGITS)
    weights, bias = quantize(kernels, WEIGHT), quantize(biases, WEIGHT)
    fixed = moe(xq, lq, [(weights, bias)], k, renormalize, _tables(k, renormalize), TYPES).to_double()
    exact = moe_exact(xq.to_double(), lq.to_double(), weights.to_double(), bias.to_double(), k, renormalize)
    scale = np.abs(np.einsum('ri,eio->reo', xq.to_double(), weights.to_double()) + bias.to_double()).max()
    np.testing.assert_allclose(fixed, exact, rtol=0, atol=k * 2.0**-7 * scale)


def test_twin_is_the_router_times_each_chosen_dense() -> None:
    """Bit for bit: y = sum over the slots of (router gate) * (the chosen expert's Dense in accum)."""
    k, x, logits, kernels, biases = 2, *_case(7)
    xq, lq = quantize(x, DATA), quantize(logits, LOGITS)
    weights, bias = quantize(kernels, WEIGHT), quantize(biases, WEIGHT)
    tables = _tables(k, True)
    got = moe(xq, lq, [(weights, bias)], k, True, tables, TYPES).to_double()
    gates = router(lq, k, True, 'weights', tables['exp_'], tables['inv_'], TYPES['gate_accum'], TYPES['gate'])
    chosen = router_choices(lq, k)
    for row in range(x.shape[0]):
        total = quantize(np.zeros(OUT), TYPES['result'])
        for slot in range(k):
            expert = chosen[row, slot]
            out = dense(take(xq, row), take(weights, expert), take(bias, expert), TYPES['accum'], TYPES['accum'])
            total = (total + take(gates, (row, slot)) * take(out, 0)).cast(TYPES['result'])
        np.testing.assert_array_equal(got[row], total.to_double(), err_msg=f'row {row}')


def test_soft_moe_float_form_matches_the_spec_vector() -> None:
    """seed-layers.md C.5: 3 tokens, 2 experts x 1 slot, Phi = I."""
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    stages = soft_moe_exact(x, np.eye(2), np.zeros((2, 2, 1)), np.zeros((2, 1)))
    np.testing.assert_allclose(
        stages['dispatch'].T, [[0.422319, 0.155362, 0.422319], [0.155362, 0.422319, 0.422319]], atol=1e-6
    )
    np.testing.assert_allclose(stages['combine'], [[0.731059, 0.268941], [0.268941, 0.731059], [0.5, 0.5]], atol=1e-6)
    np.testing.assert_allclose(stages['slot_inputs'], [[0.844638, 0.577681], [0.577681, 0.844638]], atol=1e-6)


def test_soft_moe_float_form_properties() -> None:
    """D columns sum to 1 over the tokens, C rows over the slots; y is C times each slot's expert output."""
    rng = np.random.default_rng(0)
    x, slots = rng.normal(0, 1, (5, 3)), rng.normal(0, 1, (3, 6))
    weights, biases = rng.normal(0, 1, (3, 3, 2)), rng.normal(0, 1, (3, 2))
    stages = soft_moe_exact(x, slots, weights, biases)
    np.testing.assert_allclose(stages['dispatch'].sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(stages['combine'].sum(axis=1), 1.0, atol=1e-12)
    expected = sum(
        stages['combine'][:, [m]] * (stages['slot_inputs'][m] @ weights[m // 2] + biases[m // 2]) for m in range(6)
    )
    np.testing.assert_allclose(stages['y'], expected, atol=1e-12)


def test_ffn_experts_float_form_and_twin() -> None:
    """FFN experts relu(x W + b) W2 + b2: the float form equals the loop; the twin is within the gates'
    tolerance of it on the quantized values (the hidden and accumulator types hold every value)."""
    rng = np.random.default_rng(3)
    x, logits = rng.normal(0, 1, (20, D)), rng.normal(0, 1.5, (20, EXPERTS))
    first = (rng.normal(0, 0.5, (EXPERTS, D, 6)), rng.normal(0, 0.2, (EXPERTS, 6)))
    second = (rng.normal(0, 0.5, (EXPERTS, 6, OUT)), rng.normal(0, 0.2, (EXPERTS, OUT)))
    loop = []
    for features, scores in zip(x, logits, strict=True):
        probabilities = np.exp(scores) / np.exp(scores).sum()
        chosen = sorted(range(EXPERTS), key=lambda e: (-scores[e], e))[:2]
        gates = probabilities[chosen] / probabilities[chosen].sum()
        hidden = [np.maximum(features @ first[0][e] + first[1][e], 0) for e in chosen]
        loop.append(sum(g * (h @ second[0][e] + second[1][e]) for g, h, e in zip(gates, hidden, chosen, strict=True)))
    np.testing.assert_allclose(moe_exact(x, logits, *first, 2, True, second), loop, atol=1e-12)
    xq, lq = quantize(x, DATA), quantize(logits, LOGITS)
    stages = [(quantize(w, WEIGHT), quantize(b, WEIGHT)) for w, b in (first, second)]
    types = {**TYPES, 'hidden': 'fixed<32,12>'}
    fixed = moe(xq, lq, stages, 2, True, _tables(2, True), types).to_double()
    values = [(w.to_double(), b.to_double()) for w, b in stages]
    exact = moe_exact(xq.to_double(), lq.to_double(), *values[0], 2, True, values[1])
    np.testing.assert_allclose(fixed, exact, atol=2 * 2.0**-7 * (np.abs(exact).max() + 1))
