"""The SOM's Implementation 'dense' without compiling: the exact biases, the inferred score type, the
reference BMU equal to the distance form's on random maps full of exact ties, the refused settings,
the config key and the reuse-factor check."""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction

import numpy as np
import pytest

from hls4ml.converters.som import som_graph
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.som import score_biases, som
from hls4ml.utils.config import config_from_graph, create_config, layer_entry

BMU_OUTPUTS = ('index', 'coordinates', 'one_hot', 'label', 'quantized')


def _model(graph, tmp_path, **settings) -> ModelGraph:
    config = create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis')
    # exact 'auto' scores (2F + 1 fraction bits) may be wider than the default cap of 'auto' types
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, 'fixed<64,32>')
    config['HLSConfig']['LayerName']['som'].update(settings)
    return ModelGraph(config, copy.deepcopy(graph))


def _tied_map(seed: int, rows: int = 3, cols: int = 4, n_in: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A codebook on the 1/4 grid with duplicate units, and inputs on the 1/8 grid plus every midpoint
    of two units: many samples are exactly as far from two or more units."""
    rng = np.random.default_rng(seed)
    codebook = rng.integers(-8, 8, size=(rows * cols, n_in)) / 4
    codebook[-1] = codebook[0]
    midpoints = [(codebook[a] + codebook[b]) / 2 for a, b in itertools.combinations(range(rows * cols), 2)]
    return codebook, np.concatenate([rng.integers(-24, 24, size=(100, n_in)) / 8, np.array(midpoints)])


@pytest.mark.parametrize('seed', [0, 1, 2])
def test_the_maps_hold_exact_ties(seed) -> None:
    codebook, x = _tied_map(seed)
    distances = ((x[:, None, :] - codebook[None, :, :]) ** 2).sum(axis=2)  # exact: dyadic values
    tied = (distances == distances.min(axis=1, keepdims=True)).sum(axis=1) > 1
    assert tied.sum() >= 20


def test_score_biases_are_exact() -> None:
    codebook = quantize(np.array([[0.75, -1.25, 3.0], [0.0, 0.0, 0.0], [-2.5, 0.125, 1.0]]), 'fixed<10,4>')
    biases = score_biases(codebook, 'squared_euclidean')
    expected = [-sum(Fraction(value) ** 2 for value in row) / 2 for row in codebook.value.tolist()]
    assert [Fraction(value) for value in biases.value.tolist()] == expected
    assert biases.type.fractional == 2 * codebook.type.fractional + 1 and biases.type.signed
    assert not np.any(score_biases(codebook, 'cosine').value)


@pytest.mark.parametrize('distance', ['squared_euclidean', 'cosine'])
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_dense_reference_equals_the_distance_form_with_ties(distance, seed, tmp_path) -> None:
    codebook, x = _tied_map(seed)
    for output in BMU_OUTPUTS:
        graph, _ = som_graph(codebook, (3, 4), distance, output, labels=np.arange(12) % 5)
        results = [
            interpret(_model(graph, tmp_path, Implementation=implementation), x)[0][0].value
            for implementation in ('distance', 'dense')
        ]
        np.testing.assert_array_equal(results[1], results[0], err_msg=f'{distance} {output}')


def test_ties_go_to_the_lowest_index(tmp_path) -> None:
    codebook = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]])
    graph, _ = som_graph(codebook, (2, 2), 'squared_euclidean', 'index')
    x = np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 0.0], [-0.5, 0.5]])
    indices, _ = interpret(_model(graph, tmp_path, Implementation='dense'), x)
    assert indices[0].value.reshape(-1).tolist() == [0, 0, 0, 1]


def test_inferred_scores_are_wide_enough(tmp_path) -> None:
    """The score type holds w.x - |w|^2/2 for the extreme inputs of the input type, exactly."""
    codebook, _ = _tied_map(5)
    graph, _ = som_graph(codebook, (3, 4), 'squared_euclidean', 'index')
    model = _model(graph, tmp_path, Implementation='dense')
    accum = model.graph.layers['som'].types['accum']
    extremes = np.array(list(itertools.product([-32.0, 32.0 - 2**-10], repeat=3)))
    scores = extremes @ codebook.T - (codebook**2).sum(axis=1) / 2
    assert accum.min <= scores.min() and scores.max() <= accum.max
    assert accum.fractional >= 2 * model.graph.layers['som'].types['codebook'].fractional + 1


@pytest.mark.parametrize(
    ('distance', 'output', 'message'),
    [
        ('squared_euclidean', 'distances', "output 'distances' needs Implementation 'distance'"),
        ('squared_euclidean', 'activities', "output 'activities' needs Implementation 'distance'"),
        ('manhattan', 'index', "needs distance 'squared_euclidean' or 'cosine', not 'manhattan'"),
        ('chebyshev', 'index', "not 'chebyshev'"),
    ],
)
def test_refused_settings_name_the_layer(distance, output, message, tmp_path) -> None:
    codebook, _ = _tied_map(0)
    graph, _ = som_graph(codebook, (3, 4), distance, output)
    with pytest.raises(ValueError, match=message) as error:
        _model(graph, tmp_path, Implementation='dense')
    assert "layer 'som' (SOM" in str(error.value)
    with pytest.raises(ValueError, match=message):
        som(
            quantize(codebook, 'fixed<8,3>'),
            quantize(codebook, 'fixed<8,3>'),
            None,
            _attributes(distance, output),
            'fixed<32,12>',
            'fixed<32,12>',
        )


def _attributes(distance: str, output: str) -> dict:
    return {'distance': distance, 'output': output, 'grid': (3, 4), 'implementation': 'dense'}


def test_config_key(tmp_path) -> None:
    codebook, _ = _tied_map(0)
    graph, _ = som_graph(codebook, (3, 4), 'squared_euclidean', 'index')
    assert _model(graph, tmp_path).graph.layers['som'].attributes['implementation'] == 'distance'
    assert layer_entry('SOM', 1)['Implementation'] == 'distance'
    assert layer_entry('Softmax', 1)['Implementation'] == 'stable'
    with pytest.raises(ValueError, match="'stable' is not one of distance, dense"):
        _model(graph, tmp_path, Implementation='stable')


def test_resource_reuse_factor_is_checked_on_the_score_matrix(tmp_path) -> None:
    codebook, _ = _tied_map(0)
    graph, _ = som_graph(codebook, (3, 4), 'squared_euclidean', 'index')
    with pytest.warns(UserWarning, match='ReuseFactor 4 is not valid for a 3x12 Resource SOM; using 3'):
        model = _model(graph, tmp_path, Implementation='dense', Strategy='Resource', ReuseFactor=4)
    assert model.graph.layers['som'].attributes['reuse_factor'] == 3


def test_the_estimate_sees_a_dense_layer_and_its_reuse_factor(tmp_path) -> None:
    codebook = np.random.default_rng(0).random((100, 64))
    graph, _ = som_graph(codebook, (10, 10), 'squared_euclidean', 'index')
    estimates = {}
    for name, settings in {
        'distance': {},
        'latency': {'Implementation': 'dense'},
        'resource': {'Implementation': 'dense', 'Strategy': 'Resource', 'ReuseFactor': 16},
    }.items():
        estimate = _model(graph, tmp_path, **settings).estimate()
        estimates[name] = next(layer for layer in estimate.layers if layer.name == 'som')
    assert any('dense form' in note for note in estimates['resource'].notes)
    assert estimates['resource'].resources['DSP'].high * 8 <= estimates['latency'].resources['DSP'].low
    assert estimates['resource'].interval.low >= 16 > estimates['latency'].interval.high
    assert not any('dense form' in note for note in estimates['distance'].notes)
