"""Token-choice MoE routers: the fixed-point reference (the twin of nnet_router.h) against the float
gating and the spec's vectors (seed-layers.md C.5), with its properties: lower index wins ties,
renormalised gates sum to 1, selection on logits equals selection on probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.fixed import quantize
from hls4ml.model.reference import router
from hls4ml.model.reference.router import expert_choice, expert_choice_exact, router_choices, router_exact
from hls4ml.model.tables import softmax_tables
from hls4ml.model.types import FixedPrecisionType, parse_precision

INPUT = parse_precision('fixed<16,6>')
TABLE = parse_precision('fixed<18,8,RND,SAT>')
RESULT = parse_precision('fixed<16,6>')
INDEX = FixedPrecisionType(3, 3, False)
LOGITS = np.array([[2, 1, 0.5, -1, 1, 0, -0.5, 0.25]])  # C.5
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables (a table step of the sum is n / 1024)


def _route(x, k: int, renormalize: bool, output: str, result=RESULT):
    fixed = quantize(np.atleast_2d(x), INPUT)
    exp_spec, inv_spec = softmax_tables(INPUT, TABLE, TABLE, TABLE, k if renormalize else fixed.shape[1])
    return router(fixed, k, renormalize, output, exp_spec, inv_spec, TABLE, result).value


def test_spec_vectors() -> None:
    assert _route(LOGITS, 2, True, 'indices', INDEX).tolist() == [[0, 1]]  # 1 beats 4 on the tie at 1.0
    assert _route(LOGITS, 3, True, 'indices', INDEX).tolist() == [[0, 1, 4]]
    np.testing.assert_allclose(_route(LOGITS, 2, False, 'weights')[0], [0.416689, 0.153291], atol=TOLERANCE)
    np.testing.assert_allclose(_route(LOGITS, 2, True, 'weights')[0], [0.731059, 0.268941], atol=TOLERANCE)
    np.testing.assert_allclose(_route(LOGITS, 1, False, 'weights')[0], [0.416689], atol=TOLERANCE)
    assert _route(LOGITS, 1, True, 'weights')[0].tolist() == [1.0]  # Switch with renormalisation: g = 1
    gates = _route(LOGITS, 2, True, 'gates')[0]
    np.testing.assert_allclose(gates, [0.731059, 0.268941, 0, 0, 0, 0, 0, 0], atol=TOLERANCE)


@pytest.mark.parametrize('renormalize', [False, True])
@pytest.mark.parametrize('k', [1, 2, 3])
def test_against_float_gating(k: int, renormalize: bool) -> None:
    x = quantize(np.random.default_rng(k).normal(0, 1.5, (200, 8)), INPUT).value
    gates, chosen = router_exact(x, k, renormalize)
    np.testing.assert_array_equal(_route(x, k, renormalize, 'indices', INDEX), chosen)
    weights = _route(x, k, renormalize, 'weights')
    np.testing.assert_allclose(weights, gates, atol=TOLERANCE)
    dense = _route(x, k, renormalize, 'gates')
    np.testing.assert_array_equal(np.take_along_axis(dense, chosen, axis=1), weights)
    assert ((dense != 0).sum(axis=1) <= k).all()
    sums = weights.sum(axis=1)
    if renormalize:
        np.testing.assert_allclose(sums, 1, atol=k * TOLERANCE)
    else:
        assert (sums <= 1 + k * TOLERANCE).all()


@pytest.mark.parametrize('output', ['gates', 'weights', 'indices'])
def test_rows_are_routed_one_by_one(output: str) -> None:
    """A sample of 3 tokens (3 rows of 8 logits, row-major) gives each row's result, in row order."""
    tokens = np.random.default_rng(8).integers(-64, 64, (4, 3, 8)) / 16
    tokens[1, 2] = 0  # every logit tied
    fixed = quantize(tokens.reshape(4, -1), INPUT)
    exp_spec, inv_spec = softmax_tables(INPUT, TABLE, TABLE, TABLE, 2)
    rows = router(fixed, 2, True, output, exp_spec, inv_spec, TABLE, RESULT, n_in=8).value.reshape(4, 3, -1)
    for token in range(3):
        alone = router(quantize(tokens[:, token], INPUT), 2, True, output, exp_spec, inv_spec, TABLE, RESULT)
        np.testing.assert_array_equal(rows[:, token], alone.value)


def test_ties_and_selection_on_probabilities() -> None:
    x = quantize(np.random.default_rng(5).integers(-2, 3, (300, 8)).astype(np.float64), INPUT)
    chosen = router_choices(x, 3)
    np.testing.assert_array_equal(chosen, np.argsort(-x.value, axis=1, kind='stable')[:, :3])
    probabilities = np.exp(x.value) / np.exp(x.value).sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(chosen, np.argsort(-probabilities, axis=1, kind='stable')[:, :3])
    renormalized = _route(x.value, 2, True, 'weights')
    tied = x.value[np.arange(300), chosen[:, 0]] == x.value[np.arange(300), chosen[:, 1]]
    np.testing.assert_array_equal(renormalized[tied, 0], renormalized[tied, 1])


def test_unknown_output() -> None:
    with pytest.raises(ValueError, match='unknown router output'):
        _route(LOGITS, 2, True, 'experts')


def test_expert_choice_spec_vectors_and_load() -> None:
    """C.5: expert 0 takes tokens (2, 0), expert 1 (3, 1), expert 2 (4, 3); token 5 gets no expert."""
    spec = np.array([[1, 0, -1], [0.5, 0.5, 0], [2, -1, 0], [0, 1, 1], [-1, 0, 2], [0, 0, 0]])
    exact = expert_choice_exact(spec, 2)
    np.testing.assert_allclose(exact[[2, 0], 0], [0.843795, 0.665241], atol=1e-6)
    np.testing.assert_allclose(exact[[3, 1], 1], [0.422319, 0.383652], atol=1e-6)
    np.testing.assert_allclose(exact[[4, 3], 2], [0.843795, 0.422319], atol=1e-6)
    assert not exact[5].any()
    groups = np.concatenate([spec[np.newaxis], np.random.default_rng(6).integers(-2, 3, (50, 6, 3))])
    fixed = quantize(groups.reshape(len(groups), -1), INPUT)
    exp_spec, inv_spec = softmax_tables(INPUT, TABLE, TABLE, TABLE, 3)
    gates = expert_choice(fixed, 3, 2, exp_spec, inv_spec, TABLE, RESULT).value.reshape(-1, 6, 3)
    np.testing.assert_allclose(gates, expert_choice_exact(groups, 2), atol=TOLERANCE)
    assert ((gates != 0).sum(axis=1) == 2).all()  # every expert's load is exactly the capacity
