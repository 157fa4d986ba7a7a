"""The soft routers with p = 4/3 compiled with g++ (nnet::soft_router_cubic, nnet::soft_expert_choice_cubic):
predict() equals the reference interpreter bit for bit on Vitis in both IO types and on Catapult
(io_parallel), token choice on logits and on probabilities, with k_max truncation, the overflow count,
unnormalised gates and an l that is not a power of two, and soft expert choice; the token-choice gates
on logits are within the table tolerance of the float64 definition."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_router import soft_expert_choice_exact, soft_router_exact

pytestmark = pytest.mark.csim
D, EXPERTS, TOKENS = 4, 8, 3
P = 4 / 3
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables
ROUTERS = (  # name, l, k_max, mask_on, renormalize, output
    ('truncated', 0.5, 3, 'logits', True, 'gates'),
    ('overflow', 0.5, 3, 'logits', True, 'overflow'),
    ('plain', 0.125, EXPERTS, 'probabilities', False, 'gates'),
    ('on_probabilities', 0.125, 4, 'probabilities', True, 'gates'),
    ('any_l', 0.3, EXPERTS, 'logits', True, 'gates'),
)


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    weight = np.random.default_rng(1).normal(0, 1, (D, EXPERTS))
    logits = builder.dense(Origin('gate', 'Linear'), x, weight, None)
    for name, strength, k_max, mask_on, renormalize, output in ROUTERS:
        settings = {'k': 2, 'l': strength, 'p': P, 'iterations': 14, 'k_max': k_max}
        settings |= {'mask_on': mask_on, 'renormalize': renormalize, 'output': output}
        builder.output(builder.soft_router(Origin(name, 'SoftTopKRouter'), logits, settings), Origin(name, 'out'))
    choice = builder.expert_choice(Origin('choice', 'ExpertChoiceRouter'), logits, 2, 0.25, 14, P)
    builder.output(choice, Origin('choice', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize(
    ('backend', 'io_type'), [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('Catapult', 'io_parallel')]
)
def test_cubic_soft_routers_bit_exact(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = np.concatenate([np.random.default_rng(0).normal(0, 1, (30, TOKENS, D)), np.zeros((1, TOKENS, D))])
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    for name, values, reference in zip(
        [*(router[0] for router in ROUTERS), 'choice'], predicted, references, strict=True
    ):
        np.testing.assert_array_equal(np.asarray(values).reshape(reference.shape), reference.to_double(), name)
    logits = per_layer['gate'].to_double().reshape(-1, TOKENS, EXPERTS)
    for (name, strength, k_max, mask_on, renormalize, output), values in zip(ROUTERS, predicted[:-1], strict=True):
        if mask_on == 'logits' and output == 'gates':
            exact, _ = soft_router_exact(logits.reshape(-1, EXPERTS), 2, strength, mask_on, renormalize, k_max, P)
            by_token = np.asarray(values).reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2).reshape(-1, EXPERTS)
            np.testing.assert_allclose(by_token, exact, atol=TOLERANCE, err_msg=name)
    choice = np.asarray(predicted[-1]).reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2)
    np.testing.assert_allclose(choice, soft_expert_choice_exact(logits, 2, 0.25, P), atol=2.0**-6)
    source = (tmp_path / 'prj' / 'firmware' / 'myproject.cpp').read_text()
    assert 'soft_router_cubic' in source and 'soft_expert_choice_cubic' in source
