"""Sinkhorn-balanced token choice (Router with sinkhorn_iterations, alone and with a capacity) compiled
with g++ on Vitis in both IO types and Catapult: predict() equals the interpreter bit for bit; the
chosen experts equal the float64 Sinkhorn selection wherever its k-th and (k+1)-th balanced scores
are apart; through PyTorch's TopKRouter(sinkhorn_iterations=) the gates are the module's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.sinkhorn import sinkhorn_exact
from hls4ml.nn.torch_moe import TopKRouter

pytestmark = pytest.mark.csim
TOKENS, D, EXPERTS, ITERATIONS = 6, 4, 4, 3
TOLERANCE = 2.0**-7


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    weight = np.random.default_rng(1).normal(0, 1, (D, EXPERTS))  # logits within the exp table's reach (docs)
    logits = builder.dense(Origin('gate', 'Linear'), x, weight, None)
    for name, output, capacity in (('indices', 'indices', 0), ('gates', 'gates', 3)):
        routed = builder.router(Origin(name, 'TopKRouter'), logits, 2, True, output, capacity, ITERATIONS)
        builder.output(routed, Origin(name, 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('Catapult', 'io_parallel')]
)
def test_sinkhorn_router(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = np.random.default_rng(0).normal(0, 1, (40, TOKENS, D))
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    for values, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(np.asarray(values).reshape(reference.shape), reference.to_double())
    logits = per_layer['gate'].to_double().reshape(-1, TOKENS, EXPERTS)
    balanced = sinkhorn_exact(logits, ITERATIONS).reshape(-1, EXPERTS)
    ordered = -np.sort(-balanced, axis=1)
    apart = ordered[:, 1] - ordered[:, 2] > 2 * TOLERANCE  # the plan: each entry within 2^-7 (test_sinkhorn_reference)
    chosen = references[0].to_double().reshape(-1, 2, TOKENS).swapaxes(1, 2).reshape(-1, 2)  # channels first
    expected = np.argsort(-balanced, axis=1, kind='stable')[:, :2]
    np.testing.assert_array_equal(np.sort(chosen[apart], axis=1), np.sort(expected[apart], axis=1))  # the same two
    assert apart.mean() > 0.8
    plain = np.argsort(-logits.reshape(-1, EXPERTS), axis=1, kind='stable')[:, :2]
    assert (np.sort(plain, axis=1) != np.sort(expected, axis=1)).any()  # balancing changed some choices


def test_torch_sinkhorn_router(tmp_path) -> None:
    module = TopKRouter(D, EXPERTS, k=2, sinkhorn_iterations=ITERATIONS).eval()
    with torch.no_grad():
        module.gate.weight.copy_(torch.tensor(np.random.default_rng(3).integers(-8, 9, (EXPERTS, D)) / 8))
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}, 'InputShape': (TOKENS, D)}
    model = hls4ml.converters.convert_from_pytorch_model(
        module, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    x = np.random.default_rng(4).integers(-32, 33, (40, TOKENS, D)) / 16
    predicted = np.asarray(model.predict(x))
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted.reshape(reference.shape), reference.to_double())
    with torch.no_grad():
        logits = module.gate(torch.tensor(x, dtype=torch.float64).float()).double().numpy()
        gates = module(torch.tensor(x, dtype=torch.float32)).double().numpy().reshape(-1, EXPERTS)
    balanced = sinkhorn_exact(logits, ITERATIONS).reshape(-1, EXPERTS)
    ordered = -np.sort(-balanced, axis=1)
    apart = ordered[:, 1] - ordered[:, 2] > 2 * TOLERANCE  # the plan: each entry within 2^-7 (test_sinkhorn_reference)
    firmware = predicted.reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2).reshape(-1, EXPERTS)
    np.testing.assert_allclose(firmware[apart], gates[apart], atol=TOLERANCE)
    assert apart.mean() > 0.7
