"""SOM and ReSOM under the Resource strategy compiled with g++: the folded distance stage and lateral
products (nnet_som.h som_fold, nnet_resom.h resom_folded_lateral) give bit for bit the Latency
strategy's results and the reference interpreter's, for every distance, both ReSOM sources, reuse
factors that divide the folded terms and that do not, both IO types on Vitis, io_parallel on oneAPI and
Catapult.

One project holds every variant as its own layer reading the same inputs (x: 5 values, y: 3), so each
backend and IO type compiles once; the maps are tiny (6 and 4 units).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.kinds import SOM_DISTANCES
from hls4ml.model.resom_graphs import resom_graph
from hls4ml.model.som_graphs import som_graph
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
SOM_TERMS = 6 * 5  # units x inputs of the SOM and of the ReSOM's x map
# (reuse factor, strategy): 1 and 30 divide the 30 terms, 7 and 11 do not (a partial last block)
SCHEDULES = [(1, 'Latency'), (1, 'Resource'), (7, 'Resource'), (11, 'Resource'), (SOM_TERMS, 'Resource')]


def _add(graph: Graph, single: Graph, name: str, inputs: dict[str, str]) -> None:
    """Adds the single-layer graph's last layer as `name`, reading the shared inputs."""
    layer = single.layers[single.outputs[0]]
    layer.name = layer.outputs[0] = name
    layer.inputs = [inputs[tensor] for tensor in layer.inputs]
    graph.add_layer(layer, [single.tensors[single.outputs[0]].shape])
    graph.outputs.append(name)


def _variants() -> tuple[Graph, dict[str, tuple[int, str]]]:
    """The graph and every layer's (reuse factor, strategy)."""
    rng = np.random.default_rng(21)
    codebook_x, codebook_y = rng.random((6, 5)), rng.random((4, 3))
    lateral, labels = rng.random((6, 4)) * (rng.random((6, 4)) > 0.2), rng.integers(0, 3, 6)
    graph, schedules = Graph(), {}
    for side, size in (('x', 5), ('y', 3)):
        from hls4ml.model.ir import Layer
        from hls4ml.model.kinds import Kind

        graph.add_layer(Layer(f'input_{side}', Kind.INPUT, [], [f'input_{side}'], {'shape': (size,)}), [(size,)])
        graph.inputs.append(f'input_{side}')
    som_inputs = {'input': 'input_x'}
    for distance in SOM_DISTANCES:
        for reuse, strategy in SCHEDULES:
            single, _ = som_graph(codebook_x, (2, 3), distance, 'distances')
            _add(graph, single, f'som_{distance}_{strategy}_{reuse}', som_inputs)
            schedules[graph.outputs[-1]] = (reuse, strategy)
        for output in ('activities', 'label'):
            single, _ = som_graph(codebook_x, (2, 3), distance, output, labels, beta=0.5)
            _add(graph, single, f'som_{distance}_{output}', som_inputs)
            schedules[graph.outputs[-1]] = (7, 'Resource')
    resom_inputs = {'input_x': 'input_x', 'input_y': 'input_y'}
    for source in ('all', 'bmu'):
        for reuse, strategy in SCHEDULES:
            single, _ = resom_graph(codebook_x, (2, 3), codebook_y, (2, 2), lateral, source=source, output='activities')
            _add(graph, single, f'resom_{source}_{strategy}_{reuse}', resom_inputs)
            schedules[graph.outputs[-1]] = (reuse, strategy)
        single, _ = resom_graph(
            codebook_x, (2, 3), codebook_y, (2, 2), lateral, labels, source=source, iterations=2, combine='sum'
        )
        _add(graph, single, f'resom_{source}_label', resom_inputs)
        schedules[graph.outputs[-1]] = (5, 'Resource')
    return graph, schedules


@pytest.fixture(scope='module')
def variants() -> tuple[Graph, dict[str, tuple[int, str]]]:
    return _variants()


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    x, y = rng.random((30, 5)), rng.random((30, 3))
    x[:2] = [[0.0] * 5, [1.0] * 5]
    return [x, y]


def _predictions(variants, backend: str, io_type: str, directory) -> dict[str, np.ndarray]:
    graph, schedules = variants
    config = create_config(str(directory / f'{backend}_{io_type}'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    for name, (reuse, strategy) in schedules.items():
        config['HLSConfig']['LayerName'][name].update(ReuseFactor=reuse, Strategy=strategy)
    model = ModelGraph(config, copy.deepcopy(graph))
    samples = _samples()
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
def test_resource_maps_match_latency_and_the_interpreter_on_vitis(variants, io_type, tmp_path) -> None:
    _assert_every_schedule_agrees(_predictions(variants, 'Vitis', io_type, tmp_path))


@pytest.mark.parametrize('backend', ['oneAPI', 'Catapult'])
def test_resource_maps_match_on_oneapi_and_catapult(variants, backend, tmp_path) -> None:
    _assert_every_schedule_agrees(_predictions(variants, backend, 'io_parallel', tmp_path))


def test_the_resource_project_folds_in_its_config(variants, tmp_path) -> None:
    """The written config struct carries the Resource field and the reuse factor; Latency layers none."""
    graph, schedules = variants
    config = create_config(str(tmp_path / 'written'), 'myproject', 'Vitis', io_type='io_parallel')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    for name, (reuse, strategy) in schedules.items():
        config['HLSConfig']['LayerName'][name].update(ReuseFactor=reuse, Strategy=strategy)
    ModelGraph(config, copy.deepcopy(graph)).write()
    parameters = (tmp_path / 'written' / 'firmware' / 'parameters.h').read_text()
    assert parameters.count('static const unsigned strategy = nnet::resource;') == sum(
        strategy == 'Resource' for _, strategy in schedules.values()
    )
    assert 'static const unsigned reuse_factor = 11;' in parameters
