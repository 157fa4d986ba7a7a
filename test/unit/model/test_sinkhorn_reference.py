"""Sinkhorn balancing (seed-layers.md B.5.7): the float64 definition's marginals and a hand vector; the
fixed-point plan (the twin of nnet_router.h's router_sinkhorn) against it, scaled by n/E, within its
bound; its exact column sums; the float PyTorch and Keras balancing against the definition."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.reference.sinkhorn import sinkhorn_exact, sinkhorn_plan
from hls4ml.model.tables import softmax_tables
from hls4ml.model.types import parse_precision

INPUT = parse_precision('fixed<16,6>')
TABLE = parse_precision('fixed<18,8,RND,SAT>')
TOKENS, EXPERTS = 6, 4


def test_definition_marginals_and_hand_vector() -> None:
    logits = np.random.default_rng(2).normal(0, 2, (TOKENS, EXPERTS))
    plan = sinkhorn_exact(logits, 200)
    np.testing.assert_allclose(plan.sum(axis=0), TOKENS / EXPERTS, atol=1e-12)  # the last step: columns
    np.testing.assert_allclose(plan.sum(axis=1), 1, atol=1e-6)  # converged rows
    # 2 tokens, 2 experts, logits (0, log 3) and (0, 0): one iteration, by hand. Rows: (1/4, 3/4), (1/2, 1/2);
    # columns (sums 3/4 and 5/4) to n/E = 1: (1/3, 3/5), (2/3, 2/5)
    hand = sinkhorn_exact(np.array([[0, math.log(3)], [0, 0]]), 1)
    np.testing.assert_allclose(hand, [[1 / 3, 3 / 5], [2 / 3, 2 / 5]], atol=1e-12)


@pytest.mark.parametrize('iterations', [1, 3])
def test_fixed_point_plan(iterations: int) -> None:
    """Columns of the firmware's plan sum to 1 within n LSB (each floor loses < 1 LSB); the plan times
    n/E is within 2^-7 of the definition of the same logits (the exp table's 10 fraction bits)."""
    groups = quantize(np.random.default_rng(0).normal(0, 1.5, (50 * TOKENS, EXPERTS)), INPUT)
    exp_spec, _ = softmax_tables(INPUT, TABLE, TABLE, TABLE, EXPERTS)
    plan = sinkhorn_plan(groups, TOKENS, iterations, exp_spec).to_double().reshape(-1, TOKENS, EXPERTS)
    columns = plan.sum(axis=1)
    assert ((columns <= 1) & (columns > 1 - TOKENS * 2.0**-16)).all()
    exact = sinkhorn_exact(groups.to_double().reshape(-1, TOKENS, EXPERTS), iterations)
    np.testing.assert_allclose(plan * TOKENS / EXPERTS, exact, atol=2.0**-7)


def test_float_layers_balance_as_the_definition() -> None:
    torch = pytest.importorskip('torch')
    from hls4ml.nn.torch_moe import sinkhorn_balance

    logits = np.random.default_rng(1).normal(0, 1, (5, TOKENS, EXPERTS))
    exact = sinkhorn_exact(logits, 3)
    np.testing.assert_allclose(sinkhorn_balance(torch.tensor(logits), 3).numpy(), exact, atol=1e-12)
    pytest.importorskip('keras')
    from hls4ml.nn.keras_moe import sinkhorn_balance as keras_balance

    np.testing.assert_allclose(np.asarray(keras_balance(logits.astype('float32'), 3)), exact, atol=1e-5)
