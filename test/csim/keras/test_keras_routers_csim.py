"""hls4ml.nn.keras_routers.SoftTopKRouter on (tokens, features) converted from Keras 3 and compiled on
Vitis in both IO types: predict() equals the interpreter bit for bit, and the layer's own float gates
within the table tolerance."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip('keras')

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.keras_routers import SoftTopKRouter  # noqa: E402

pytestmark = pytest.mark.csim
TOKENS, D, EXPERTS = 3, 4, 8
TOLERANCE = 2.0**-7


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_soft_router_layer(tmp_path, io_type: str) -> None:
    inputs = keras.Input((TOKENS, D))
    layer = SoftTopKRouter(EXPERTS, k=2, l=0.25, k_max=4, mask_on='probabilities', name='router')
    model = keras.Model(inputs, layer(inputs))
    layer.kernel.assign(np.random.default_rng(2).integers(-8, 9, (D, EXPERTS)) / 8)
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    converted = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )
    x = np.random.default_rng(0).integers(-32, 33, (40, TOKENS, D)) / 16
    predicted = np.asarray(converted.predict(x)).reshape(-1, EXPERTS)
    (reference,), _ = interpret(converted, x)
    np.testing.assert_array_equal(predicted, reference.to_double().reshape(-1, EXPERTS))
    gates = np.asarray(model(x)).reshape(-1, EXPERTS)
    probabilities = np.sort(np.asarray(keras.ops.softmax(x @ np.asarray(layer.kernel))).reshape(-1, EXPERTS))
    apart = probabilities[:, -4] - probabilities[:, -5] > TOLERANCE  # k_max = 4 keeps the same experts
    np.testing.assert_allclose(predicted[apart], gates[apart], atol=TOLERANCE)
    assert apart.mean() > 0.6  # the coarse grid ties many logits; tied keys are kept alike (lower index)


def test_capacity_sinkhorn_router(tmp_path) -> None:
    """hls4ml.nn.keras_moe.TopKRouter with a capacity and Sinkhorn balancing over (tokens, features)."""
    from hls4ml.nn.keras_moe import TopKRouter

    inputs = keras.Input((6, D))
    layer = TopKRouter(4, k=2, capacity=3, sinkhorn_iterations=2, name='router')
    model = keras.Model(inputs, layer(inputs))
    layer.kernel.assign(np.random.default_rng(3).integers(-8, 9, (D, 4)) / 8)
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    converted = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    x = np.random.default_rng(5).integers(-32, 33, (30, 6, D)) / 16
    predicted = np.asarray(converted.predict(x)).reshape(-1, 4)
    (reference,), _ = interpret(converted, x)
    np.testing.assert_array_equal(predicted, reference.to_double().reshape(-1, 4))
    gates = np.asarray(model(x)).reshape(-1, 4)
    assert ((predicted > 0).reshape(-1, 6, 4).sum(axis=1) <= 3).all()  # the capacity per sample
    close = np.abs(predicted - gates).max(axis=1) > TOLERANCE
    assert close.mean() < 0.1  # a choice flips only where balanced scores are within the plan's bound


def test_cubic_soft_routers(tmp_path) -> None:
    """SoftTopKRouter(p=4/3) and ExpertChoiceRouter(l, p=4/3) on (tokens, features): firmware ==
    interpreter bit for bit, and the layers' float forwards (exact, cubic ramp) within the table tolerances."""
    from hls4ml.nn.keras_moe import ExpertChoiceRouter

    inputs = keras.Input((TOKENS, D))
    router = SoftTopKRouter(EXPERTS, k=2, l=0.5, p=4 / 3, k_max=3, iterations=14, name='router')
    choice = ExpertChoiceRouter(capacity=2, l=0.25, iterations=14, p=4 / 3, name='choice')
    model = keras.Model(inputs, [router(inputs), choice(inputs)])
    router.kernel.assign(np.random.default_rng(2).integers(-8, 9, (D, EXPERTS)) / 8)
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    converted = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel'
    )
    assert converted.graph.layers['router'].attributes['p'] == converted.graph.layers['choice'].attributes['p']
    x = np.random.default_rng(0).integers(-32, 33, (40, TOKENS, D)) / 16
    predicted = converted.predict(x)
    references, _ = interpret(converted, x)
    for values, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(np.asarray(values).reshape(reference.shape), reference.to_double())
    gates, chosen = (np.asarray(value, dtype=np.float64) for value in model(x))
    np.testing.assert_allclose(np.asarray(predicted[0]).reshape(gates.shape), gates, atol=TOLERANCE)
    np.testing.assert_allclose(np.asarray(predicted[1]).reshape(chosen.shape), chosen, atol=2.0**-6)
