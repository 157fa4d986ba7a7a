"""The SOM 'activities' output and hexagonal coordinates in the reference (hls4ml/model/reference/som.py):
the spec's toy map (C.1), exact square roots, the exp table and its error bound, MiniSom's hexagonal
coordinates, and the checks of the converter and the shape rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.converters.som import som_graph
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.som import (
    ACTIVITY_RANGE,
    ACTIVITY_TABLE_TYPE,
    activity_table,
    root_type,
    som,
    unit_coordinates,
    unit_roots,
)
from hls4ml.model.types import FixedPrecisionType
from hls4ml.utils.config import config_from_graph, create_config

WIDE = 'ufixed<40,12>'  # holds every squared distance below exactly
TOY = np.array([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)], dtype=np.float64)  # a 2x3 map, row-major
SPEC_ACTIVITIES = [0.383863, 0.856051, 0.753638, 0.410518, 1.0, 0.856051]  # spec C.1, beta = 1


def _attributes(distance: str, output: str = 'activities', beta: float = 1.0, **extra) -> dict:
    return {'distance': distance, 'output': output, 'grid': (2, 3), 'beta': beta, **extra}


def _float_activities(x: np.ndarray, codebook: np.ndarray, distance: str, beta: float) -> np.ndarray:
    diff = x[:, None, :] - codebook[None, :, :]
    if distance == 'cosine':
        score = -(x @ codebook.T)
    elif distance == 'squared_euclidean':
        score = np.sqrt((diff**2).sum(axis=2))
    elif distance == 'manhattan':
        score = np.abs(diff).sum(axis=2)
    else:
        score = np.abs(diff).max(axis=2)
    return np.exp(-(score - score.min(axis=1, keepdims=True)) / beta)


def test_toy_map_activities_match_the_spec() -> None:
    x = quantize(np.array([[1.4, 0.6]]), 'fixed<16,4,RND>')
    result = som(x, quantize(TOY, 'fixed<8,3>'), None, _attributes('squared_euclidean'), WIDE, ACTIVITY_TABLE_TYPE)
    np.testing.assert_allclose(result.value[0], SPEC_ACTIVITIES, atol=3e-3)
    assert result.value[0][4] == 1.0  # the BMU reads exp(0) exactly


def test_toy_map_quantized_is_the_bmu_vector() -> None:
    x = quantize(np.array([[1.4, 0.6], [1.0, 0.5]]), 'fixed<16,4,RND>')
    result = som(x, quantize(TOY, 'fixed<8,3>'), None, _attributes('manhattan', 'quantized'), WIDE, 'fixed<8,3>')
    assert result.value.tolist() == [[1.0, 1.0], [1.0, 0.0]]  # units 4 and 1 (the tie goes to the lower)


@pytest.mark.parametrize('distance', ['squared_euclidean', 'manhattan', 'chebyshev', 'cosine'])
@pytest.mark.parametrize('beta', [0.25, 1.0, 3.0])
def test_activities_within_the_table_error_bound(distance, beta) -> None:
    """|table - exp| <= half a step / beta (the nearest slot) + half a table LSB + the root floor + the
    flush past ACTIVITY_RANGE; every BMU reads exactly 1."""
    rng = np.random.default_rng(11)
    x = quantize(rng.uniform(-2, 2, (200, 3)), 'fixed<12,3>')
    codebook = quantize(rng.uniform(-2, 2, (6, 3)), 'fixed<10,3>')
    attributes = _attributes(distance, beta=beta)
    accum = 'fixed<40,12>' if distance == 'cosine' else WIDE
    result = som(x, codebook, None, attributes, accum, ACTIVITY_TABLE_TYPE).value
    table = activity_table(attributes, accum)
    root_lsb = 2.0**-table.root_type.fractional if table.root_type else 0.0
    bound = (2.0**-table.shift / 2 + root_lsb) / beta + 2.0**-16 + math.exp(-ACTIVITY_RANGE)
    expected = _float_activities(x.value, codebook.value, distance, beta)
    assert np.abs(result - expected).max() <= bound
    assert np.all(result.max(axis=1) == 1.0) and np.all(result >= 0)


def test_unit_roots_are_exact_floors_even_beyond_64_bits() -> None:
    accum = FixedPrecisionType(90, 60, False)
    rng = np.random.default_rng(5)
    raw = np.array([int(value) << 40 | int(low) for value, low in rng.integers(0, 2**49, (50, 2))], dtype=object)
    distances = FixedArray.from_raw(raw.reshape(5, 10), accum)
    roots = root_type(accum)
    assert (roots.width, roots.integer) == (45, 30)
    result = unit_roots(distances, roots)
    for value, root in zip(raw, np.asarray(result.raw, dtype=object).reshape(-1), strict=True):
        assert root * root <= value < (root + 1) ** 2  # 2 * 15 fractional bits of the root = 30: no shift


def test_table_grid_entries_and_index_type() -> None:
    table = activity_table({'distance': 'manhattan', 'beta': 2.0}, 'ufixed<20,8>')
    values = table.values.value
    assert values[0] == 1.0 and np.all(np.diff(values) <= 0) and table.size == 1024
    assert table.size * 2.0**-table.shift >= 2.0 * ACTIVITY_RANGE  # covers 8 beta
    assert str(table.index_type).endswith('TRN,SAT>')
    assert table.index_type.fractional == table.shift + 1  # the half-step grid
    assert table.root_type is None
    coarse = activity_table({'distance': 'manhattan', 'beta': 2.0}, 'ufixed<8,8>')  # integer distances
    assert coarse.shift == 0  # no finer than the gap's LSB


@pytest.mark.parametrize('size', [0, 1, 1000])
def test_table_size_must_be_a_power_of_two(size) -> None:
    with pytest.raises(ValueError, match='power of two'):
        activity_table({'distance': 'manhattan', 'table_size': size}, 'ufixed<20,8>')


@pytest.mark.parametrize('grid', [(3, 4), (4, 3), (5, 5), (1, 6), (6, 1)])
def test_hexagonal_coordinates_equal_minisom(grid) -> None:
    minisom = pytest.importorskip('minisom')
    som_ = minisom.MiniSom(*grid, 2, topology='hexagonal')
    xx, yy = som_.get_euclidean_coordinates()
    expected = np.stack([xx.reshape(-1), yy.reshape(-1)], axis=1)
    np.testing.assert_allclose(unit_coordinates(grid, 'hexagonal'), expected, atol=1e-12)
    rows, cols = np.divmod(np.arange(grid[0] * grid[1]), grid[1])
    np.testing.assert_array_equal(unit_coordinates(grid), np.stack([rows, cols], axis=1))


def _model(graph, tmp_path) -> ModelGraph:
    config = create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    return ModelGraph(config, graph)


def test_hexagonal_minisom_coordinates_through_the_interpreter(tmp_path) -> None:
    minisom = pytest.importorskip('minisom')
    import hls4ml

    rng = np.random.default_rng(2)
    data = rng.uniform(0, 1, (300, 3))
    trained = minisom.MiniSom(4, 5, 3, sigma=1.0, topology='hexagonal', random_seed=3)
    trained.train(data, 300)
    model = hls4ml.converters.convert_from_minisom(trained, output_dir=str(tmp_path / 'prj'), output='coordinates')
    assert model.graph.layers['som'].attributes['topology'] == 'hexagonal'
    coordinates, _ = interpret(model, data)
    xx, yy = trained.get_euclidean_coordinates()
    expected = np.array([(xx[trained.winner(x)], yy[trained.winner(x)]) for x in data])
    agree = np.all(np.abs(coordinates[0].value - expected) <= 2.0**-12, axis=1).mean()
    assert agree >= 0.99  # BMU agreement of a quantized codebook (spec A.6)


def test_inferred_types_of_the_new_outputs(tmp_path) -> None:
    graph, _ = som_graph(TOY, (2, 3), 'euclidean', 'activities', beta=0.5)
    layer = _model(graph, tmp_path).graph.layers['som']
    assert layer.types['result'] == ACTIVITY_TABLE_TYPE == layer.types['table']
    graph, _ = som_graph(TOY, (2, 3), 'euclidean', 'coordinates', topology='hexagonal')
    result = _model(graph, tmp_path).graph.layers['som'].types['result']
    assert isinstance(result, FixedPrecisionType) and result.signed and result.fractional == 12


def test_table_size_comes_from_the_config(tmp_path) -> None:
    graph, _ = som_graph(TOY, (2, 3), 'manhattan', 'activities')
    config = create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    config['HLSConfig']['LayerName']['som']['TableSize'] = 256
    layer = ModelGraph(config, graph).graph.layers['som']
    assert activity_table(layer.attributes, layer.types['accum']).size == 256


@pytest.mark.parametrize(
    'arguments, message',
    [
        ({'topology': 'triangular'}, 'unsupported topology'),
        ({'beta': 0.0}, 'beta must be a finite positive number'),
        ({'beta': float('nan')}, 'beta must be a finite positive number'),
        ({'codebook': np.full((6, 2), np.nan)}, 'NaN or infinite'),
        ({'codebook': np.zeros((5, 2))}, r'does not fit a 2x3 grid'),
    ],
)
def test_converter_refuses_bad_settings(arguments, message) -> None:
    codebook = arguments.pop('codebook', TOY)
    with pytest.raises(ValueError, match=message):
        som_graph(codebook, (2, 3), 'euclidean', 'activities', **arguments)
