"""Capacity-limited token choice (seed-layers.md B.5.4): the priority rule written plainly here (a
queue of choices, first choices before second ones, earlier tokens first) against the twin's
`capacity_kept` and the float PyTorch and Keras versions; the spec's properties; the capacity formula."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.reference.router import capacity_from_factor, capacity_kept


def _plain(chosen: np.ndarray, capacity: int) -> np.ndarray:
    """One group (tokens, k): walk the choices in priority order, counting what each expert took."""
    tokens, k = chosen.shape
    taken: dict[int, int] = {}
    kept = np.zeros(chosen.shape, dtype=bool)
    for rank in range(k):
        for token in range(tokens):
            expert = int(chosen[token, rank])
            if taken.get(expert, 0) < capacity:
                taken[expert] = taken.get(expert, 0) + 1
                kept[token, rank] = True
    return kept


def _choices(groups: int, tokens: int, experts: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(5)
    return np.stack([[rng.permutation(experts)[:k] for _ in range(tokens)] for _ in range(groups)])


def test_hand_vector() -> None:
    """Four tokens all choosing expert 0 first and 1 second, C = 2: tokens 0 and 1 keep expert 0; the
    second choices are then considered: tokens 0 and 1 take expert 1's two places, 2 and 3 get nothing."""
    chosen = np.array([[[0, 1]] * 4])
    assert capacity_kept(chosen, 3, 2)[0].tolist() == [[True, True], [True, True], [False, False], [False, False]]
    # a token's second choice waits for every first choice: token 3's first choice (1) beats token 0's second
    chosen = np.array([[[0, 1], [0, 2], [2, 0], [1, 0]]])
    assert capacity_kept(chosen, 3, 1)[0].tolist() == [[True, False], [False, False], [True, False], [True, False]]


@pytest.mark.parametrize('capacity', [1, 2, 3, 8])
def test_priority_rule_and_load(capacity: int) -> None:
    chosen = _choices(20, 8, 4, 2)
    kept = capacity_kept(chosen, 4, capacity)
    for group in range(20):
        np.testing.assert_array_equal(kept[group], _plain(chosen[group], capacity))
        load = np.bincount(chosen[group][kept[group]], minlength=4)
        assert (load <= capacity).all()
    if capacity >= 8:  # an expert can never be offered more than the group's tokens: dropless
        assert kept.all()


def test_float_modules_follow_the_rule() -> None:
    torch = pytest.importorskip('torch')
    from hls4ml.nn.torch_moe import capacity_kept as torch_kept

    chosen = _choices(10, 6, 5, 2)
    expected = capacity_kept(chosen, 5, 2)
    np.testing.assert_array_equal(torch_kept(torch.tensor(chosen), 5, 2).numpy(), expected)
    pytest.importorskip('keras')
    from hls4ml.nn.keras_moe import capacity_kept as keras_kept

    np.testing.assert_array_equal(np.asarray(keras_kept(chosen.astype('int32'), 5, 2)), expected)


def test_capacity_from_factor() -> None:
    assert capacity_from_factor(16, 2, 8, 1.0) == 4  # ceil(16 * 2 / 8) = 4
    assert capacity_from_factor(16, 2, 8, 1.25) == 8  # ceil(5) = 5, up to a multiple of 4
    assert capacity_from_factor(16, 2, 8, 1.25, multiple_of=1) == 5
    assert capacity_from_factor(6, 2, 4, 4.0) == 6  # at most the group's tokens
