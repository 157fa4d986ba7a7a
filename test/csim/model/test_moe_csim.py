"""Mixtures of Dense experts with conditional execution (nnet_moe.h) compiled with g++: predict() equals
the reference interpreter bit for bit (Vitis in both IO types, oneAPI and Catapult), per token of a
(tokens, features) input too; and the firmware is within the gate tables' tolerance of the float64
definition written in the test on the quantized logits and weights."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim
D, EXPERTS, OUT, TOKENS, HIDDEN = 6, 4, 5, 3, 7
GATE_TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables (docs/moe.md)


def _weights(seed: int, hidden: int = 0) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Gate and expert layers (kernels, biases) on a 2^-4 grid, so the fixed-point weights are exact:
    one layer D -> OUT, or with `hidden` two, D -> hidden -> OUT."""
    rng = np.random.default_rng(seed)
    grid = lambda *shape: np.round(rng.normal(0, 0.5, shape) * 16) / 16  # noqa: E731
    widths = [D, hidden, OUT] if hidden else [D, OUT]
    return grid(D, EXPERTS), [(grid(EXPERTS, a, b), grid(EXPERTS, b)) for a, b in zip(widths, widths[1:], strict=False)]


def _model(tmp_path, backend, io_type, shape, k: int, renormalize: bool, hidden: int = 0, reuse: int = 1) -> ModelGraph:
    gate, experts = _weights(3, hidden)
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), shape)
    logits = builder.dense(Origin('gate', 'Linear'), x, gate, None)
    y = builder.moe(Origin('moe', 'MoE'), x, logits, experts, k, renormalize)
    builder.output(y, Origin('moe', 'out'))
    graph, origin = builder.finish()
    config = hls4ml.utils.create_config(str(tmp_path / 'prj'), 'myproject', backend, io_type=io_type)
    strategy = 'Resource' if reuse > 1 else 'Latency'
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': reuse, 'Strategy': strategy}}
    return ModelGraph(config, graph, origin)


def expert(features: np.ndarray, experts: list[tuple[np.ndarray, np.ndarray]], e: int) -> np.ndarray:
    """f_e: x W_e + b_e, or relu(x W_e + b_e) W2_e + b2_e."""
    value = features @ experts[0][0][e] + experts[0][1][e]
    return value if len(experts) == 1 else np.maximum(value, 0) @ experts[1][0][e] + experts[1][1][e]


def definition(x: np.ndarray, logits: np.ndarray, experts: list, k: int, renormalize: bool) -> np.ndarray:
    """Float64, token by token, from the definition: softmax of the logits, the k best (the lower index
    first on ties), gates renormalised over them or not, y = sum of gate_e * f_e(x)."""
    outputs = []
    for features, scores in zip(x.reshape(-1, D), logits.reshape(-1, EXPERTS), strict=True):
        probabilities = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        chosen = sorted(range(EXPERTS), key=lambda e: (-scores[e], e))[:k]
        gates = probabilities[chosen] / (probabilities[chosen].sum() if renormalize else 1.0)
        outputs.append(sum(g * expert(features, experts, e) for g, e in zip(gates, chosen, strict=True)))
    return np.array(outputs)


@pytest.mark.parametrize(
    ('backend', 'io_type', 'shape', 'k', 'renormalize', 'hidden'),
    [
        ('Vitis', 'io_parallel', (D,), 2, True, 0),
        ('Vitis', 'io_stream', (TOKENS, D), 2, False, 0),
        ('Vitis', 'io_parallel', (TOKENS, D), 1, False, 0),
        ('oneAPI', 'io_parallel', (D,), 3, True, 0),
        ('Catapult', 'io_stream', (D,), 2, True, 0),
        ('Vitis', 'io_parallel', (TOKENS, D), 2, True, HIDDEN),
        ('Vitis', 'io_stream', (D,), 2, False, HIDDEN),
        ('oneAPI', 'io_stream', (D,), 1, False, HIDDEN),
    ],
)
def test_moe_bit_exact_and_near_the_definition(tmp_path, backend, io_type, shape, k, renormalize, hidden) -> None:
    model = _model(tmp_path, backend, io_type, shape, k, renormalize, hidden)
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(0, 1, (40, *shape)) * 64) / 64  # on the input grid
    x[0] = 0  # all logits tied: the lower experts win
    predicted = model.predict(x)
    (reference,), per_layer = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    _, experts = _weights(3, hidden)
    expected = definition(x, per_layer['gate'].to_double(), experts, k, renormalize)
    largest = max(np.abs(expert(row, experts, e)).max() for row in x.reshape(-1, D) for e in range(EXPERTS))
    bound = GATE_TOLERANCE * k * largest
    firmware = per_layer['moe'].to_double().reshape(expected.shape)  # (tokens, OUT); predict() is channels first
    np.testing.assert_allclose(firmware, expected, atol=bound + 2.0**-10)


def test_only_the_routed_experts_matter(tmp_path) -> None:
    """Changing the weights of an expert no token routes to leaves every output bit unchanged."""
    model = _model(tmp_path, 'Vitis', 'io_parallel', (D,), 1, False)
    x = np.round(np.random.default_rng(5).normal(0, 1, (EXPERTS - 1, D)) * 64) / 64  # k = 1: an expert idles
    (_,), per_layer = interpret(model, x)
    used = set(np.argmax(per_layer['gate'].to_double(), axis=1))
    unused = [e for e in range(EXPERTS) if e not in used]
    before = model.predict(x)
    model.graph.layers['moe'].weights['weight'][unused] = 0.0  # the interpreter reads the changed weights
    (after,), _ = interpret(model, x)
    np.testing.assert_array_equal(before, after.to_double())


def test_reuse_factor_changes_no_bit(tmp_path) -> None:
    """FFN experts at ReuseFactor 5 (Resource; the gate products folded in 5 steps of 2): the same bits as
    the interpreter, whose arithmetic does not depend on the reuse factor."""
    model = _model(tmp_path, 'Vitis', 'io_parallel', (TOKENS, D), 2, True, HIDDEN, reuse=5)
    assert model.graph.layers['moe'].attributes['reuse_factor'] == 5
    x = np.round(np.random.default_rng(2).normal(0, 1, (20, TOKENS, D)) * 64) / 64
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(model.predict(x), reference.to_double())
