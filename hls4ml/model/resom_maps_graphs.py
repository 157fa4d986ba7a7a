"""ReSOM of M >= 2 maps as IR (docs/resom.md, "More than two maps"): M codebooks and one Hebbian matrix per
pair of maps -> a graph of M Inputs and one ReSOMMaps layer (`resom_maps_graph`); the matrices from paired
data (`hebbian_laterals`) and the labels of unlabelled maps by divergence (`divergent_map_labels`).
With two maps `resom_maps_graph` gives the two-map ReSOM layer of `resom_graphs.resom_graph` (unless
`pair_kind=False`), so existing projects keep their code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, RESOM_COMBINES, RESOM_DISTANCES, RESOM_OUTPUTS, RESOM_SOURCES, Kind
from hls4ml.model.reference.resom_maps import MAX_MAPS, pairs
from hls4ml.model.resom_graphs import ALIASES, _check_choice, _finite, hebbian_lateral, resom_graph

Laterals = dict[tuple[int, int], Any] | list[Any] | tuple[Any, ...]


def pair_matrices(laterals: Laterals, units: list[int]) -> dict[tuple[int, int], np.ndarray]:
    """{(i, j): H_ij (units[i], units[j])} for every pair i < j, from a dict keyed by pairs (a key (j, i)
    gives H_ji, used transposed) or a list in `pairs` order; a missing, extra or misshapen matrix is refused."""
    expected = pairs(len(units))
    if not isinstance(laterals, dict):
        if len(laterals) != len(expected):
            raise ValueError(
                f'ReSOM: {len(laterals)} lateral matrices for {len(units)} maps; expected one per pair {expected}'
            )
        laterals = dict(zip(expected, laterals, strict=True))
    matrices: dict[tuple[int, int], np.ndarray] = {}
    for key, values in laterals.items():
        i, j = (int(index) for index in key)
        if (min(i, j), max(i, j)) not in expected or (min(i, j), max(i, j)) in matrices:
            raise ValueError(
                f'ReSOM: lateral {key} is not a pair of distinct maps among 0..{len(units) - 1}, or repeats one'
            )
        array = _finite(f'lateral {key}', values, 2)
        matrices[(min(i, j), max(i, j))] = array if i < j else array.T
    for i, j in expected:
        if (i, j) not in matrices:
            raise ValueError(f'ReSOM: the lateral matrix of maps {i} and {j} is missing (one per pair: {expected})')
        if matrices[(i, j)].shape != (units[i], units[j]):
            raise ValueError(
                f'ReSOM: lateral ({i}, {j}) has shape {matrices[(i, j)].shape}, expected ({units[i]}, {units[j]}) '
                f'(units of map {i} x units of map {j})'
            )
        if (matrices[(i, j)] < 0).any():
            raise ValueError(f'ReSOM: lateral ({i}, {j}) must be non-negative')
    return matrices


def divergent_map_labels(matrices: dict[tuple[int, int], np.ndarray], labels: list[Any]) -> list[np.ndarray]:
    """Every map's labels; unit u of an unlabelled map j takes the label of the labelled unit (of any
    labelled map i) with the largest H_ij[., u] (ties: the lower map, then the lower unit). With two maps
    this is `resom_graphs.divergent_labels`."""
    given = [None if values is None else np.asarray(values, dtype=np.float64) for values in labels]
    labelled = [index for index, values in enumerate(given) if values is not None]
    if not labelled:
        raise ValueError("ReSOM: output 'label' needs the labels of at least one map (one class per unit)")
    result = []
    for j, values in enumerate(given):
        if values is not None:
            result.append(values)
            continue
        columns = [matrices[(i, j)] if i < j else matrices[(j, i)].T for i in labelled]
        stacked = np.concatenate(columns, axis=0)
        candidates = np.concatenate([given[i] for i in labelled])  # type: ignore[misc]
        result.append(candidates[np.argmax(stacked, axis=0)])
    return result


def _labels(matrices: dict, labels: list[Any] | None, units: list[int]) -> np.ndarray:
    if labels is None or len(labels) != len(units):
        raise ValueError(f"ReSOM: output 'label' needs a list of {len(units)} labels (None for an unlabelled map)")
    checked = []
    for index, values in enumerate(labels):
        if values is not None:
            values = _finite(f'labels of map {index}', values, 1)
            if values.size != units[index]:
                raise ValueError(f'ReSOM: {values.size} labels for the {units[index]} units of map {index}')
        checked.append(values)
    every = np.concatenate(divergent_map_labels(matrices, checked))
    if (every < 0).any():
        raise ValueError('ReSOM: labels must be non-negative integers')
    return every


def map_betas(betas: float | list[float], count: int) -> tuple[float, ...]:
    """One beta per map from one number or a list of `count` numbers, each finite and positive."""
    given = list(betas) if isinstance(betas, (list, tuple, np.ndarray)) else [betas] * count
    values = tuple(float(beta) for beta in given)
    if len(values) != count or not all(np.isfinite(beta) and beta > 0 for beta in values):
        raise ValueError(f'ReSOM: betas must be {count} positive numbers (one per map), got {betas}')
    return values


def _checked(codebooks: list[Any], grids: list[tuple[int, int]]) -> list[np.ndarray]:
    if not 2 <= len(codebooks) <= MAX_MAPS or len(grids) != len(codebooks):
        raise ValueError(
            f'ReSOM: {len(codebooks)} codebooks and {len(grids)} grids; expected 2 to {MAX_MAPS} maps, one grid each'
        )
    return [_finite(f'codebook of map {index}', book, 2) for index, book in enumerate(codebooks)]


def resom_maps_graph(
    codebooks: list[Any],
    grids: list[tuple[int, int]],
    laterals: Laterals,
    labels: list[Any] | None = None,
    output: str = 'label',
    distance: str = 'squared_euclidean',
    source: str = 'all',
    combine: str = 'product',
    iterations: int = 1,
    betas: float | list[float] = 1.0,
    pair_kind: bool = True,
) -> tuple[Graph, dict[str, str]]:
    """Inputs 'input_0' .. 'input_{M-1}' and a layer 'resom' (ReSOMMaps; with M = 2 and `pair_kind` the
    two-map ReSOM with inputs 'input_x', 'input_y'). `laterals`: see `pair_matrices`; `labels`: one entry
    per map, None for a map labelled by divergence."""
    books = _checked(codebooks, grids)
    units = [book.shape[0] for book in books]
    matrices, beta = pair_matrices(laterals, units), map_betas(betas, len(books))
    if len(books) == 2 and pair_kind:
        given = labels or [None, None]
        return resom_graph(
            books[0], grids[0], books[1], grids[1], matrices[(0, 1)], given[0], given[1], output, distance,
            source, combine, iterations, beta[0], beta[1],
        )  # fmt: skip
    distance = ALIASES.get(distance, distance)
    for name, value, choices in (
        ('distance', distance, RESOM_DISTANCES),
        ('source', source, RESOM_SOURCES),
        ('combine', combine, RESOM_COMBINES),
        ('output', output, RESOM_OUTPUTS),
    ):
        _check_choice(name, value, choices)
    weights = {f'codebook_{index}': book for index, book in enumerate(books)}
    weights.update({f'lateral_{i}_{j}': values for (i, j), values in matrices.items()})
    if output == 'label':
        weights['labels'] = _labels(matrices, labels, units)
    attributes = {
        'map_inputs': tuple(book.shape[1] for book in books),
        'map_units': tuple(units),
        'grids': tuple(tuple(int(size) for size in grid) for grid in grids),
        'betas': beta,
        'distance': distance,
        'source': source,
        'combine': combine,
        'iterations': int(iterations),
        'output': output,
    }
    return _graph(books, attributes, weights)


def _graph(books: list[np.ndarray], attributes: dict, weights: dict) -> tuple[Graph, dict[str, str]]:
    graph, names = Graph(), [f'input_{index}' for index in range(len(books))]
    for name, book in zip(names, books, strict=True):
        graph.add_layer(Layer(name, Kind.INPUT, [], [name], {'shape': (book.shape[1],)}), [(book.shape[1],)])
        graph.inputs.append(name)
    layer = Layer('resom', Kind.RESOM_MAPS, names, ['resom'], attributes, weights, source_name='resom')
    shapes: list[tuple[int, ...]] = [(book.shape[1],) for book in books]
    graph.add_layer(layer, [LAYER_KINDS[Kind.RESOM_MAPS].output_shape(layer, shapes)])
    graph.outputs.append('resom')
    return graph, {**{name: name for name in names}, 'resom': 'resom'}


def hebbian_laterals(
    codebooks: list[Any],
    data: list[Any],
    rule: str = 'hebb',
    rate: float = 1.0,
    betas: float | list[float] = 1.0,
    distance: str = 'euclidean',
    keep: float = 1.0,
) -> dict[tuple[int, int], np.ndarray]:
    """One matrix per pair of maps, each `resom_graphs.hebbian_lateral` of the two maps' paired samples
    (rule, rate, pruning and the division by its maximum per pair). `codebooks`: (n_units, n_in) arrays or
    trained MiniSoms; `data`: one (n_samples, n_in) array per map, the same samples in the same order."""
    if len(codebooks) != len(data) or len(codebooks) < 2:
        raise ValueError(f'ReSOM: {len(codebooks)} codebooks and {len(data)} data arrays; expected one per map (>= 2)')
    beta = map_betas(betas, len(codebooks))
    return {
        (i, j): hebbian_lateral(
            (codebooks[i], codebooks[j]), (data[i], data[j]), rule, rate, (beta[i], beta[j]), distance, keep
        )
        for i, j in pairs(len(codebooks))
    }
