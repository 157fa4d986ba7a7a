"""ReSOM as IR: two SOM codebooks and their Hebbian lateral matrix -> a graph of two Inputs and one ReSOM
layer (`resom_graph`), and the math that makes the matrix and the labels from data (`hebbian_lateral`,
`divergent_labels`; docs/resom.md). The MiniSom entry point (`hls4ml.converters.resom`) and the Keras and
PyTorch ReSOM layers of `hls4ml.nn` all build on these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, RESOM_COMBINES, RESOM_DISTANCES, RESOM_OUTPUTS, RESOM_SOURCES, Kind

ALIASES = {'euclidean': 'squared_euclidean'}


def _finite(name: str, values: Any, dimensions: int) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != dimensions:
        raise ValueError(f'ReSOM: {name} must have {dimensions} dimensions, got shape {array.shape}')
    if not np.isfinite(array).all():
        raise ValueError(f'ReSOM: {name} holds NaN or infinite values')
    return array


def divergent_labels(lateral: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Labels of the other map: unit j takes labels[argmax_i lateral[i, j]] (ties: the lowest i)."""
    return np.asarray(labels, dtype=np.float64)[np.argmax(lateral, axis=0)]


def _labels(lateral: np.ndarray, labels_x: Any, labels_y: Any) -> np.ndarray:
    """The x labels then the y labels; a missing side by divergence from the other."""
    if labels_x is None and labels_y is None:
        raise ValueError("ReSOM: output 'label' needs labels_x or labels_y (one class per unit)")
    given = {}
    for side, values, units in (('x', labels_x, lateral.shape[0]), ('y', labels_y, lateral.shape[1])):
        if values is not None:
            given[side] = _finite(f'labels_{side}', values, 1)
            if given[side].size != units:
                raise ValueError(f'ReSOM: {given[side].size} labels_{side} for {units} units')
    x = given['x'] if 'x' in given else divergent_labels(lateral.T, given['y'])
    y = given['y'] if 'y' in given else divergent_labels(lateral, x)
    if (np.concatenate([x, y]) < 0).any():
        raise ValueError('ReSOM: labels must be non-negative integers')
    return np.concatenate([x, y])


def _check_choice(name: str, value: Any, choices: tuple) -> None:
    if value not in choices:
        raise ValueError(f'ReSOM: unsupported {name} {value!r}; expected one of {", ".join(map(str, choices))}')


def resom_graph(
    codebook_x: Any,
    grid_x: tuple[int, int],
    codebook_y: Any,
    grid_y: tuple[int, int],
    lateral: Any,
    labels_x: Any = None,
    labels_y: Any = None,
    output: str = 'label',
    distance: str = 'squared_euclidean',
    source: str = 'all',
    combine: str = 'product',
    iterations: int = 1,
    beta_x: float = 1.0,
    beta_y: float = 1.0,
) -> tuple[Graph, dict[str, str]]:
    """Inputs 'input_x' and 'input_y' and a ReSOM layer 'resom' (attributes: docs/resom.md)."""
    distance = ALIASES.get(distance, distance)
    for name, value, choices in (
        ('distance', distance, RESOM_DISTANCES),
        ('source', source, RESOM_SOURCES),
        ('combine', combine, RESOM_COMBINES),
        ('output', output, RESOM_OUTPUTS),
    ):
        _check_choice(name, value, choices)
    codebooks = [_finite('codebook_x', codebook_x, 2), _finite('codebook_y', codebook_y, 2)]
    weights = _finite('lateral', lateral, 2)
    if weights.shape != (codebooks[0].shape[0], codebooks[1].shape[0]):
        raise ValueError(
            f'ReSOM: lateral {weights.shape} does not match the codebooks ({codebooks[0].shape[0]} x units, '
            f'{codebooks[1].shape[0]} y units)'
        )
    if (weights < 0).any():
        raise ValueError('ReSOM: the lateral (Hebbian) matrix must be non-negative')
    if min(beta_x, beta_y) <= 0 or not np.isfinite([beta_x, beta_y]).all():
        raise ValueError(f'ReSOM: beta_x and beta_y must be positive, got {beta_x} and {beta_y}')
    graph = Graph()
    for side, codebook in zip(('x', 'y'), codebooks, strict=True):
        name = f'input_{side}'
        graph.add_layer(Layer(name, Kind.INPUT, [], [name], {'shape': (codebook.shape[1],)}), [(codebook.shape[1],)])
        graph.inputs.append(name)
    layer_weights = {'codebook_x': codebooks[0], 'codebook_y': codebooks[1], 'lateral': weights}
    if output == 'label':
        layer_weights['labels'] = _labels(weights, labels_x, labels_y)
    attributes = {
        'n_in': codebooks[0].shape[1],
        'n_in_y': codebooks[1].shape[1],
        'n_units_x': codebooks[0].shape[0],
        'n_units_y': codebooks[1].shape[0],
        'grid_x': tuple(grid_x),
        'grid_y': tuple(grid_y),
        'distance': distance,
        'source': source,
        'combine': combine,
        'iterations': int(iterations),
        'beta_x': float(beta_x),
        'beta_y': float(beta_y),
        'output': output,
    }
    layer = Layer(
        'resom', Kind.RESOM, ['input_x', 'input_y'], ['resom'], attributes, layer_weights, source_name='resom'
    )
    shapes: list[tuple[int, ...]] = [(codebooks[0].shape[1],), (codebooks[1].shape[1],)]
    graph.add_layer(layer, [LAYER_KINDS[Kind.RESOM].output_shape(layer, shapes)])
    graph.outputs.append('resom')
    return graph, {'input_x': 'input_x', 'input_y': 'input_y', 'resom': 'resom'}


def _float_activities(data: np.ndarray, codebook: np.ndarray, distance: str, beta: float) -> np.ndarray:
    """(n_samples, n_units) max-normalised activities exp(-(d_n - d_bmu) / beta), in float64; the
    Euclidean distance is not squared (Khacef et al., spec A.4)."""
    gaps = data[:, None, :] - codebook[None, :, :]
    if distance == 'manhattan':
        distances = np.abs(gaps).sum(axis=2)
    elif distance == 'chebyshev':
        distances = np.abs(gaps).max(axis=2)
    else:
        distances = np.sqrt((gaps**2).sum(axis=2))
    return np.exp(-(distances - distances.min(axis=1, keepdims=True)) / beta)


def hebbian_lateral(
    codebooks: tuple[Any, Any],
    data: tuple[Any, Any],
    rule: str = 'hebb',
    rate: float = 1.0,
    betas: tuple[float, float] = (1.0, 1.0),
    distance: str = 'euclidean',
    keep: float = 1.0,
) -> np.ndarray:
    """Offline Hebbian learning (spec A.9) of the lateral matrix from paired unlabelled samples, in float64.

    rule 'hebb': H += rate * outer(a_x, a_y); 'bmu': H[bmu_x, bmu_y] += rate; 'oja':
    H += rate * (outer(a_x, a_y) - a_y**2 * H), one sample after the other. Then only the largest
    fraction `keep` of the entries stays (pruning; ties at the threshold stay), and H is divided by its
    maximum. `codebooks` are (n_units, n_in) arrays or trained MiniSoms."""
    units = [
        minisom_codebook(book, f'codebook {side}')[0] if hasattr(book, '_weights') else book
        for side, book in zip('xy', codebooks, strict=True)
    ]
    books = [_finite(f'codebook_{side}', book, 2) for side, book in zip('xy', units, strict=True)]
    samples = [_finite(f'data_{side}', values, 2) for side, values in zip('xy', data, strict=True)]
    if samples[0].shape[0] != samples[1].shape[0]:
        raise ValueError(
            f'ReSOM: data_x has {samples[0].shape[0]} samples, data_y {samples[1].shape[0]}: they must pair up'
        )
    distance = ALIASES.get(distance, distance)
    act_x, act_y = (_float_activities(s, b, distance, beta) for s, b, beta in zip(samples, books, betas, strict=True))
    lateral = np.zeros((books[0].shape[0], books[1].shape[0]))
    for row, column in zip(act_x, act_y, strict=True):
        if rule == 'bmu':
            lateral[row.argmax(), column.argmax()] += rate
        elif rule == 'oja':
            lateral += rate * (np.outer(row, column) - column[None, :] ** 2 * lateral)
        elif rule == 'hebb':
            lateral += rate * np.outer(row, column)
        else:
            raise ValueError(f"ReSOM: unknown Hebbian rule {rule!r}; expected 'hebb', 'bmu' or 'oja'")
    if keep < 1.0:
        threshold = np.quantile(lateral, 1.0 - keep)
        lateral = np.where(lateral >= threshold, lateral, 0.0)
    top = lateral.max(initial=0.0)
    return np.clip(lateral / top if top > 0 else lateral, 0.0, None)


def minisom_codebook(som: Any, name: str) -> tuple[np.ndarray, tuple[int, int]]:
    weights = getattr(som, '_weights', None)
    if weights is None or np.ndim(weights) != 3:
        raise ValueError(f'ReSOM: {name} is not a trained MiniSom (no (rows, cols, n_in) _weights)')
    rows, cols, n_in = np.shape(weights)
    return np.asarray(weights, dtype=np.float64).reshape(rows * cols, n_in), (rows, cols)
