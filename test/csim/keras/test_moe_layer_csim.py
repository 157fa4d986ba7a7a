"""The Keras 3 layers of hls4ml.nn.keras_moe (TopKRouter in its three outputs and both gatings,
SparseSoftTopK as mask and magnitude) converted and compiled on Vitis, oneAPI and Catapult in both IO
types. predict() equals the reference interpreter bit for bit. Against the layers' own call: the gate
kernels and inputs are on a coarse grid, so the logits are exact in fixed<16,6> and the chosen experts
agree exactly (ties to the lower index in both); the gates agree within the table tolerance, the soft
top-k within its documented error bound."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.converters.keras import KerasConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.model.reference.soft_topk import layer_soft_topk_types, soft_topk_error_bound  # noqa: E402
from hls4ml.nn.keras_moe import ExpertChoiceRouter, SparseSoftTopK, TopKRouter  # noqa: E402

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables of the gates


def _model() -> keras.Model:
    inputs = keras.Input((D,))
    routers = [
        TopKRouter(EXPERTS, k=2, renormalize=True, output_mode='gates', name='mixtral'),
        TopKRouter(EXPERTS, k=2, renormalize=False, output_mode='weights', name='vmoe'),
        TopKRouter(EXPERTS, k=3, output_mode='indices', use_bias=True, name='experts'),
    ]
    outputs = [router(inputs) for router in routers]
    outputs.append(SparseSoftTopK(k=2, l=0.25, name='mask')(inputs))
    outputs.append(SparseSoftTopK(k=3, l=0.5, mode='magnitude', iterations=10, name='magnitude')(inputs))
    rng = np.random.default_rng(3)
    for router in routers:  # multiples of 1/8: exact logits
        router.kernel.assign(rng.integers(-8, 9, (D, EXPERTS)) / 8)
        if router.bias is not None:
            router.bias.assign(rng.integers(-4, 5, EXPERTS) / 8)
    return keras.Model(inputs, outputs)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(4)
    return np.concatenate([rng.integers(-32, 33, (40, D)) / 16, np.zeros((2, D))])


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_moe_layers(tmp_path, backend: str, io_type: str) -> None:
    keras_model = _model()
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision='fixed<16,6>')
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = _inputs()
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    expected = [np.asarray(tensor, dtype=np.float64) for tensor in keras_model(x.astype(np.float32))]
    gates, weights, experts, mask, magnitude = predicted
    np.testing.assert_array_equal(experts, expected[2])
    np.testing.assert_array_equal(gates != 0, expected[0] != 0)
    np.testing.assert_allclose(gates, expected[0], atol=TOLERANCE)
    np.testing.assert_allclose(weights, expected[1], atol=TOLERANCE)
    for name, values, reference in (('mask', mask, expected[3]), ('magnitude', magnitude, expected[4])):
        layer = model.graph.layers[name]
        types = layer_soft_topk_types(layer, model.graph.input_type(layer))
        attributes = layer.attributes
        polished, bracket = soft_topk_error_bound(types, layer.types['result'], attributes['l'], attributes['mode'])
        bound = polished + bracket * 2.0 ** -attributes['iterations'] + 1e-5  # + the layer's float32
        assert np.abs(values - reference).max() <= bound, name


def test_refusals(tmp_path) -> None:
    inputs = keras.Input((D,))
    layer = SparseSoftTopK(k=2, l=0.1, name='soft')
    keras_model = keras.Model(inputs, layer(inputs))
    layer.p = 3.0  # past the layer's own check: the converter refuses it too
    with pytest.raises(KerasConversionError, match=r"'soft' \(SparseSoftTopK\): p=3.0 with mode 'mask'"):
        hls4ml.converters.convert_from_keras_model(keras_model, output_dir=str(tmp_path), backend='Vitis')


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_expert_choice_layer(tmp_path, backend: str, io_type: str) -> None:
    """Groups of 6 tokens over 3 experts, capacity 2. Where an expert's 2nd and 3rd best tokens are
    apart by more than the table tolerance, the tokens it keeps are the layer's."""
    tokens, experts = 6, 3
    inputs = keras.Input((tokens, experts))
    keras_model = keras.Model(inputs, ExpertChoiceRouter(capacity=2, name='choice')(inputs))
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision='fixed<16,6>')
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    x = np.random.default_rng(5).integers(-16, 17, (30, tokens, experts)) / 8
    predicted = model.predict(x)
    (reference,), _ = interpret(model, x)
    np.testing.assert_array_equal(predicted, reference.to_double())
    gates = predicted.reshape(-1, tokens, experts)
    expected = np.asarray(keras_model(x.astype(np.float32)), dtype=np.float64)
    np.testing.assert_allclose(gates, expected, atol=TOLERANCE)
    probabilities = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)
    ordered = -np.sort(-probabilities, axis=1)
    clear = (ordered[:, 1] - ordered[:, 2]) > 2 * TOLERANCE
    np.testing.assert_array_equal((gates != 0).transpose(0, 2, 1)[clear], (expected != 0).transpose(0, 2, 1)[clear])


@pytest.mark.parametrize(
    'backend, io_type', [('Vitis', 'io_stream'), ('oneAPI', 'io_parallel'), ('Catapult', 'io_stream')]
)
def test_topk_router_per_token(tmp_path, backend: str, io_type: str) -> None:
    """TopKRouter on (tokens, D) inputs: the gate a pointwise Conv1D, then a Router of 5 rows, each
    token routed on its own; bit-exact, Keras' experts exactly, the gates within TOLERANCE."""
    inputs = keras.Input((5, D))
    routers = [
        TopKRouter(EXPERTS, k=2, renormalize=True, output_mode='gates', name='mixtral'),
        TopKRouter(EXPERTS, k=3, output_mode='indices', use_bias=True, name='experts'),
    ]
    keras_model = keras.Model(inputs, [router(inputs) for router in routers])
    rng = np.random.default_rng(5)
    for router in routers:
        router.kernel.assign(rng.integers(-8, 9, (D, EXPERTS)) / 8)
        if router.bias is not None:
            router.bias.assign(rng.integers(-4, 5, EXPERTS) / 8)
    config = {'Model': {'Precision': 'fixed<16,6>'}}
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend=backend, io_type=io_type
    )
    assert [layer.kind for layer in model.graph.layers.values()].count('Router') == 2
    x = _inputs()[2:].reshape(8, 5, D)
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double().reshape(output.shape))
    gates, experts = (np.asarray(output).reshape(8, 5, -1) for output in predicted)
    want_gates, want_experts = keras_model.predict(x, verbose=0)
    np.testing.assert_array_equal(experts, want_experts)
    np.testing.assert_array_equal(gates != 0, want_gates != 0)
    np.testing.assert_allclose(gates, want_gates, atol=TOLERANCE)
