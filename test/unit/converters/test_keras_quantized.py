"""Keras 3 built-in quantization (`quantize(mode)`) and QKeras layers: every mode converts or is refused
by name. Weight-only modes must carry the kernel Keras itself multiplies by, read back from the
quantized layer applied to the identity matrix (not from its variables)."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from keras.quantizers import AbsMaxQuantizer, Int4QuantizationConfig, Int8QuantizationConfig  # noqa: E402

from hls4ml.converters.keras import KerasConversionError, parse_keras_model  # noqa: E402
from hls4ml.converters.keras import handlers as keras_handlers  # noqa: E402

WEIGHT_ONLY = {
    'int8 weights only': ('int8', lambda: Int8QuantizationConfig(activation_quantizer=None)),
    'int8 custom weight quantizer': (
        'int8',
        lambda: Int8QuantizationConfig(
            weight_quantizer=AbsMaxQuantizer(axis=0, value_range=(-63, 63)), activation_quantizer=None
        ),
    ),
    'int4 per channel': ('int4', lambda: Int4QuantizationConfig(block_size=-1)),
    'int4 per group (default)': ('int4', lambda: None),
    'int4 groups of 4': ('int4', lambda: Int4QuantizationConfig(block_size=4)),
}


def dense_model(units: int = 5, n_in: int = 9, seed: int = 2) -> keras.Model:
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((n_in,)), keras.layers.Dense(units, name='fc', bias_initializer='uniform')])
    model.layers[0].kernel.assign(np.random.default_rng(seed).normal(size=(n_in, units)).astype(np.float32))
    return model


def quantized(mode: str, config=None, model: keras.Model | None = None) -> keras.Model:
    model = model or dense_model()
    model.quantize(mode, config=config)
    return model


def refusal(model: keras.Model) -> str:
    with pytest.raises(KerasConversionError) as caught:
        parse_keras_model(model)
    return str(caught.value)


@pytest.mark.parametrize('name', list(WEIGHT_ONLY))
def test_weight_only_modes_convert_to_the_kernel_keras_multiplies_by(name: str) -> None:
    mode, config = WEIGHT_ONLY[name]
    model = quantized(mode, config())
    layer = model.get_layer('fc')
    assert layer.quantization_mode == mode
    n_in = layer.kernel.shape[0]
    effective = np.asarray(layer(np.eye(n_in, dtype=np.float32))) - np.asarray(layer.bias)
    graph, _ = parse_keras_model(model)
    weights = graph.layers['fc'].weights
    np.testing.assert_allclose(weights['weight'], effective, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(weights['bias'], np.asarray(layer.bias, dtype=np.float64))
    assert np.abs(weights['weight']).max() > 0.5  # the dequantized kernel, not the integers' scale-free copy


def test_dynamic_int8_is_refused_by_name_and_mode() -> None:
    message = refusal(quantized('int8'))
    assert "fc (Dense): Keras quantization mode 'int8' cannot be converted" in message
    assert 'abs-max scale computed at run time' in message and 'activation_quantizer=None' in message


def test_int4_with_an_input_quantizer_is_refused() -> None:
    config = Int4QuantizationConfig(block_size=-1, activation_quantizer=AbsMaxQuantizer(axis=-1))
    assert "fc (Dense): Keras quantization mode 'int4' cannot be converted" in refusal(quantized('int4', config))


def test_float8_is_refused_by_name_and_mode() -> None:
    assert "fc (Dense): Keras quantization mode 'float8' cannot be converted" in refusal(quantized('float8'))


@pytest.mark.parametrize('mode', ['gptq', 'awq'])
def test_gptq_and_awq_are_refused_by_name_and_mode(mode: str) -> None:
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, dtype=f'{mode}/4/-1_from_float32', name='q')])
    assert f"q (Dense): Keras quantization mode '{mode}' cannot be converted" in refusal(model)


def test_quantized_einsum_dense_is_refused_by_name_and_mode() -> None:
    model = keras.Sequential([keras.Input((4,)), keras.layers.EinsumDense('ab,bc->ac', output_shape=3, name='e')])
    model.quantize('int8', config=Int8QuantizationConfig(activation_quantizer=None))
    assert "e (EinsumDense): Keras quantization mode 'int8' is only supported on Dense layers" in refusal(model)


def test_quantized_embedding_is_refused_by_name_and_mode() -> None:
    model = keras.Sequential([keras.Input((4,), dtype='int32'), keras.layers.Embedding(10, 3, name='emb')])
    model.quantize('int8')
    assert "emb (Embedding): Keras quantization mode 'int8'" in refusal(model)


def test_lora_on_a_quantized_dense_is_refused() -> None:
    model = dense_model()
    model.get_layer('fc').enable_lora(2)
    model.quantize('int4', config=Int4QuantizationConfig(block_size=-1))
    assert "fc (Dense): Keras quantization mode 'int4' with LoRA enabled is not supported" in refusal(model)


def test_every_refused_layer_is_listed_in_one_error() -> None:
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, name='a'), keras.layers.Dense(2, name='b')])
    model.quantize('float8')
    message = refusal(model)
    assert message.startswith('2 ') and 'a (Dense)' in message and 'b (Dense)' in message


class QDense(keras.layers.Dense):
    """Stands for a QKeras layer: what the frontend looks at is the defining package (qkeras-v3 is
    not installed here; the test below uses the real one when it is)."""


QDense.__module__ = 'qkeras.qlayers'


def test_qkeras_layers_are_refused_even_where_a_handler_of_that_class_name_exists(monkeypatch) -> None:
    monkeypatch.setitem(keras_handlers.HANDLERS, 'QDense', keras_handlers.HANDLERS['Dense'])  # as HGQ2's would be
    model = keras.Sequential([keras.Input((4,)), QDense(3, name='qd')])
    message = refusal(model)
    assert 'qd (QDense): QKeras layers are not supported' in message and 'docs/quantization.md' in message


def test_a_real_qkeras_model_is_refused() -> None:
    """With qkeras-v3 installed. HGQ2 ships a `qkeras` module of its own whose layers are HGQ2 classes
    (defined in `hgq`): those are HGQ2 layers, not refused here."""
    qkeras = pytest.importorskip('qkeras')
    if not hasattr(qkeras, 'QDense') or not qkeras.QDense.__module__.startswith('qkeras'):
        pytest.skip('the qkeras package here is not QKeras (HGQ2 ships a compatibility module of that name)')
    layer = qkeras.QDense(3, kernel_quantizer=qkeras.quantized_bits(6, 0, alpha=1), name='qd')
    model = keras.Sequential([keras.Input((4,)), layer, qkeras.QActivation('quantized_relu(4,1)', name='qa')])
    message = refusal(model)
    assert 'qd (QDense): QKeras layers are not supported' in message and 'qa (QActivation)' in message
