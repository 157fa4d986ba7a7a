"""Token-choice MoE routers (Linear -> router) compiled with g++ on Vitis, oneAPI and Catapult in both IO
types: predict() equals the reference interpreter bit for bit; the experts equal the stable float
top-k of the quantized logits, and the gates the float softmax gating within the table tolerance."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.router import expert_choice_exact, router_exact

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables
ROUTERS = (  # name, k, renormalize, output
    ('mixtral', 2, True, 'gates'),
    ('vmoe', 2, False, 'weights'),
    ('switch', 1, False, 'weights'),
    ('experts', 3, True, 'indices'),
)


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (D,))
    weight = np.random.default_rng(1).normal(0, 1, (D, EXPERTS))
    logits = builder.dense(Origin('gate', 'Linear'), x, weight, None)
    for name, k, renormalize, output in ROUTERS:
        builder.output(builder.router(Origin(name, 'TopKRouter'), logits, k, renormalize, output), Origin(name, 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_router_bit_exact(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = np.concatenate([np.random.default_rng(0).normal(0, 1, (40, D)), np.zeros((2, D))])  # zeros: all tied
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    logits = per_layer['gate'].to_double()
    for (name, k, renormalize, output), values, reference in zip(ROUTERS, predicted, references, strict=True):
        np.testing.assert_array_equal(values, reference.to_double(), err_msg=name)
        gates, chosen = router_exact(logits, k, renormalize)
        if output == 'indices':
            np.testing.assert_array_equal(values, chosen)
        elif output == 'weights':
            np.testing.assert_allclose(values, gates, atol=TOLERANCE)
        else:
            np.testing.assert_allclose(np.take_along_axis(values, chosen, axis=1), gates, atol=TOLERANCE)
            assert ((values != 0).sum(axis=1) <= k).all()


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_expert_choice_bit_exact(tmp_path, backend: str, io_type: str) -> None:
    """A group of 6 tokens over 3 experts, capacity 2 (the spec's C.5 group comes first)."""
    tokens, experts, capacity = 6, 3, 2
    builder = GraphBuilder('off')
    x = builder.input(Origin('x', 'input'), (tokens, experts))
    builder.output(builder.expert_choice(Origin('choice', 'ExpertChoice'), x, capacity), Origin('gates', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    model = ModelGraph(config, graph, origin)
    spec = np.array([[1, 0, -1], [0.5, 0.5, 0], [2, -1, 0], [0, 1, 1], [-1, 0, 2], [0, 0, 0]])
    rng = np.random.default_rng(0)
    x = np.concatenate([spec[np.newaxis], rng.normal(0, 1, (20, tokens, experts)), rng.integers(-1, 2, (9, 6, 3))])
    predicted = model.predict(x)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    gates = predicted.reshape(-1, tokens, experts)
    assert ((gates != 0).sum(axis=1) == capacity).all()  # every expert takes exactly `capacity` tokens
    np.testing.assert_array_equal(np.nonzero(gates[0].T)[1], [0, 2, 1, 3, 3, 4])  # C.5; token 5 unrouted
    np.testing.assert_allclose(gates[:21], expert_choice_exact(x[:21], capacity), atol=TOLERANCE)
