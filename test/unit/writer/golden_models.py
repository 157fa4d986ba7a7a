"""The five small models of the golden projects (test_golden_projects.py), built in code, seeded.

Each `convert_*` function converts its model for one backend and IO type into `OUTPUT_DIR`, a path
relative to the current folder: the test runs it from inside a temporary folder, so no machine path
reaches the project (the config yml records OutputDir). Weights are multiples of 1/8 (and the ONNX
batch normalisations use powers of two), so they print as short exact numbers and the weight files
stay small and readable. A few results are set to fixed<16,6> where a chain of exact 'auto' types
would reach the precision cap (a warning). Softmax tables have 64 entries instead of 1024 (smaller
files, and a non-default TableSize on the way).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import keras
import numpy as np
import onnx
from onnx_graphs import OnnxGraph

import hls4ml
from hls4ml.model.graph import ModelGraph
from hls4ml.nn.keras_moe import TopKRouter
from hls4ml.utils import config_from_keras_model, config_from_onnx_model

OUTPUT_DIR = 'prj'
TABLE_SIZE = 64
TESTBENCH_FILES = ('tb_input.npy', 'tb_output.npy')  # written next to OUTPUT_DIR by convert_mlp


def eighths(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Values in [-1, 1) on a grid of 1/8: exactly representable in float32 and in narrow fixed types."""
    return rng.integers(-8, 8, shape) / 8


def _set_weights(model: keras.Model, seed: int) -> keras.Model:
    rng = np.random.default_rng(seed)
    model.set_weights([eighths(rng, tuple(weight.shape)) for weight in model.get_weights()])
    return model


@functools.cache
def mlp_model() -> keras.Model:
    """Dense(8) + ReLU + Dense(4) + softmax on 6 inputs."""
    inputs = keras.Input((6,), name='x')
    hidden = keras.layers.Dense(8, activation='relu', name='fc1')(inputs)
    outputs = keras.layers.Dense(4, activation='softmax', name='fc2')(hidden)
    return _set_weights(keras.Model(inputs, outputs, name='mlp'), seed=1)


@functools.cache
def cnn_model() -> keras.Model:
    """Conv2D 'same' + ReLU, MaxPool, Conv2D 'valid', Flatten, Dense on a 6x6x2 image."""
    inputs = keras.Input((6, 6, 2), name='x')
    hidden = keras.layers.Conv2D(3, 3, padding='same', activation='relu', name='conv1')(inputs)
    hidden = keras.layers.MaxPooling2D(2, name='pool')(hidden)
    hidden = keras.layers.Conv2D(4, 2, name='conv2')(hidden)
    outputs = keras.layers.Dense(3, name='fc')(keras.layers.Flatten(name='flatten')(hidden))
    return _set_weights(keras.Model(inputs, outputs, name='cnn'), seed=2)


@functools.cache
def router_model() -> keras.Model:
    """A token-choice MoE gate: 4 features -> 8 expert logits -> top-2 renormalised gates."""
    inputs = keras.Input((4,), name='x')
    outputs = TopKRouter(8, k=2, renormalize=True, name='router')(inputs)
    return _set_weights(keras.Model(inputs, outputs, name='router'), seed=3)


def resnet_model() -> onnx.ModelProto:
    """A ResNet basic block in ONNX (channels first, 3x4x4): Conv-BN-ReLU-Conv-BN, Add of the input, ReLU.
    Built anew for each conversion (cheap), so the ONNX frontend's clean-up can never carry over."""
    graph = OnnxGraph(seed=4)
    rng = graph.rng
    hidden = 'x'
    for index in (1, 2):
        weights = [graph.constant(eighths(rng, (3, 3, 3, 3))), graph.constant(eighths(rng, (3,)))]
        hidden = graph.node('Conv', [hidden, *weights], name=f'conv{index}', pads=[1, 1, 1, 1])
        # epsilon 0 and variances 1/4, 1 or 4: the folded scale gamma / sqrt(var) is a short dyadic number
        variance = graph.constant(4.0 ** rng.integers(-1, 2, 3))
        norm = [graph.constant(1 + eighths(rng, (3,)) / 2), graph.constant(eighths(rng, (3,)))]
        norm += [graph.constant(eighths(rng, (3,))), variance]
        hidden = graph.node('BatchNormalization', [hidden, *norm], name=f'bn{index}', epsilon=0.0)
        if index == 1:
            hidden = graph.node('Relu', [hidden], name='relu1')
    added = graph.node('Add', [hidden, 'x'], name='add')
    return graph.model({'x': (3, 4, 4)}, [graph.node('Relu', [added], name='relu2')])


def _small_tables(layers: dict, names: tuple[str, ...]) -> None:
    for name in names:
        layers[name]['TableSize'] = TABLE_SIZE


def _narrow_results(layers: dict, names: tuple[str, ...]) -> None:
    for name in names:
        layers[name]['Precision']['result'] = 'fixed<16,6>'


def convert_mlp(backend: str, io_type: str) -> ModelGraph:
    """The MLP with fc1 at Resource strategy, reuse factor 2, and testbench data (input, expectation)."""
    model = mlp_model()
    config = config_from_keras_model(model, granularity='name')
    config['LayerName']['fc1'].update(Strategy='Resource', ReuseFactor=2)
    _small_tables(config['LayerName'], ('fc2_softmax',))
    inputs = eighths(np.random.default_rng(5), (3, 6))
    np.save(TESTBENCH_FILES[0], inputs)
    np.save(TESTBENCH_FILES[1], _mlp_float64(model, inputs).round(6))  # rounded: no last-bit libm differences
    return hls4ml.converters.convert_from_keras_model(
        model, OUTPUT_DIR, 'myproject', *TESTBENCH_FILES, backend=backend, hls_config=config, io_type=io_type
    )


def _mlp_float64(model: keras.Model, inputs: np.ndarray) -> np.ndarray:
    """The MLP's output computed in float64 numpy (the weights are exact, so only exp rounds)."""
    kernel1, bias1, kernel2, bias2 = (np.asarray(weight, dtype=np.float64) for weight in model.get_weights())
    logits = np.maximum(inputs @ kernel1 + bias1, 0) @ kernel2 + bias2
    exponentials = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exponentials / exponentials.sum(axis=1, keepdims=True)


def convert_cnn(backend: str, io_type: str) -> ModelGraph:
    """The CNN with conv2's result set to fixed<16,6>: its exact 'auto' type would make fc's accumulator
    wider than the precision cap."""
    config = config_from_keras_model(cnn_model(), granularity='name')
    _narrow_results(config['LayerName'], ('conv2',))
    return hls4ml.converters.convert_from_keras_model(
        cnn_model(), OUTPUT_DIR, backend=backend, hls_config=config, io_type=io_type
    )


def convert_resnet(backend: str, io_type: str) -> ModelGraph:
    """The ResNet block with the convolutions' results set to fixed<16,6> (their exact 'auto'
    types would make the batch normalisations' products exceed the precision cap)."""
    model = resnet_model()
    config = config_from_onnx_model(model, granularity='name')
    _narrow_results(config['LayerName'], ('conv1', 'conv2'))
    return hls4ml.converters.convert_from_onnx_model(
        model, OUTPUT_DIR, backend=backend, hls_config=config, io_type=io_type
    )


def convert_som(backend: str, io_type: str) -> ModelGraph:
    """A 3x4 MiniSom on 5 inputs as MiniSom initialises it (seeded; no training needed for the code)."""
    import minisom

    som = minisom.MiniSom(3, 4, 5, random_seed=6)
    return hls4ml.converters.convert_from_minisom(som, OUTPUT_DIR, backend=backend, io_type=io_type)


def convert_router(backend: str, io_type: str) -> ModelGraph:
    config = config_from_keras_model(router_model(), granularity='name')
    _small_tables(config['LayerName'], ('router',))
    return hls4ml.converters.convert_from_keras_model(
        router_model(), OUTPUT_DIR, backend=backend, hls_config=config, io_type=io_type
    )


MODELS: dict[str, Callable[[str, str], ModelGraph]] = {
    'mlp': convert_mlp,
    'cnn': convert_cnn,
    'resnet_block': convert_resnet,
    'som': convert_som,
    'topk_router': convert_router,
}
