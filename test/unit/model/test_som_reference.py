"""The SOM reference (hls4ml/model/reference/som.py) against exact Fraction arithmetic, the toy map of
the spec (C.1), the inferred exact accumulator, and the MiniSom converter's checks."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.som import minisom_unit_labels, som_graph
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.kinds import SOM_DISTANCES
from hls4ml.model.reference.som import best_matching_unit, som, som_distances
from hls4ml.utils.config import config_from_graph, create_config

WIDE = 'fixed<48,20>'  # holds every distance of the tests below exactly
TOY = np.array([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)], dtype=np.float64)  # a 2x3 map, row-major


def _exact(x: np.ndarray, codebook: np.ndarray, distance: str) -> list[list[Fraction]]:
    """Distances (similarity for cosine) in exact rational arithmetic."""
    rows = []
    for sample in x:
        row = []
        for unit in codebook:
            diffs = [Fraction(a) - Fraction(b) for a, b in zip(sample, unit, strict=True)]
            if distance == 'squared_euclidean':
                row.append(sum(d * d for d in diffs))
            elif distance == 'manhattan':
                row.append(sum(abs(d) for d in diffs))
            elif distance == 'chebyshev':
                row.append(max(abs(d) for d in diffs))
            else:
                row.append(sum(Fraction(a) * Fraction(b) for a, b in zip(sample, unit, strict=True)))
        rows.append(row)
    return rows


def _first_best(row: list[Fraction], distance: str) -> int:
    best = max(row) if distance == 'cosine' else min(row)
    return row.index(best)  # the lowest index among equals


def _attributes(distance: str, output: str, grid: tuple[int, int]) -> dict:
    return {'distance': distance, 'output': output, 'grid': grid}


@pytest.mark.parametrize('distance', ['squared_euclidean', 'manhattan'])
def test_toy_map_bmu_and_coordinates(distance) -> None:
    x = quantize(np.array([[1.4, 0.6]]), 'fixed<16,4,RND>')
    codebook = quantize(TOY, 'fixed<8,3>')
    coordinates = som(x, codebook, None, _attributes(distance, 'coordinates', (2, 3)), WIDE, 'ufixed<2,2>')
    assert coordinates.value.tolist() == [[1, 1]]
    index = som(x, codebook, None, _attributes(distance, 'index', (2, 3)), WIDE, 'ufixed<3,3>')
    assert index.value.tolist() == [[4]]


def test_toy_map_squared_distances() -> None:
    x = quantize(np.array([[1.4, 0.6]]), 'fixed<16,4,RND>')
    distances = som_distances(x, quantize(TOY, 'fixed<8,3>'), 'squared_euclidean', WIDE)
    np.testing.assert_allclose(distances.value[0], [2.32, 0.52, 0.72, 2.12, 0.32, 0.52], atol=1e-3)


@pytest.mark.parametrize('distance', ['squared_euclidean', 'manhattan', 'chebyshev'])
def test_tie_goes_to_the_lowest_index(distance) -> None:
    x = quantize(np.array([[1.0, 0.5]]), 'fixed<16,4>')  # units 1 and 4 are equally close
    index = som(x, quantize(TOY, 'fixed<8,3>'), None, _attributes(distance, 'index', (2, 3)), WIDE, 'ufixed<3,3>')
    assert index.value.tolist() == [[1]]


def test_cosine_tie_goes_to_the_lowest_index() -> None:
    codebook = quantize(np.array([[0.0, 0.5], [0.5, 0.5], [0.5, 0.5], [1.0, 0.0]]), 'fixed<8,2>')
    distances = som_distances(quantize(np.array([[1.0, 1.0]]), 'fixed<8,3>'), codebook, 'cosine', WIDE)
    assert best_matching_unit(distances, 'cosine').tolist() == [1]


@pytest.mark.parametrize('distance', SOM_DISTANCES)
def test_random_maps_match_exact_arithmetic(distance) -> None:
    generator = np.random.default_rng(11)
    x = quantize(generator.normal(0, 3, (60, 5)), 'fixed<10,4>')
    codebook = quantize(generator.normal(0, 2, (12, 5)), 'fixed<6,3>')  # coarse: many ties
    exact = _exact(x.value, codebook.value, distance)
    distances = som_distances(x, codebook, distance, WIDE)
    assert [[Fraction(v) for v in row] for row in distances.value.tolist()] == exact
    expected = [_first_best(row, distance) for row in exact]
    assert best_matching_unit(distances, distance).tolist() == expected
    one_hot = som(x, codebook, None, _attributes(distance, 'one_hot', (3, 4)), WIDE, 'ufixed<1,1>')
    assert one_hot.value.sum(axis=1).tolist() == [1] * 60
    assert one_hot.value.argmax(axis=1).tolist() == expected
    labels = quantize(np.arange(12) % 5, 'ufixed<3,3>')
    label = som(x, codebook, labels, _attributes(distance, 'label', (3, 4)), WIDE, 'ufixed<3,3>')
    assert label.value[:, 0].tolist() == [unit % 5 for unit in expected]


def _model(distance: str, output: str, codebook: np.ndarray, input_type: str) -> ModelGraph:
    graph, origin = som_graph(codebook, (2, 3), distance, output)
    config = create_config('unused', 'myproject', 'Vitis')
    config['HLSConfig'] = config_from_graph(graph, 'name', input_type, 1, None)
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize('distance', SOM_DISTANCES)
def test_inferred_accumulator_never_overflows(distance) -> None:
    """Inputs at the ends of their type reach the largest distances: they come out exact."""
    codebook = np.random.default_rng(2).normal(0, 4, (6, 3))
    model = _model(distance, 'distances', codebook, 'fixed<8,4>')
    x = np.array([[-8.0, -8.0, -8.0], [7.9375, 7.9375, 7.9375], [-8.0, 7.9375, -8.0], [0.0, 0.0, 0.0]])
    (distances,), _ = interpret(model, x, 'ap')
    layer = model.graph.layers['som']
    codebook_values = quantize(layer.weights['codebook'], layer.types['codebook']).value
    exact = _exact(quantize(x, 'fixed<8,4>').value, codebook_values, distance)
    assert [[Fraction(v) for v in row] for row in distances.value.tolist()] == exact


def test_result_types_hold_every_output() -> None:
    types = {
        output: _model('manhattan', output, TOY, 'fixed<8,4>').graph.layers['som'].types['result'].width
        for output in ('index', 'coordinates', 'one_hot')
    }
    assert types == {'index': 3, 'coordinates': 2, 'one_hot': 1}


def test_unknown_distance_and_missing_labels_are_refused() -> None:
    with pytest.raises(ValueError, match='unsupported distance'):
        som_graph(TOY, (2, 3), 'minkowski', 'index')
    with pytest.raises(ValueError, match='needs labels'):
        som_graph(TOY, (2, 3), 'manhattan', 'label')


def _trained_minisom(**kwargs):
    minisom = pytest.importorskip('minisom')
    from sklearn.datasets import load_iris

    data = load_iris()
    x = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    som = minisom.MiniSom(3, 4, 4, sigma=1.0, learning_rate=0.5, random_seed=3, **kwargs)
    som.train(x, 200, random_order=True)
    return som, x, data.target


def test_minisom_callable_distance_is_refused_and_chebyshev_warns() -> None:
    som, _, _ = _trained_minisom(activation_distance=lambda x, w: np.abs(x - w).sum(axis=-1))
    with pytest.raises(ValueError, match='not supported'):
        hls4ml.converters.convert_from_minisom(som, backend='Vitis')
    som, _, _ = _trained_minisom(activation_distance='chebyshev')
    with pytest.warns(UserWarning, match='without abs'):
        hls4ml.converters.config_from_minisom(som)


def test_unit_labels_are_the_labels_map_majority() -> None:
    som, x, targets = _trained_minisom()
    labels = minisom_unit_labels(som, x, targets)
    for (row, col), counts in som.labels_map(x, targets).items():
        top = max(counts.values())
        assert labels[row * 4 + col] == min(label for label, count in counts.items() if count == top)
