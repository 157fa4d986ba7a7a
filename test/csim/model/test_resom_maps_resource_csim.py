"""ReSOMMaps under the Resource strategy compiled with g++: the folded distance stages and lateral products
(nnet_resom_maps.h resom_maps_folded_lateral) and divisions (nnet_resom.h resom_combine) give bit for bit the
Latency strategy's results and the reference interpreter's, for three maps, both sources, reuse factors 1, 2, 7
and 13 (partial last blocks), both IO types on Vitis and io_parallel on oneAPI.

One project holds every variant as its own layer reading the same three inputs, so each backend and IO type
compiles once; the maps are tiny (4, 6 and 3 units).
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
GRIDS, WIDTHS = [(2, 2), (2, 3), (1, 3)], [3, 2, 4]
# R 2: the divisions of the 3-unit map in a partial second block; 7, 13: partial distance and lateral blocks
SCHEDULES = [(1, 'Latency'), (1, 'Resource'), (2, 'Resource'), (7, 'Resource'), (13, 'Resource')]
VARIANTS = [
    {'source': 'all', 'combine': 'product', 'output': 'activities', 'iterations': 2},
    {'source': 'all', 'combine': 'sum', 'output': 'label'},
    {'source': 'bmu', 'combine': 'product', 'output': 'activities'},
]


def _variants() -> tuple[Graph, dict[str, tuple[int, str]]]:
    """The graph and every layer's (reuse factor, strategy)."""
    rng = np.random.default_rng(29)
    codebooks = [rng.random((rows * cols, width)) for (rows, cols), width in zip(GRIDS, WIDTHS, strict=True)]
    matrices = {(i, j): rng.random((codebooks[i].shape[0], codebooks[j].shape[0])) for i, j in pairs(3)}
    matrices[(0, 2)] *= rng.random(matrices[(0, 2)].shape) > 0.3  # some pruned synapses
    labels = [rng.integers(0, 3, 4), None, None]
    graph, schedules = Graph(), {}
    for index, variant in enumerate(VARIANTS):
        for reuse, strategy in SCHEDULES:
            single, _ = resom_maps_graph(codebooks, GRIDS, matrices, labels, betas=[0.5, 0.25, 0.7], **variant)
            if not graph.layers:
                for tensor in single.inputs:
                    graph.add_layer(single.layers[tensor], [single.tensors[tensor].shape])
                    graph.inputs.append(tensor)
            layer = single.layers['resom']
            layer.name = layer.outputs[0] = f'maps{index}_{strategy}_{reuse}'
            graph.add_layer(layer, [single.tensors['resom'].shape])
            graph.outputs.append(layer.name)
            schedules[layer.name] = (reuse, strategy)
    return graph, schedules


@pytest.fixture(scope='module')
def variants() -> tuple[Graph, dict[str, tuple[int, str]]]:
    return _variants()


def _config(variants, backend: str, io_type: str, directory) -> dict:
    graph, schedules = variants
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    for name, (reuse, strategy) in schedules.items():
        config['HLSConfig']['LayerName'][name].update(ReuseFactor=reuse, Strategy=strategy)
    return config


def _predictions(variants, backend: str, io_type: str, directory) -> dict[str, np.ndarray]:
    graph = variants[0]
    model = ModelGraph(_config(variants, backend, io_type, directory), copy.deepcopy(graph))
    rng = np.random.default_rng(6)
    samples = [rng.random((30, width)) for width in WIDTHS]
    predicted = model.predict(samples)
    interpreted, _ = interpret(model, samples)
    results = {}
    for name, ours, reference in zip(graph.outputs, predicted, interpreted, strict=True):
        np.testing.assert_array_equal(np.asarray(ours).reshape(reference.shape), reference.value, err_msg=name)
        results[name] = np.asarray(ours)
    return results


def _assert_every_schedule_agrees(results: dict[str, np.ndarray]) -> None:
    """Every Resource reuse factor gives the Latency layer's bits (the same arithmetic, folded)."""
    for name, values in results.items():
        if name.endswith('_Latency_1'):
            for reuse, strategy in SCHEDULES[1:]:
                other = name.replace('_Latency_1', f'_{strategy}_{reuse}')
                np.testing.assert_array_equal(results[other], values, err_msg=other)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_resource_resom_maps_match_latency_and_the_interpreter_on_vitis(variants, io_type, tmp_path) -> None:
    _assert_every_schedule_agrees(_predictions(variants, 'Vitis', io_type, tmp_path))


def test_resource_resom_maps_match_on_oneapi(variants, tmp_path) -> None:
    _assert_every_schedule_agrees(_predictions(variants, 'oneAPI', 'io_parallel', tmp_path))


def test_the_resource_resom_maps_project_folds_in_its_config(variants, tmp_path) -> None:
    """The written config struct carries the Resource field for the Resource layers only."""
    ModelGraph(_config(variants, 'Vitis', 'io_parallel', tmp_path), copy.deepcopy(variants[0])).write()
    parameters = (tmp_path / 'Vitis_io_parallel' / 'firmware' / 'parameters.h').read_text()
    resource_layers = sum(strategy == 'Resource' for _, strategy in variants[1].values())
    assert parameters.count('static const unsigned strategy = nnet::resource;') == resource_layers
    assert 'static const unsigned reuse_factor = 13;' in parameters
