"""hls4ml.nn.keras_experts.SparseMoE (linear and FFN experts) and SoftMoE converted and compiled (Vitis both IO types,
oneAPI; one vector or (tokens, features) per sample): a gate Dense and one MoE layer; predict() equals
the reference interpreter bit for bit and the layer's float call within the gate tables' tolerance
(weights and inputs on a coarse grid: the logits are exact in fixed<16,6>, so the routed experts are
Keras's)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.reference.moe import soft_moe_error_bound, soft_moe_exact  # noqa: E402
from hls4ml.nn.keras_experts import SoftMoE, SparseMoE  # noqa: E402

pytestmark = pytest.mark.csim
D, UNITS, EXPERTS = 6, 4, 5
GATE_TOLERANCE = 2.0**-7


@pytest.mark.parametrize(
    ('backend', 'io_type', 'shape', 'k', 'renormalize', 'hidden'),
    [
        ('Vitis', 'io_parallel', (D,), 2, True, None),
        ('Vitis', 'io_stream', (3, D), 2, False, None),
        ('oneAPI', 'io_parallel', (D,), 1, False, None),
        ('Vitis', 'io_parallel', (3, D), 2, True, 8),
    ],
)
def test_sparse_moe_layer(tmp_path, backend: str, io_type: str, shape: tuple[int, ...], k: int, renormalize, hidden):
    inputs = keras.Input(shape)
    layer = SparseMoE(UNITS, EXPERTS, k=k, renormalize=renormalize, gate_bias=True, hidden_units=hidden, name='moe')
    model = keras.Model(inputs, layer(inputs))
    rng = np.random.default_rng(0)
    layer.set_weights([rng.integers(-8, 9, weight.shape) / 16 for weight in layer.get_weights()])
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    kinds = {layer.name: layer.kind for layer in hls_model.graph.layers.values()}
    assert kinds['moe'] == 'MoE' and kinds['moe_gate'] in ('Dense', 'Conv1D')
    x = rng.integers(-32, 33, (30, *shape)) / 16
    predicted = hls_model.predict(x)
    (reference,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    expected = model.predict(x, verbose=0)
    scale = np.abs(expected).max() + 1
    np.testing.assert_allclose(predicted.reshape(expected.shape), expected, atol=k * GATE_TOLERANCE * scale)


def test_soft_moe_layer(tmp_path) -> None:
    """Keras SoftMoE (4 tokens, 2 experts x 2 slots) on Vitis io_stream: bit for bit the interpreter,
    within the documented bound of the float64 definition, which the Keras call matches."""
    inputs = keras.Input((4, 3))
    layer = SoftMoE(2, 2, slots_per_expert=2, name='soft')
    model = keras.Model(inputs, layer(inputs))
    rng = np.random.default_rng(1)
    layer.set_weights([rng.integers(-8, 9, weight.shape) / 8 for weight in layer.get_weights()])
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type='io_stream'
    )
    x = rng.integers(-16, 17, (12, 4, 3)) / 8
    predicted = hls_model.predict(x)
    (reference,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    parameters = layer.get_weights()
    for sample, y in zip(x, predicted.reshape(-1, 4, 2), strict=True):
        stages = soft_moe_exact(sample, *parameters)
        np.testing.assert_allclose(
            y, stages['y'], atol=soft_moe_error_bound(sample, parameters[1], stages, GATE_TOLERANCE)
        )
    exact = np.array([soft_moe_exact(sample, *parameters)['y'] for sample in x])
    np.testing.assert_allclose(model.predict(x, verbose=0), exact, atol=1e-5)
