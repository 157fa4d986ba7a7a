"""The SOM's Implementation 'dense' (scores w_n.x - |w_n|^2/2 of a Dense layer, then an argmax) compiled
with g++: output for output identical to Implementation 'distance' and to the reference interpreter,
on Vitis, oneAPI and Catapult, in io_parallel and io_stream, with the Latency and Resource strategies
and reuse factors above 1; on a codebook and inputs on a coarse grid, so that many samples lie at
exactly the same distance from two or more units (duplicate units too); and on a MiniSom trained on
the digits, 100% of the BMUs agree both ways.

One project holds every (distance, output, implementation) layer reading the same input, so each
backend and IO type compiles once.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.som import som_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
GRID = (3, 4)
N_IN = 3
DISTANCES = ('squared_euclidean', 'cosine')
OUTPUTS = ('index', 'coordinates', 'one_hot', 'label', 'quantized')
# (Strategy, ReuseFactor) of the dense layers, taken in turn: every output meets each of them
DENSE_SETTINGS = (('Latency', 1), ('Latency', 4), ('Resource', 6), ('Resource', 12))
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')


def _tied_codebook(seed: int) -> np.ndarray:
    """12 units on the 1/4 grid of [-2, 2), units 5 and 9 copies of units 1 and 2 (exact ties)."""
    codebook = np.random.default_rng(seed).integers(-8, 8, size=(GRID[0] * GRID[1], N_IN)) / 4
    codebook[5], codebook[9] = codebook[1], codebook[2]
    return codebook


def _tied_inputs(codebook: np.ndarray, seed: int) -> np.ndarray:
    """Random inputs on the 1/8 grid, the units themselves, and midpoints between pairs of units (a
    midpoint lies at the same squared distance from both)."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a, b in itertools.combinations(range(len(codebook)), 2)]
    midpoints = np.array([(codebook[a] + codebook[b]) / 2 for a, b in pairs])
    return np.concatenate([rng.integers(-24, 24, size=(160, N_IN)) / 8, codebook, midpoints])


def _name(distance: str, output: str, implementation: str, topology: str = 'rectangular') -> str:
    return f'{distance}_{output}_{implementation}' + ('_hex' if topology == 'hexagonal' else '')


def _add(graph: Graph, codebook: np.ndarray, distance: str, output: str, name: str, topology: str) -> None:
    labels = np.arange(len(codebook)) % 5
    single, _ = som_graph(codebook, GRID, distance, output, labels, topology)
    if not graph.layers:
        graph.add_layer(single.layers['input'], [single.tensors['input'].shape])
        graph.inputs.append('input')
    layer = single.layers['som']
    layer.name = layer.outputs[0] = name
    graph.add_layer(layer, [single.tensors['som'].shape])
    graph.outputs.append(name)


@pytest.fixture(scope='module')
def pairs() -> tuple[Graph, dict[str, tuple[str, str]]]:
    """An Input and, per (distance, output) and for the hexagonal coordinates, a distance-form and a
    dense-form SOM; the dense layers' Strategy / ReuseFactor cycle through DENSE_SETTINGS."""
    codebook = _tied_codebook(3)
    graph = Graph()
    settings = {}
    cases = [(distance, output, 'rectangular') for distance in DISTANCES for output in OUTPUTS]
    cases.append(('squared_euclidean', 'coordinates', 'hexagonal'))
    for number, (distance, output, topology) in enumerate(cases):
        for implementation in ('distance', 'dense'):
            _add(graph, codebook, distance, output, _name(distance, output, implementation, topology), topology)
        settings[_name(distance, output, 'dense', topology)] = DENSE_SETTINGS[number % len(DENSE_SETTINGS)]
    return graph, settings


def _config(graph: Graph, dense: dict[str, tuple[str, int]], backend: str, io_type: str, directory) -> dict:
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    for name, (strategy, reuse_factor) in dense.items():
        entry = config['HLSConfig']['LayerName'][name]
        entry.update(Implementation='dense', Strategy=strategy, ReuseFactor=reuse_factor)
    return config


def _predict(graph: Graph, dense: dict, x: np.ndarray, backend: str, io_type: str, directory) -> dict:
    """predict() per output, checked bit for bit against the interpreter."""
    model = ModelGraph(_config(graph, dense, backend, io_type, directory), copy.deepcopy(graph))
    predicted = model.predict(x)
    interpreted, _ = interpret(model, x)
    outputs = {}
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        outputs[name] = np.asarray(ours).reshape(reference.shape)
        np.testing.assert_array_equal(outputs[name], reference.value, err_msg=f'{backend} {io_type} {name}')
    return outputs


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_dense_equals_distance_and_the_interpreter_on_every_backend(pairs, io_type, tmp_path) -> None:
    graph, dense = pairs
    x = _tied_inputs(_tied_codebook(3), 4)
    first = None
    for backend in BACKENDS:
        outputs = _predict(graph, dense, x, backend, io_type, tmp_path)
        for name in dense:
            distance_form = outputs[name.replace('_dense', '_distance')]
            np.testing.assert_array_equal(outputs[name], distance_form, err_msg=f'{backend} {io_type} {name}')
        if first is not None:
            for name, values in outputs.items():
                np.testing.assert_array_equal(values, first[name], err_msg=f'{backend} {io_type} {name} vs Vitis')
        first = first or outputs


def test_minisom_digits_bmus_identical_both_ways(tmp_path) -> None:
    minisom = pytest.importorskip('minisom')
    datasets = pytest.importorskip('sklearn.datasets')
    data = datasets.load_digits()
    x = data.data / 16.0
    som = minisom.MiniSom(5, 6, x.shape[1], sigma=1.5, learning_rate=0.5, random_seed=7)
    som.train(x, 1000, random_order=True)
    indices = {}
    for implementation, strategy, reuse_factor in (('distance', 'Latency', 1), ('dense', 'Resource', 8)):
        config = hls4ml.converters.config_from_minisom(som)
        config['LayerName']['som'].update(Implementation=implementation, Strategy=strategy, ReuseFactor=reuse_factor)
        model = hls4ml.converters.convert_from_minisom(
            som, output_dir=str(tmp_path / implementation), backend='Vitis', hls_config=config, output='index'
        )
        indices[implementation] = np.asarray(model.predict(x)).reshape(-1)
        interpreted, _ = interpret(model, x)
        np.testing.assert_array_equal(indices[implementation], interpreted[0].value.reshape(-1))
    agreement = float((indices['dense'] == indices['distance']).mean())
    print(f'dense vs distance BMUs on {len(x)} digits: {agreement:.4f}')
    assert agreement == 1.0
