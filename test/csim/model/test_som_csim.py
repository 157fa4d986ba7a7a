"""The SOM layer compiled with g++: a trained MiniSom, predict() bit for bit equal to the reference
interpreter for every distance and output, in both IO types and for Vitis, oneAPI and Catapult (all
three bit-identical), and BMU agreement with MiniSom's winner() on the data it was trained on.

One project holds twenty SOM layers (4 distances x 5 outputs) reading the same input, so each
backend and IO type compiles once.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.som import minisom_unit_labels, som_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import SOM_DISTANCES, SOM_OUTPUTS
from hls4ml.utils.config import config_from_graph, create_config

minisom = pytest.importorskip('minisom')
pytestmark = pytest.mark.csim
GRID = (5, 6)
MINISOM_AGREEMENT = {'euclidean': 0.99, 'manhattan': 0.99, 'cosine': 0.99}  # at fixed<16,6> inputs


@pytest.fixture(scope='module')
def digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    data = load_digits()
    return data.data / 16.0, data.target


def _train(x: np.ndarray, distance: str):
    som = minisom.MiniSom(*GRID, x.shape[1], sigma=1.5, learning_rate=0.5, activation_distance=distance, random_seed=7)
    som.train(x, 1000, random_order=True)
    return som


@pytest.fixture(scope='module')
def all_outputs(digits) -> Graph:
    """An Input and one SOM layer per (distance, output), all on the same trained codebook."""
    x, targets = digits
    som = _train(x, 'euclidean')
    codebook = som._weights.reshape(-1, x.shape[1])
    labels = minisom_unit_labels(som, x, targets)
    graph = Graph()
    for distance in SOM_DISTANCES:
        for output in SOM_OUTPUTS:
            single, _ = som_graph(codebook, GRID, distance, output, labels)
            if not graph.layers:
                graph.add_layer(single.layers['input'], [single.tensors['input'].shape])
                graph.inputs.append('input')
            layer = single.layers['som']
            layer.name = layer.outputs[0] = f'{distance}_{output}'
            graph.add_layer(layer, [single.tensors['som'].shape])
            graph.outputs.append(layer.name)
    return graph


def _predictions(graph: Graph, x: np.ndarray, backend: str, io_type: str, directory) -> list[np.ndarray]:
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<16,6>', 1, None)
    model = ModelGraph(config, copy.deepcopy(graph))  # the flow changes the graph it is given
    predicted = model.predict(x)
    interpreted, _ = interpret(model, x)
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        np.testing.assert_array_equal(np.asarray(ours).reshape(reference.shape), reference.value, err_msg=name)
    return [np.asarray(values) for values in predicted]


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_every_distance_and_output_matches_the_interpreter_on_every_backend(
    all_outputs, digits, io_type, tmp_path
) -> None:
    x = digits[0][::9]
    vitis = _predictions(all_outputs, x, 'Vitis', io_type, tmp_path)
    for backend in ('oneAPI', 'Catapult'):
        others = _predictions(all_outputs, x, backend, io_type, tmp_path)
        for name, ours, theirs in zip(all_outputs.outputs, vitis, others, strict=True):
            np.testing.assert_array_equal(theirs, ours, err_msg=f'{backend} {name}')


@pytest.mark.parametrize('distance', sorted(MINISOM_AGREEMENT))
def test_bmu_agrees_with_minisom_winner(digits, distance, tmp_path) -> None:
    x, _ = digits
    som = _train(x, distance)
    model = hls4ml.converters.convert_from_minisom(
        som, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel', output='index'
    )
    predicted = np.asarray(model.predict(x)).reshape(-1)
    winners = np.array([np.ravel_multi_index(som.winner(sample), GRID) for sample in x])
    agreement = float((predicted == winners).mean())
    print(f'{distance}: BMU agreement with MiniSom winner() {agreement:.4f} on {len(x)} digits')
    assert agreement >= MINISOM_AGREEMENT[distance]
