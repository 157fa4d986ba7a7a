"""The Verilog backend's selection and map kinds against the Vitis C-simulation of the same graph:
top-k (every output, by value and magnitude, largest and smallest, on integer inputs full of ties),
the token-choice router (indices, weights, gates; renormalized or not) and the SOM (saturating and
wrapping accumulators, BMU outputs, activities; every distance, output and implementation is checked
against the reference without Verilator in test/unit/backends/test_verilog_kinds.py). Verilator predict
must equal the C-simulation bit for bit. Skips, naming the tool, where Verilator is not installed
(scripts/setup_env.sh installs it)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from verilog_programs import needs_tool

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.converters.config import config_from_graph
from hls4ml.model.graph import ModelGraph
from hls4ml.model.ir import Graph
from hls4ml.model.som_graphs import som_graph

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')
pytestmark = [
    pytest.mark.csim,
    needs_tool('verilator'),
]

GraphMaker = Callable[[], tuple[Graph, dict[str, str]]]


def both(make: GraphMaker, tmp_path, hls_config: dict) -> list[ModelGraph]:
    """The same graph for Vitis and for Verilog (a fresh graph each: conversion changes it)."""
    models = []
    for backend in ('Vitis', 'Verilog'):
        config = hls4ml.utils.create_config(str(tmp_path / backend), 'myproject', backend, io_type='io_parallel')
        config['HLSConfig'] = hls_config
        models.append(ModelGraph(config, *make()))
    return models


def assert_bit_exact(make: GraphMaker, tmp_path, hls_config: dict, x: np.ndarray) -> None:
    vitis, verilog = both(make, tmp_path, hls_config)
    vitis.compile()
    verilog.compile()
    expected, got = vitis.predict(x), verilog.predict(x)
    expected = expected if isinstance(expected, list) else [expected]
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert np.array_equal(mine, theirs)


def topk_graph() -> tuple[Graph, dict[str, str]]:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (7,))
    for magnitude, largest in ((False, True), (True, True), (False, False)):
        for output in ('values', 'indices', 'mask', 'masked'):
            name = f'{output}_{int(magnitude)}{int(largest)}'
            top = builder.topk(Origin(name, 'TopK'), x, 3, output, magnitude, largest)
            builder.output(top, Origin(name, 'output'))
    return builder.finish()


def test_topk_every_output_is_bit_exact(tmp_path):
    x = np.random.default_rng(0).integers(-8, 8, (400, 7)).astype(np.float64)  # many ties, and +-v
    assert_bit_exact(topk_graph, tmp_path, {'Model': {'Precision': 'fixed<5,5>', 'ReuseFactor': 1}}, x)


def router_graph() -> tuple[Graph, dict[str, str]]:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (2, 5))  # two tokens of five expert logits
    for renormalize in (True, False):
        for output in ('indices', 'weights', 'gates'):
            name = f'{output}_{int(renormalize)}'
            builder.output(builder.router(Origin(name, 'Router'), x, 2, renormalize, output), Origin(name, 'output'))
    return builder.finish()


def test_router_indices_and_gates_are_bit_exact(tmp_path):
    x = np.random.default_rng(1).integers(-16, 16, (400, 2, 5)) / 4
    assert_bit_exact(router_graph, tmp_path, {'Model': {'Precision': 'fixed<10,5>', 'ReuseFactor': 1}}, x)


CODEBOOK = np.random.default_rng(4).integers(-8, 8, (6, 3)) / 4


@pytest.mark.filterwarnings('ignore::hls4ml.model.config.ExactTypeOverrideWarning')
@pytest.mark.parametrize(
    ('distance', 'implementation', 'output', 'accum'),
    [
        ('squared_euclidean', 'distance', 'index', None),
        ('manhattan', 'distance', 'one_hot', 'ufixed<5,2,RND,SAT>'),  # saturating distances: ties at the top
        ('cosine', 'distance', 'label', 'ufixed<5,2>'),  # similarities that wrap (negative into unsigned)
        ('manhattan', 'distance', 'activities', None),  # the exp table at the gap to the best unit
    ],
)
def test_som_is_bit_exact(tmp_path, distance, implementation, output, accum):
    def make() -> tuple[Graph, dict[str, str]]:
        return som_graph(CODEBOOK, (2, 3), distance, output, labels=np.arange(6) % 3)

    config = config_from_graph(make()[0], 'name', 'fixed<8,3>', 1, None)
    config['LayerName']['som']['Implementation'] = implementation
    if accum:
        config['LayerName']['som']['Precision']['accum'] = accum
    x = np.random.default_rng(5).integers(-12, 12, (300, 3)) / 4
    assert_bit_exact(make, tmp_path, config, x)
