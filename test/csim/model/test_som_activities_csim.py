"""The SOM outputs added for issue 7, compiled with g++: 'activities' (the exp table) for every
distance, 'coordinates' of a hexagonal map, and 'quantized' (the BMU's codebook vector). predict()
equals the reference interpreter bit for bit, in both IO types, and Vitis, oneAPI and Catapult give
identical bits.

One project holds all the layers (reading the same input), so each backend and IO type compiles once.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hls4ml.converters.som import som_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import SOM_DISTANCES
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
GRID = (3, 4)
N_IN = 5
BETAS = {'squared_euclidean': 1.0, 'manhattan': 0.75, 'chebyshev': 0.25, 'cosine': 0.1}


def _layers() -> list[tuple[str, dict]]:
    """(name, som_graph arguments): activities per distance, hexagonal coordinates, quantized."""
    layers = [(f'{distance}_activities', {'distance': distance, 'output': 'activities'}) for distance in SOM_DISTANCES]
    for distance in ('squared_euclidean', 'manhattan'):
        layers.append(
            (f'{distance}_hexagonal', {'distance': distance, 'output': 'coordinates', 'topology': 'hexagonal'})
        )
    for distance in ('squared_euclidean', 'cosine'):
        layers.append((f'{distance}_quantized', {'distance': distance, 'output': 'quantized'}))
    return layers


@pytest.fixture(scope='module')
def graph() -> Graph:
    codebook = np.random.default_rng(4).uniform(-1.5, 1.5, (GRID[0] * GRID[1], N_IN))
    graph = Graph()
    for name, arguments in _layers():
        beta = BETAS[arguments['distance']]
        single, _ = som_graph(codebook, GRID, beta=beta, **arguments)
        if not graph.layers:
            graph.add_layer(single.layers['input'], [single.tensors['input'].shape])
            graph.inputs.append('input')
        layer = single.layers['som']
        layer.name = layer.outputs[0] = name
        graph.add_layer(layer, [single.tensors['som'].shape])
        graph.outputs.append(name)
    return graph


def _predictions(graph: Graph, x: np.ndarray, backend: str, io_type: str, directory) -> list[np.ndarray]:
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    model = ModelGraph(config, copy.deepcopy(graph))
    predicted = model.predict(x)
    interpreted, _ = interpret(model, x)
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        np.testing.assert_array_equal(np.asarray(ours).reshape(reference.shape), reference.value, err_msg=name)
    return [np.asarray(values) for values in predicted]


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_activities_and_hexagonal_coordinates_are_bit_exact_on_every_backend(graph, io_type, tmp_path) -> None:
    x = np.random.default_rng(9).uniform(-2, 2, (64, N_IN))
    x[0] = graph.layers['manhattan_activities'].weights['codebook'][5]  # an input on a unit: gap 0
    vitis = _predictions(graph, x, 'Vitis', io_type, tmp_path)
    activities = vitis[0].reshape(len(x), -1)
    assert np.all(activities.max(axis=1) == 1.0)  # the BMU reads exp(0) = 1 exactly
    for backend in ('oneAPI', 'Catapult'):
        others = _predictions(graph, x, backend, io_type, tmp_path)
        for name, ours, theirs in zip(graph.outputs, vitis, others, strict=True):
            np.testing.assert_array_equal(theirs, ours, err_msg=f'{backend} {name}')


EDGE_LAYERS = {  # name: (distance, beta, precision overrides, table size): the table and root corner cases
    'odd_fraction_roots': ('squared_euclidean', 1.0, {'accum': 'ufixed<22,8>'}, 1024),
    'saturated_distances': ('squared_euclidean', 0.5, {'accum': 'ufixed<10,2,TRN,SAT>'}, 1024),
    'coarse_small_table': ('manhattan', 4.0, {'table': 'ufixed<8,1>', 'result': 'ufixed<8,1>'}, 64),
    'step_at_gap_lsb': ('chebyshev', 0.01, {}, 1024),
    'rounded_similarities': ('cosine', 0.2, {'accum': 'fixed<12,3,RND>'}, 256),
}


@pytest.fixture(scope='module')
def edge_graph() -> Graph:
    codebook = np.random.default_rng(12).uniform(-1.5, 1.5, (GRID[0] * GRID[1], N_IN))
    graph = Graph()
    for name, (distance, beta, _, _) in EDGE_LAYERS.items():
        single, _ = som_graph(codebook, GRID, distance, 'activities', beta=beta)
        if not graph.layers:
            graph.add_layer(single.layers['input'], [single.tensors['input'].shape])
            graph.inputs.append('input')
        layer = single.layers['som']
        layer.name = layer.outputs[0] = name
        graph.add_layer(layer, [single.tensors['som'].shape])
        graph.outputs.append(name)
    return graph


def test_table_and_root_corner_cases_are_bit_exact_on_every_backend(edge_graph, tmp_path) -> None:
    """Explicit narrow, odd, saturating and rounding accumulators, a coarse small table, a step at the
    gap's LSB: whatever the types, the three backends and the reference agree bit for bit."""
    x = np.random.default_rng(13).uniform(-2, 2, (64, N_IN))
    results = []
    for backend in ('Vitis', 'oneAPI', 'Catapult'):
        config = create_config(str(tmp_path / backend), 'myproject', backend, io_type='io_parallel')
        hls_config = config_from_graph(edge_graph, 'name', 'fixed<12,3>', 1, None)
        for name, (_, _, precisions, table_size) in EDGE_LAYERS.items():
            hls_config['LayerName'][name]['Precision'].update(precisions)
            hls_config['LayerName'][name]['TableSize'] = table_size
        config['HLSConfig'] = hls_config
        model = ModelGraph(config, copy.deepcopy(edge_graph))
        predicted = [np.asarray(values) for values in model.predict(x)]
        interpreted, _ = interpret(model, x)
        for name, ours, reference in zip(edge_graph.outputs, predicted, interpreted, strict=True):
            np.testing.assert_array_equal(ours.reshape(reference.shape), reference.value, err_msg=f'{backend} {name}')
        results.append(predicted)
    for other in results[1:]:
        for name, ours, theirs in zip(edge_graph.outputs, results[0], other, strict=True):
            np.testing.assert_array_equal(theirs, ours, err_msg=name)
