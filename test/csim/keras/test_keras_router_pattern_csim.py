"""The router subgraph written with keras.ops in a functional model (gate Dense -> softmax -> top_k ->
optional division by the sum of the kept values) converts to Router layers
(hls4ml/converters/keras/router_pattern.py), compiled on Vitis in both IO types: predict() equals the
reference interpreter bit for bit; the gate kernels and inputs are on a coarse grid, so the logits are
exact and the chosen experts are Keras's (ties to the lower index in both); the gates agree within
the table tolerance. Where the probabilities are read elsewhere too, the softmax and top-k convert as
before, and the division by the computed sum is refused by name."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.converters.keras import KerasConversionError, parse_keras_model  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
D, EXPERTS = 4, 8
TOLERANCE = 2.0**-7  # the 1024-entry exp and reciprocal tables of the gates
# (top_k operation, k, renormalised): the four gatings, each in another spelling of the pattern
ROUTERS = [('mixtral', 2, True), ('single', 1, True), ('vmoe', 2, False), ('switch', 1, False)]


def _renormalised(weights: keras.KerasTensor) -> keras.KerasTensor:
    return weights / keras.ops.sum(weights, axis=-1, keepdims=True)


def _model() -> keras.Model:
    inputs = keras.Input((D,))
    gates = [keras.layers.Dense(EXPERTS, use_bias=False, name=f'{name}_gate') for name, _, _ in ROUTERS]
    logits = [gate(inputs) for gate in gates]
    mixtral, mixtral_experts = keras.ops.top_k(keras.ops.softmax(logits[0]), 2)
    single, single_experts = keras.ops.top_k(keras.layers.Softmax()(logits[1]), 1)
    single = keras.ops.divide(single, keras.ops.sum(single, axis=-1, keepdims=True))
    vmoe = keras.ops.top_k(keras.layers.Activation('softmax')(logits[2]), 2)
    switch = keras.ops.top_k(keras.ops.softmax(logits[3], axis=-1), 1)
    outputs = [_renormalised(mixtral), mixtral_experts, single, single_experts, *vmoe, *switch]
    rng = np.random.default_rng(7)
    for gate in gates:  # multiples of 1/8: exact logits
        gate.kernel.assign(rng.integers(-8, 9, (D, EXPERTS)) / 8)
    return keras.Model(inputs, outputs)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(8)
    return np.concatenate([rng.integers(-32, 33, (40, D)) / 16, np.zeros((2, D))])  # zeros: all logits tie


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_hand_written_routers(tmp_path, io_type: str) -> None:
    keras_model = _model()
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', default_precision='fixed<16,6>')
    model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path), backend='Vitis', io_type=io_type
    )
    kinds = [layer.kind for layer in model.graph.layers.values()]
    assert kinds.count('Router') == 2 * len(ROUTERS) and not {'Softmax', 'TopK'} & set(kinds)
    routers = [model.graph.producer(tensor) for tensor in model.graph.outputs]
    for index, (_, k, renormalize) in enumerate(ROUTERS):
        for layer, output in zip(routers[2 * index : 2 * index + 2], ('weights', 'indices'), strict=True):
            assert layer.kind == 'Router' and layer.inputs[0].startswith(f'{ROUTERS[index][0]}_gate')  # or its copy
            assert (layer.attributes['k'], layer.attributes['renormalize'], layer.attributes['output']) == (
                k,
                renormalize,
                output,
            )
    x = _inputs()
    predicted = model.predict(x)
    references, _ = interpret(model, x)
    for output, reference in zip(predicted, references, strict=True):
        np.testing.assert_array_equal(output, reference.to_double())
    expected = [np.asarray(tensor, dtype=np.float64) for tensor in keras_model(x.astype(np.float32))]
    for index in range(len(ROUTERS)):
        np.testing.assert_array_equal(predicted[2 * index + 1], expected[2 * index + 1])  # the chosen experts
        np.testing.assert_allclose(predicted[2 * index], expected[2 * index], atol=TOLERANCE)


def _reused(renormalize: bool) -> keras.Model:
    inputs = keras.Input((D,))
    probabilities = keras.ops.softmax(keras.layers.Dense(EXPERTS, use_bias=False, name='gate')(inputs))
    weights, experts = keras.ops.top_k(probabilities, 2)
    return keras.Model(inputs, [_renormalised(weights) if renormalize else weights, experts, probabilities])


def test_reused_probabilities_keep_softmax_and_topk() -> None:
    graph, _ = parse_keras_model(_reused(renormalize=False))
    assert sorted(layer.kind for layer in graph.layers.values()) == ['Dense', 'Input', 'Softmax', 'TopK', 'TopK']


def test_refused_renormalisation_names_the_division() -> None:
    message = r'sum\w* \(Sum\) and true_divide\w* \(TrueDivide\): divide the top-k values of .top_k\w*.'
    with pytest.raises(KerasConversionError, match=message + r'.*a model output.*hls4ml\.nn\.keras_moe\.TopKRouter'):
        parse_keras_model(_reused(renormalize=True))
