"""The sparse-soft-top-k router (Linear -> SoftTopKRouter) compiled with g++: predict() equals the
reference interpreter bit for bit on Vitis in both IO types, oneAPI (io_stream) and Catapult
(io_parallel), with logits and probabilities as the mask's keys, k_max truncation, the overflow count
and unnormalised gates; the gates are within the table tolerance of the float64 definition."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.soft_router import soft_router_exact

pytestmark = pytest.mark.csim
D, EXPERTS, TOKENS = 4, 8, 3
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables
ROUTERS = (  # name, l, k_max, mask_on, renormalize, output
    ('truncated', 0.5, 3, 'logits', True, 'gates'),
    ('overflow', 0.5, 3, 'logits', True, 'overflow'),
    ('plain', 0.125, EXPERTS, 'probabilities', False, 'gates'),
    ('on_probabilities', 0.125, 4, 'probabilities', True, 'gates'),
    ('any_l', 0.3, 3, 'logits', True, 'gates'),  # l not a power of two: the firmware's rounded l
)


def _model(tmp_path, backend: str, io_type: str) -> ModelGraph:
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (TOKENS, D))
    weight = np.random.default_rng(1).normal(0, 1, (D, EXPERTS))
    logits = builder.dense(Origin('gate', 'Linear'), x, weight, None)
    for name, strength, k_max, mask_on, renormalize, output in ROUTERS:
        settings = {'k': 2, 'l': strength, 'p': 2, 'iterations': 12, 'k_max': k_max}
        settings |= {'mask_on': mask_on, 'renormalize': renormalize, 'output': output}
        builder.output(builder.soft_router(Origin(name, 'SoftTopKRouter'), logits, settings), Origin(name, 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize(
    ('backend', 'io_type'),
    [('Vitis', 'io_parallel'), ('Vitis', 'io_stream'), ('oneAPI', 'io_stream'), ('Catapult', 'io_parallel')],
)
def test_soft_router_bit_exact(tmp_path, backend: str, io_type: str) -> None:
    model = _model(tmp_path, backend, io_type)
    x = np.concatenate([np.random.default_rng(0).normal(0, 1, (30, TOKENS, D)), np.zeros((1, TOKENS, D))])
    predicted = model.predict(x)
    references, per_layer = interpret(model, x)
    logits = per_layer['gate'].to_double().reshape(-1, EXPERTS)
    for (name, strength, k_max, mask_on, renormalize, output), values, reference in zip(
        ROUTERS, predicted, references, strict=True
    ):
        values = np.asarray(values).reshape(reference.shape)
        np.testing.assert_array_equal(values, reference.to_double(), err_msg=name)
        if output == 'overflow' or mask_on == 'probabilities' and renormalize:
            continue  # the k_max truncation on probabilities: test_soft_router_reference.py, where keys are apart
        gates, _ = soft_router_exact(logits, 2, strength, mask_on, renormalize, k_max)
        by_token = values.reshape(-1, EXPERTS, TOKENS).swapaxes(1, 2).reshape(-1, EXPERTS)  # outputs: (experts, tokens)
        np.testing.assert_allclose(by_token, gates, atol=TOLERANCE, err_msg=name)
