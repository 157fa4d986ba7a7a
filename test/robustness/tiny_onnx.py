"""Tiny ONNX models for the robustness tests: cheap to import and convert in a fresh process (no
Keras or torch), and checked against the numpy emulator, which needs no compiler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from onnx_graphs import OnnxGraph

import hls4ml
from hls4ml.model.interpreter import interpret


def mlp(seed: int = 0, n_in: int = 6, n_out: int = 3) -> Any:
    """x (n_in) -> Dense 8 + bias -> ReLU -> Dense n_out."""
    graph = OnnxGraph(seed=seed)
    hidden = graph.node('Add', [graph.node('MatMul', ['x', graph.weights(n_in, 8)]), graph.weights(8)])
    output = graph.node('MatMul', [graph.node('Relu', [hidden]), graph.weights(8, n_out)], name='out')
    return graph.model({'x': (n_in,)}, [output])


def cnn(seed: int = 0) -> Any:
    """x (2, 8, 8) -> Conv 3x3 (4 filters) -> ReLU -> MaxPool 2 -> Conv 3x3 (2) -> Flatten -> Dense 3."""
    graph = OnnxGraph(seed=seed)
    conv = graph.node('Conv', ['x', graph.weights(4, 2, 3, 3), graph.weights(4)], kernel_shape=[3, 3])
    pooled = graph.node('MaxPool', [graph.node('Relu', [conv])], kernel_shape=[2, 2], strides=[2, 2])
    second = graph.node('Conv', [pooled, graph.weights(2, 4, 2, 2)], kernel_shape=[2, 2])
    flat = graph.node('Flatten', [second])
    output = graph.node('MatMul', [flat, graph.weights(2 * 2 * 2, 3)], name='out')
    return graph.model({'x': (2, 8, 8)}, [output])


def convert(model: Any, folder: Path | str, io_type: str = 'io_parallel', backend: str = 'Vitis', **kwargs: Any):
    config = hls4ml.utils.config_from_onnx_model(model, granularity='model', default_precision='fixed<16,6>')
    return hls4ml.converters.convert_from_onnx_model(
        model, hls_config=config, output_dir=str(folder), backend=backend, io_type=io_type, **kwargs
    )


def inputs(hls_model: Any, n: int = 64, seed: int = 1) -> np.ndarray:
    shape = hls_model.get_input_variables()[0].shape  # the framework's layout: what predict() takes
    return np.random.default_rng(seed).normal(0, 1.5, (n, *shape))


def emulated(hls_model: Any, x: np.ndarray) -> np.ndarray:
    """What predict() must return: the emulator's outputs."""
    (output,), _ = interpret(hls_model, x)
    return output.to_double()
