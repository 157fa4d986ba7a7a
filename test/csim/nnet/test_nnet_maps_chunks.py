"""The SOM and ReSOM io_stream kernels with inputs split into chunks (nnet_som_stream.h
som_read_input): a large input vector may arrive over several stream elements. A written io_stream
project's SOM and ReSOM layers (both strategies) are run by a driver, per sample once through the
io_parallel kernel on whole vectors and once through the stream kernel on elements of 2 values; the
two must agree bit for bit (the io_parallel kernels are checked against the interpreter in
test/csim/model/test_maps_resource_csim.py) and every chunk must be consumed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import jinja2
import numpy as np
import pytest
from nnet_harness import compile_source

from hls4ml.backends.common.project import lower_project
from hls4ml.model.graph import ModelGraph
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.resom_graphs import resom_graph
from hls4ml.model.som_graphs import som_graph
from hls4ml.utils.config import config_from_graph, create_config

pytestmark = pytest.mark.csim
PACK = 2
LAYERS = {  # name: (reuse factor, strategy)
    'som_resource': (5, 'Resource'),
    'som_latency': (1, 'Latency'),
    'resom_all_resource': (7, 'Resource'),
    'resom_bmu_latency': (1, 'Latency'),
}


def _graph() -> Graph:
    rng = np.random.default_rng(31)
    codebook_x, codebook_y, lateral = rng.random((6, 6)), rng.random((4, 4)), rng.random((6, 4))
    graph = Graph()
    for side, size in (('x', 6), ('y', 4)):
        graph.add_layer(Layer(f'input_{side}', Kind.INPUT, [], [f'input_{side}'], {'shape': (size,)}), [(size,)])
        graph.inputs.append(f'input_{side}')
    parts = [
        som_graph(codebook_x, (2, 3), 'squared_euclidean', 'distances')[0],
        som_graph(codebook_x, (2, 3), 'manhattan', 'activities', beta=0.5)[0],
        resom_graph(codebook_x, (2, 3), codebook_y, (2, 2), lateral, output='activities')[0],
        resom_graph(codebook_x, (2, 3), codebook_y, (2, 2), lateral, labels_x=np.arange(6) % 3, source='bmu')[0],
    ]
    for name, single in zip(LAYERS, parts, strict=True):
        layer = single.layers[single.outputs[0]]
        layer.name = layer.outputs[0] = name
        layer.inputs = ['input_x'] if layer.kind == Kind.SOM else ['input_x', 'input_y']
        graph.add_layer(layer, [single.tensors[single.outputs[0]].shape])
        graph.outputs.append(name)
    return graph


def _driver_context(model: ModelGraph) -> dict:
    project = lower_project(model.design)
    ports = {port.name: port for port in project.inputs + project.intermediates + project.outputs}
    layers = []
    for impl in project.layers:
        if impl.function not in ('nnet::som', 'nnet::resom'):
            continue  # the clones of the shared inputs
        inputs = 1 if impl.function == 'nnet::som' else 2
        layers.append(
            {
                'name': impl.name,
                'function': impl.function,
                'struct': impl.struct,
                'inputs': project.inputs[:inputs],  # the values the clones of x and y carry
                'output': ports[impl.arguments[inputs]],
                'arrays': impl.arguments[inputs + 1 :],
            }
        )
    return {'inputs': project.inputs, 'layers': layers, 'pack': PACK}


def test_chunked_inputs_give_the_whole_vector_bits(tmp_path) -> None:
    config = create_config(str(tmp_path / 'prj'), 'myproject', 'Vitis', io_type='io_stream')
    config['HLSConfig'] = config_from_graph(_graph(), 'name', 'fixed<12,3>', 1, None)
    for name, (reuse, strategy) in LAYERS.items():
        config['HLSConfig']['LayerName'][name].update(ReuseFactor=reuse, Strategy=strategy)
    model = ModelGraph(config, _graph())
    firmware = Path(model.write()) / 'firmware'
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent), undefined=jinja2.StrictUndefined
    )
    source = environment.get_template('maps_chunk_driver.cpp.j2').render(**_driver_context(model))
    warnings = ['-Wall', '-Wextra', '-Werror']  # the kernels' own code; the type headers are -isystem
    flags = ['-std=c++14', '-O1', *warnings, f'-I{firmware}', '-isystem', str(firmware / 'ap_types')]
    executable = compile_source(source, flags, [firmware], 'maps-chunks')
    rng = np.random.default_rng(2)
    samples = np.concatenate([rng.random((25, 6)), rng.random((25, 4))], axis=1)
    lines = [float(len(samples)).hex()] + [' '.join(float(value).hex() for value in row) for row in samples]
    process = subprocess.run([str(executable)], input='\n'.join(lines) + '\n', capture_output=True, text=True)
    assert process.returncode == 0, process.stderr[-3000:]
    rows = process.stdout.splitlines()
    assert len(rows) == len(samples) * len(LAYERS) * 3
    for index in range(0, len(rows), 3):
        whole, streamed, left = rows[index : index + 3]
        assert streamed == whole and left == 'left 0', (index, whole, streamed, left)
    assert len({rows[index] for index in range(0, len(rows), 3)}) > len(LAYERS)  # outputs vary by sample
