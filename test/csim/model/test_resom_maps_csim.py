"""The ReSOM of M maps (ReSOMMaps) compiled with g++: predict() bit for bit equal to the reference
interpreter for three and four maps (both sources, both combines, every output, other distances, betas and
rounds), in both IO types, on Vitis and oneAPI (bit-identical to each other); and three MiniSoms converted
by convert_from_resom.

One project holds every variant as its own layer reading the same four inputs (the three-map layers read
the first three), so each backend and IO type compiles once. The maps are tiny to keep the compiles fast.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hls4ml.converters.resom import resom_maps_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.reference.resom_maps import pairs
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
GRIDS, WIDTHS = [(2, 2), (2, 3), (1, 3), (3, 1)], [3, 2, 4, 2]
VARIANTS = [
    {'source': 'all', 'combine': 'product', 'output': 'label'},
    {'source': 'all', 'combine': 'sum', 'output': 'activities'},
    {'source': 'bmu', 'combine': 'product', 'output': 'winners'},
    {'source': 'bmu', 'combine': 'sum', 'output': 'index', 'iterations': 2},
    {'source': 'all', 'combine': 'product', 'output': 'activities', 'distance': 'manhattan', 'iterations': 3},
    {'source': 'bmu', 'combine': 'sum', 'output': 'activities', 'distance': 'chebyshev', 'betas': 0.3},
]


def _layers(count: int, rng: np.random.Generator) -> list[tuple[str, Graph]]:
    codebooks = [rng.random((rows * cols, width)) for (rows, cols), width in zip(GRIDS, WIDTHS, strict=True)][:count]
    matrices = {(i, j): rng.random((codebooks[i].shape[0], codebooks[j].shape[0])) for i, j in pairs(count)}
    matrices[(0, 1)] *= rng.random(matrices[(0, 1)].shape) > 0.3  # some pruned synapses
    labels = [rng.integers(0, 3, 4), *([None] * (count - 1))]
    built = []
    for index, variant in enumerate(VARIANTS):
        options = {'betas': [0.5, 0.25, 1.0, 0.7][:count], **variant}
        graph, _ = resom_maps_graph(codebooks, GRIDS[:count], matrices, labels, **options)
        built.append((f'maps{count}_{index}_{variant["output"]}', graph))
    return built


@pytest.fixture(scope='module')
def variants() -> Graph:
    rng = np.random.default_rng(17)
    graph = Graph()
    for count in (4, 3):
        for name, single in _layers(count, rng):
            if not graph.layers:
                for tensor in single.inputs:
                    graph.add_layer(single.layers[tensor], [single.tensors[tensor].shape])
                    graph.inputs.append(tensor)
            layer = single.layers['resom']
            layer.name = layer.outputs[0] = name
            graph.add_layer(layer, [single.tensors['resom'].shape])
            graph.outputs.append(name)
    return graph


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    inputs = [rng.random((40, width)) for width in WIDTHS]
    inputs[0][:2] = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    return inputs


def _predictions(graph: Graph, backend: str, io_type: str, directory) -> list[np.ndarray]:
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    model = ModelGraph(config, copy.deepcopy(graph))
    samples = _samples()
    predicted = model.predict(samples)
    interpreted, _ = interpret(model, samples)
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        np.testing.assert_array_equal(np.asarray(ours).reshape(reference.shape), reference.value, err_msg=name)
    return [np.asarray(values) for values in predicted]


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_three_and_four_maps_match_the_interpreter_on_two_backends(variants, io_type, tmp_path) -> None:
    vitis = _predictions(variants, 'Vitis', io_type, tmp_path)
    others = _predictions(variants, 'oneAPI', io_type, tmp_path)
    for name, ours, theirs in zip(variants.outputs, vitis, others, strict=True):
        np.testing.assert_array_equal(theirs, ours, err_msg=f'oneAPI {name}')


def test_three_minisoms_on_digit_bands(tmp_path) -> None:
    """Digits cut into three column bands, three MiniSoms, pair matrices by hebbian_laterals, map 0
    labelled and maps 1, 2 by divergence: the compiled layer equals the interpreter and beats chance."""
    minisom = pytest.importorskip('minisom')
    from sklearn.datasets import load_digits

    from hls4ml.converters import convert_from_resom
    from hls4ml.converters.resom import hebbian_laterals
    from hls4ml.converters.som import minisom_unit_labels

    digits = load_digits()
    images, targets = digits.data.reshape(-1, 8, 8) / 16.0, digits.target
    bands = [images[:, :, start:stop].reshape(len(images), -1) for start, stop in ((0, 3), (3, 5), (5, 8))]
    soms = []
    for index, band in enumerate(bands):
        som = minisom.MiniSom(5, 5, band.shape[1], sigma=1.2, learning_rate=0.5, random_seed=3 + index)
        som.train(band[:1000], 800, random_order=True)
        soms.append(som)
    laterals = hebbian_laterals(soms, [band[:1000] for band in bands], betas=0.25)
    labels = [minisom_unit_labels(soms[0], bands[0][:300], targets[:300]), None, None]
    model = convert_from_resom(
        soms, laterals, output_dir=str(tmp_path / 'prj'), backend='Vitis', labels=labels, betas=0.25, output='label'
    )
    test = [band[1000:1400] for band in bands]
    predicted = np.asarray(model.predict(test)).reshape(-1)
    (interpreted,), _ = interpret(model, test)
    np.testing.assert_array_equal(predicted, interpreted.value.reshape(-1))
    assert (predicted == targets[1000:1400]).mean() > 0.5
