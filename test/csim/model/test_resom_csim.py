"""The ReSOM layer compiled with g++: predict() bit for bit equal to the reference interpreter for every
source x combine x output (plus Manhattan and Chebyshev distances, other betas and more iterations), in
both IO types, on Vitis, oneAPI and Catapult (all three bit-identical); and two MiniSoms on digits.

One project holds every variant as its own ReSOM layer reading the same two inputs, so each backend
and IO type compiles once. The maps are tiny (2x3 and 2x2 units) to keep the compiles fast.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hls4ml.converters.resom import resom_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import RESOM_COMBINES, RESOM_OUTPUTS, RESOM_SOURCES
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
VARIANTS = [
    *(
        {'source': source, 'combine': combination, 'output': output}
        for source in RESOM_SOURCES
        for combination in RESOM_COMBINES
        for output in RESOM_OUTPUTS
    ),
    {'source': 'all', 'combine': 'product', 'output': 'activities', 'distance': 'manhattan', 'beta_x': 0.5},
    {'source': 'bmu', 'combine': 'sum', 'output': 'activities', 'iterations': 2, 'distance': 'chebyshev'},
    {'source': 'all', 'combine': 'product', 'output': 'label', 'iterations': 3, 'beta_y': 2.0},
]

NARROW = 'narrow_types'  # explicit types narrower than exact: saturating sums, rounded tables
NARROW_PRECISIONS = {
    'accum_x': 'ufixed<12,5,RND,SAT>',
    'lateral': 'ufixed<6,0,RND,SAT>',
    'lateral_accum': 'ufixed<9,1,TRN,SAT>',
    'activity': 'ufixed<10,1,RND>',
    'result': 'ufixed<8,1,RND,SAT>',
}


def _name(variant: dict) -> str:
    return '_'.join(str(value).replace('.', 'p') for value in variant.values())


@pytest.fixture(scope='module')
def variants() -> Graph:
    rng = np.random.default_rng(11)
    codebook_x, codebook_y = rng.random((6, 3)), rng.random((4, 2))
    lateral = rng.random((6, 4)) * (rng.random((6, 4)) > 0.3)  # some pruned synapses
    labels_x = rng.integers(0, 3, 6)
    graph = Graph()
    for variant in VARIANTS:
        single, _ = resom_graph(codebook_x, (2, 3), codebook_y, (2, 2), lateral, labels_x=labels_x, **variant)
        if not graph.layers:
            for name in single.inputs:
                graph.add_layer(single.layers[name], [single.tensors[name].shape])
                graph.inputs.append(name)
        layer = single.layers['resom']
        layer.name = layer.outputs[0] = _name(variant)
        graph.add_layer(layer, [single.tensors['resom'].shape])
        graph.outputs.append(layer.name)
    narrow, _ = resom_graph(codebook_x, (2, 3), codebook_y, (2, 2), lateral, output='activities', combine='sum')
    layer = narrow.layers['resom']
    layer.name = layer.outputs[0] = NARROW
    graph.add_layer(layer, [narrow.tensors['resom'].shape])
    graph.outputs.append(NARROW)
    return graph


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    x, y = rng.random((40, 3)), rng.random((40, 2))
    x[:3] = [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    return [x, y]


def _predictions(graph: Graph, backend: str, io_type: str, directory) -> list[np.ndarray]:
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    config['HLSConfig']['LayerName'][NARROW]['Precision'].update(NARROW_PRECISIONS)
    config['HLSConfig']['LayerName'][NARROW]['TableSize'] = 64
    model = ModelGraph(config, copy.deepcopy(graph))
    samples = _samples()
    predicted = model.predict(samples)
    interpreted, _ = interpret(model, samples)
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        np.testing.assert_array_equal(np.asarray(ours).reshape(reference.shape), reference.value, err_msg=name)
    return [np.asarray(values) for values in predicted]


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_every_variant_matches_the_interpreter_on_every_backend(variants, io_type, tmp_path) -> None:
    vitis = _predictions(variants, 'Vitis', io_type, tmp_path)
    for backend in ('oneAPI', 'Catapult'):
        others = _predictions(variants, backend, io_type, tmp_path)
        for name, ours, theirs in zip(variants.outputs, vitis, others, strict=True):
            np.testing.assert_array_equal(theirs, ours, err_msg=f'{backend} {name}')


def test_two_minisoms_on_split_digits(tmp_path) -> None:
    """Digits split into two modalities (left and right image halves): two MiniSoms, offline Hebbian
    lateral weights, x labelled and y by divergence; the compiled ReSOM equals the interpreter and
    classifies well above chance."""
    minisom = pytest.importorskip('minisom')
    from sklearn.datasets import load_digits

    from hls4ml.converters import convert_from_resom
    from hls4ml.converters.resom import hebbian_lateral
    from hls4ml.converters.som import minisom_unit_labels

    digits = load_digits()
    images = digits.data.reshape(-1, 8, 8) / 16.0
    left, right, targets = images[:, :, :4].reshape(-1, 32), images[:, :, 4:].reshape(-1, 32), digits.target
    soms = []
    for half in (left, right):
        som = minisom.MiniSom(6, 6, 32, sigma=1.2, learning_rate=0.5, random_seed=3)
        som.train(half, 1500, random_order=True)
        soms.append(som)
    lateral = hebbian_lateral((soms[0], soms[1]), (left[:1000], right[:1000]), betas=(0.25, 0.25))
    labels_x = minisom_unit_labels(soms[0], left[:300], targets[:300])
    model = convert_from_resom(
        soms[0],
        soms[1],
        lateral,
        output_dir=str(tmp_path / 'prj'),
        backend='Vitis',
        labels_x=labels_x,
        output='label',
        beta_x=0.25,
        beta_y=0.25,
        io_type='io_parallel',
    )
    test = slice(300, 1000)
    predicted = np.asarray(model.predict([left[test], right[test]])).reshape(-1)
    (interpreted,), _ = interpret(model, [left[test], right[test]])
    np.testing.assert_array_equal(predicted, interpreted.value.reshape(-1))
    accuracy = float((predicted == targets[test]).mean())
    winners = np.array([np.ravel_multi_index(soms[0].winner(sample), (6, 6)) for sample in left[test]])
    alone = float((labels_x[winners] == targets[test]).mean())
    print(f'ReSOM on split digits: label accuracy {accuracy:.3f}, the x map alone {alone:.3f}')
    assert accuracy > alone
