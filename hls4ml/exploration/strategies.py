"""Search strategies: which points to evaluate. Each asks `evaluate(points, label)` for records (the
results cache answers what was computed before, so every strategy resumes where a stopped run was)
and returns the points and records in the order it evaluated them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hls4ml.exploration.space import Point, Space

Evaluate = Callable[[list[Point], str], list[dict[str, Any]]]
Trail = list[tuple[Point, dict[str, Any]]]


def grid(space: Space, evaluate: Evaluate) -> Trail:
    """Every point of the space."""
    points = list(space.grid())
    return list(zip(points, evaluate(points, 'grid'), strict=True))


def random(space: Space, evaluate: Evaluate, samples: int, seed: int) -> Trail:
    """`samples` distinct points drawn with a seeded generator (the same seed draws the same points)."""
    if samples < 1:
        raise ValueError(f'random search: samples must be at least 1, got {samples}')
    size = space.size()
    indices = np.random.default_rng(seed).choice(size, size=min(samples, size), replace=False)
    points = [_point_at(space, int(index)) for index in indices]
    return list(zip(points, evaluate(points, 'random'), strict=True))


def _point_at(space: Space, index: int) -> Point:
    """The index-th point of `space.grid()` (mixed radix, the last dimension fastest)."""
    point = {}
    for name, values in reversed(list(space.dimensions.items())):
        index, digit = divmod(index, len(values))
        point[name] = values[digit]
    return {name: point[name] for name in space.dimensions}


def greedy(space: Space, evaluate: Evaluate, tolerance: float, minimum: float | None = None) -> tuple[Trail, Point]:
    """Shrink per-layer (or model) precision one step at a time while the accuracy stays within the bound.

    The start is every dimension's first value (list each precision from wide to narrow). Each round
    evaluates, side by side, one more step down for every precision dimension not yet stopped, and
    takes the candidate of highest accuracy among those within the bound (ties: the earlier
    dimension); a dimension whose next step leaves the bound, or fails, stops there. The bound is
    `minimum` if given, else the start's accuracy minus `tolerance`. Returns the trail and the chosen point."""
    dimensions = [name for name in space.dimensions if name.split(':', 1)[0] == 'precision']
    if not dimensions:
        raise ValueError('greedy search needs precision dimensions in the space (precision=[...] or {layer: [...]})')
    current = space.first()
    start = evaluate([current], 'greedy start')[0]
    if 'error' in start or 'accuracy' not in start:
        raise ValueError(f'greedy search: the starting point {current} has no accuracy: {start.get("error", "")}')
    bound = minimum if minimum is not None else start['accuracy'] - tolerance
    trail: Trail = [(current, start)]
    steps = dict.fromkeys(dimensions, 0)
    stopped: set[str] = set()
    for round_number in range(1, sum(len(space.dimensions[name]) for name in dimensions) + 1):
        candidates = _candidates(space, current, steps, stopped)
        if not candidates:
            break
        records = evaluate([point for _, point in candidates], f'greedy round {round_number}')
        trail += [(point, record) for (_, point), record in zip(candidates, records, strict=True)]
        within = []
        for order, ((name, point), record) in enumerate(zip(candidates, records, strict=True)):
            if 'error' in record or record['accuracy'] < bound:
                stopped.add(name)
            else:
                within.append((record['accuracy'], -order, name, point))
        if not within:
            break
        _, _, name, current = max(within, key=lambda item: item[:2])
        steps[name] += 1
    return trail, current


def _candidates(space: Space, current: Point, steps: dict[str, int], stopped: set[str]) -> list[tuple[str, Point]]:
    candidates = []
    for name, step in steps.items():
        values = space.dimensions[name]
        if name not in stopped and step + 1 < len(values):
            candidates.append((name, {**current, name: values[step + 1]}))
    return candidates
