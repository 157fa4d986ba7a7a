"""Capacity-limited token choice (Router with capacity) compiled with g++ on Vitis in both IO types and
oneAPI: predict() equals the interpreter bit for bit; every expert takes at most C tokens of a sample;
the gates are the float gating's for the choices the priority rule keeps (0 for the dropped ones)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.router import capacity_kept, router_exact
from hls4ml.nn.torch_moe import TopKRouter

pytestmark = pytest.mark.csim
TOKENS, D, EXPERTS, CAPACITY = 6, 4, 4, 2
TOLERANCE = 2.0**-7


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    logits = builder.dense(Origin('gate', 'Linear'), x, np.random.default_rng(1).normal(0, 1, (D, EXPERTS)), None)
    for name, renormalize, output in (('gates', True, 'gates'), ('weights', False, 'weights')):
        routed = builder.router(Origin(name, 'TopKRouter'), logits, 2, renormalize, output, CAPACITY)
        builder.output(routed, Origin(name, 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('oneAPI', 'io_parallel')]
)
def test_capacity_router(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = np.random.default_rng(0).normal(0, 1, (30, TOKENS, D))
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    for values, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(np.asarray(values).reshape(reference.shape), reference.to_double())
    logits = per_layer['gate'].to_double().reshape(-1, EXPERTS)
    for (renormalize, width), reference in zip(((True, EXPERTS), (False, 2)), references, strict=True):
        gates, chosen = router_exact(logits, 2, renormalize)
        kept = capacity_kept(chosen.reshape(-1, TOKENS, 2), EXPERTS, CAPACITY).reshape(-1, 2)
        expected = np.where(kept, gates, 0.0)
        values = reference.to_double().reshape(-1, width, TOKENS).swapaxes(1, 2)  # outputs: channels first
        if width == EXPERTS:  # the dense gates: each kept choice at its expert; load per sample <= C
            assert ((values > 0).sum(axis=1) <= CAPACITY).all()
            values = np.take_along_axis(values.reshape(-1, EXPERTS), chosen, axis=1)
        np.testing.assert_allclose(values.reshape(-1, 2), expected, atol=TOLERANCE)
    assert (~kept).any()  # the capacity dropped some choices


def test_torch_capacity_router(tmp_path) -> None:
    module = TopKRouter(D, EXPERTS, k=2, capacity=CAPACITY).eval()
    with torch.no_grad():
        module.gate.weight.copy_(torch.tensor(np.random.default_rng(3).integers(-8, 9, (EXPERTS, D)) / 8))
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (TOKENS, D)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    x = np.random.default_rng(4).integers(-32, 33, (30, TOKENS, D)) / 16
    predicted = np.asarray(model.predict(x))
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted.reshape(reference.shape), reference.to_double())
    with torch.no_grad():
        gates = module(torch.tensor(x, dtype=torch.float32)).double().numpy()  # (batch, tokens, experts)
    firmware = predicted.reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2)  # PyTorch outputs come channels last
    np.testing.assert_allclose(firmware, gates, atol=TOLERANCE)
