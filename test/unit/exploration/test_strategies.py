"""Search strategies on a made-up evaluation: random draws, greedy's bound and its choices."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hls4ml.exploration import strategies
from hls4ml.exploration.front import pareto_mask
from hls4ml.exploration.space import Space

WIDTHS = [(16, 6), (12, 6), (10, 6), (8, 6), (6, 6)]


def _bits(point: dict[str, Any]) -> dict[str, int]:
    return {name: int(value.split('<')[1].split(',')[0]) for name, value in point.items() if 'precision' in name}


def _accuracy(point: dict[str, Any]) -> float:
    """fc1 may go to 8 bits for free, fc2 costs 0.004 a bit below 16 and 0.05 a bit below 10."""
    bits = _bits(point)
    return (
        0.9
        - 0.004 * (16 - bits['precision:fc2'])
        - 0.05 * max(0, 10 - bits['precision:fc2'])
        - (0.2 if bits['precision:fc1'] < 8 else 0.0)
    )


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []

    def __call__(self, points: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
        self.batches.append(points)
        return [{'accuracy': _accuracy(point)} for point in points]


def test_random_draws_distinct_points_of_the_grid_the_same_for_the_same_seed() -> None:
    space = Space(precision={'fc1': WIDTHS, 'fc2': WIDTHS}, reuse_factor=[1, 2, 4])
    grid = list(space.grid())
    first = strategies.random(space, Recorder(), samples=10, seed=3)
    again = strategies.random(space, Recorder(), samples=10, seed=3)
    other = strategies.random(space, Recorder(), samples=10, seed=4)
    points = [point for point, _ in first]
    assert points == [point for point, _ in again] != [point for point, _ in other]
    assert len({str(point) for point in points}) == 10 and all(point in grid for point in points)
    assert len(strategies.random(space, Recorder(), samples=500, seed=0)) == space.size()
    assert [strategies._point_at(space, index) for index in range(space.size())] == grid


def test_greedy_shrinks_each_layer_until_the_bound_and_evaluates_rounds_side_by_side() -> None:
    space = Space(precision={'fc1': WIDTHS, 'fc2': WIDTHS})
    recorder = Recorder()
    trail, chosen = strategies.greedy(space, recorder, tolerance=0.03)
    assert chosen == {'precision:fc1': 'fixed<8,6>', 'precision:fc2': 'fixed<10,6>'}
    bound = 0.9 - 0.03
    assert _accuracy(chosen) >= bound
    assert all(len(batch) <= 2 for batch in recorder.batches[1:])  # one candidate per dimension a round
    # one step further in either dimension leaves the bound
    assert _accuracy({**chosen, 'precision:fc1': 'fixed<6,6>'}) < bound
    assert _accuracy({**chosen, 'precision:fc2': 'fixed<8,6>'}) < bound
    assert trail[0][0] == space.first()


def test_greedy_needs_a_precision_dimension_and_a_working_start() -> None:
    with pytest.raises(ValueError, match='precision dimensions'):
        strategies.greedy(Space(reuse_factor=[1, 2]), Recorder(), tolerance=0.01)

    def failing(points: list, label: str) -> list:
        return [{'error': 'convert: ValueError: no'} for _ in points]

    with pytest.raises(ValueError, match='has no accuracy: convert: ValueError'):
        strategies.greedy(Space(precision=WIDTHS), failing, tolerance=0.01)


def test_the_pareto_front_keeps_non_dominated_points_and_drops_failed_ones() -> None:
    # columns: accuracy (maximised), lut (minimised)
    values = np.array([[0.9, 100], [0.8, 50], [0.85, 120], [0.9, 100], [np.nan, 10], [0.7, 50]])
    mask = pareto_mask(values, [True, False])
    assert mask.tolist() == [True, True, False, True, False, False]
