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
