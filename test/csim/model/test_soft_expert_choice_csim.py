"""Soft expert choice (ExpertChoiceRouter with l) compiled with g++: predict() equals the interpreter bit
for bit on Vitis in both IO types and oneAPI, directly and from PyTorch's ExpertChoiceRouter(l=...),
whose float gates the firmware matches within 2^-6."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.nn.torch_moe import ExpertChoiceRouter

pytestmark = pytest.mark.csim
TOKENS, EXPERTS = 6, 3


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('oneAPI', 'io_stream')]
)
def test_soft_expert_choice(tmp_path, backend: str, io_type: str) -> None:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, EXPERTS))
    routed = builder.expert_choice(Origin('router', 'ExpertChoiceRouter'), x, 2, 0.125, 10)
    builder.output(routed, Origin('router', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>'}}
    model = ModelGraph(config, graph, origin)
    logits = np.random.default_rng(0).normal(0, 1, (30, TOKENS, EXPERTS))
    (reference,), _ = interpret(model, logits)
    np.testing.assert_array_equal(np.asarray(model.predict(logits)).reshape(reference.shape), reference.to_double())


def test_torch_soft_expert_choice(tmp_path) -> None:
    module = ExpertChoiceRouter(capacity=2, l=0.125).eval()
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'InputShape': (TOKENS, EXPERTS)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    logits = np.round(np.random.default_rng(1).normal(0, 1, (30, TOKENS, EXPERTS)) * 64) / 64
    predicted = np.asarray(model.predict(logits))
    (reference,), _ = interpret(model, logits)
    np.testing.assert_array_equal(predicted.reshape(reference.shape), reference.to_double())
    with torch.no_grad():
        gates = module(torch.tensor(logits, dtype=torch.float64)).numpy()
    firmware = predicted.reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2)  # PyTorch outputs come channels last
    np.testing.assert_allclose(firmware, gates, atol=2.0**-6)
