"""The HGQ2 frontend (hls4ml/converters/keras/hgq.py, hgq_finish.py), without a compiler: the IR it
produces, its types, the folding of uniform quantizers, the refusals, and the emulator against HGQ2's own
inference for the layers the csim matrix does not build (QBatchNormDense, QEinsumDense, QAdd,
QAveragePow2, QConv1D, pooling, output quantizers, the Quantizer layer)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip('hgq')

import hgq_models  # noqa: E402
import keras  # noqa: E402
from hgq.config import QuantizerConfig  # noqa: E402
from hgq.layers import (  # noqa: E402
    QAdd,
    QAveragePooling1D,
    QAveragePow2,
    QBatchNormDense,
    QConv1D,
    QDense,
    QEinsumDense,
    QGlobalMaxPooling1D,
    Quantizer,
)

import hls4ml  # noqa: E402
from hls4ml.converters.keras.hgq import exact_type  # noqa: E402
from hls4ml.model.fixed import quantize  # noqa: E402
from hls4ml.model.types import FixedPrecisionType  # noqa: E402


@pytest.fixture(scope='module')
def dense_model():
    return hgq_models.dense_model()


def test_dense_model_ir(dense_model, tmp_path) -> None:
    hls_model = hgq_models.convert(dense_model, tmp_path)
    kinds = [layer.kind for layer in hls_model.get_layers()]
    assert kinds == ['Input', *(['FixedPointQuantizer', 'Dense', 'Activation'] * 2), 'FixedPointQuantizer', 'Dense']
    for layer in hls_model.get_layers():
        if layer.kind == 'Dense':  # every quantized weight is exact in its preset type
            weights = layer.weights['weight']
            np.testing.assert_array_equal(quantize(weights, layer.types['weight']).value, weights)
        if layer.kind == 'Activation':
            assert layer.types['result'] == hls_model.graph.input_type(layer)  # exact_result: the input type
    hgq_models.assert_emulator_exact(dense_model, hls_model, (hgq_models.DENSE_FEATURES,))


def test_config_from_keras_model_keeps_the_quantizer_types(dense_model, tmp_path) -> None:
    first, second = (layer.name for layer in dense_model.layers[:2])  # Keras numbers names per process
    config = hls4ml.utils.config_from_keras_model(dense_model, granularity='name')
    assert f'{second}_iq' in config['LayerName']
    hls_model = hgq_models.convert(dense_model, tmp_path, hls_config=config)
    hgq_models.assert_emulator_exact(dense_model, hls_model, (hgq_models.DENSE_FEATURES,))
    config['LayerName'][first]['Precision']['result'] = 'fixed<8,3>'  # a named type wins
    named = hgq_models.convert(dense_model, tmp_path / 'named', hls_config=config)
    assert str(named.graph.layers[first].types['result']) == 'fixed<8,3>'


def test_uniform_quantizers_fold_into_the_layer_before(tmp_path) -> None:
    uniform = QuantizerConfig('kif', 'datalane', heterogeneous_axis=(), i0=3, f0=2, overflow_mode='SAT')
    model = keras.Sequential(
        [keras.Input((4,)), QDense(5, activation='relu', iq_conf=uniform, enable_oq=True, oq_conf=uniform)]
    )
    hls_model = hgq_models.convert(model, tmp_path)
    layers = list(hls_model.get_layers())
    assert [layer.kind for layer in layers] == ['Input', 'Dense', 'Activation']
    assert layers[0].types['result'] == FixedPrecisionType(6, 4, True, 'RND', 'SAT')
    assert layers[2].types['result'] == FixedPrecisionType(6, 4, True, 'RND', 'SAT')
    hgq_models.assert_emulator_exact(model, hls_model, (4,))


def test_batchnorm_einsum_merges_and_output_quantizer(tmp_path) -> None:
    keras.utils.set_random_seed(4)
    inputs = keras.Input((6,))
    batchnorm = QBatchNormDense(6, activation='relu')
    hidden = batchnorm(inputs)
    left = QEinsumDense('ab,bc->ac', output_shape=5, bias_axes='c')(hidden)
    right = QDense(5)(hidden)
    added = QAdd()([left, right])
    averaged = QAveragePow2()([added, right])
    outputs = Quantizer(QuantizerConfig('kif', 'datalane', i0=2, f0=3))(averaged)
    model = keras.Model(inputs, QDense(3, enable_oq=True)(outputs))
    rng = np.random.default_rng(0)  # statistics as training would leave them, without the cost of fit()
    batchnorm.moving_mean.assign(rng.normal(0, 0.5, 6).astype(np.float32))
    batchnorm.moving_variance.assign(rng.uniform(0.5, 2, 6).astype(np.float32))
    hgq_models.heterogenize(model, 4)
    hls_model = hgq_models.convert(model, tmp_path)
    kinds = {layer.kind for layer in hls_model.get_layers()}
    assert {'Merge', 'Dense', 'FixedPointQuantizer'} <= kinds
    hgq_models.assert_emulator_exact(model, hls_model, (6,))


def test_conv1d_and_pooling(tmp_path) -> None:
    keras.utils.set_random_seed(5)
    model = keras.Sequential(
        [
            keras.Input((8, 2)),
            QConv1D(3, 3, padding='same', activation='relu'),
            QAveragePooling1D(2),
            QGlobalMaxPooling1D(),
        ]
    )
    hgq_models.heterogenize(model, 5)
    hls_model = hgq_models.convert(model, tmp_path)
    hgq_models.assert_emulator_exact(model, hls_model, (8, 2))


def test_refusals_name_the_layer(tmp_path) -> None:
    scaled = keras.Sequential([keras.Input((4,)), Quantizer(QuantizerConfig('kif', 'datalane', scaler=3.0))])
    with pytest.raises(ValueError, match="'quantizer.*scaler"):
        hgq_models.convert(scaled, tmp_path)
    reflecting = QuantizerConfig('kif', 'datalane', overflow_mode='WRAP_SM')
    with pytest.raises(ValueError, match='WRAP_SM'):
        hgq_models.convert(keras.Sequential([keras.Input((4,)), QDense(2, iq_conf=reflecting)]), tmp_path)


@pytest.mark.parametrize(
    ('equation', 'output_shape', 'bias_axes', 'shape'),
    [('ab,c->abc', (4, 3), None, (4,)), ('abc,cde->abde', (3, 2, 2), 'de', (3, 4)), ('abc,bcd->ad', 5, 'd', (3, 4))],
)
def test_einsum_dense_equations_beyond_dense(equation, output_shape, bias_axes, shape, tmp_path) -> None:
    """QEinsumDense equations that are not a dense over the last axis: an EinsumDense of HGQ2's
    quantized kernel, bit-exact with HGQ2."""
    keras.utils.set_random_seed(6)
    layer = QEinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes)
    model = keras.Sequential([keras.Input(shape), layer])
    hgq_models.heterogenize(model, 6)
    hls_model = hgq_models.convert(model, tmp_path)
    assert 'EinsumDense' in [layer.kind for layer in hls_model.get_layers()]
    hgq_models.assert_emulator_exact(model, hls_model, shape)


def test_float32_warning_names_the_layer(tmp_path) -> None:
    wide = QuantizerConfig('kif', 'datalane', i0=8, f0=12)
    model = keras.Sequential([keras.Input((64,)), QDense(2, iq_conf=wide, name='wide')])
    with pytest.warns(UserWarning, match="'wide'.*float32"):
        hgq_models.convert(model, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        hgq_models.convert(keras.Sequential([keras.Input((4,)), QDense(2)]), tmp_path / 'narrow')


def test_exact_type_is_minimal() -> None:
    assert exact_type(np.array([0.75, -0.5])) == FixedPrecisionType(3, 1, True)
    assert exact_type(np.array([4.0, 8.0])) == FixedPrecisionType(2, 4, False)
    assert exact_type(np.zeros(3)) == FixedPrecisionType(1, 1, False)


def test_float_quantizers_are_refused(tmp_path) -> None:
    """HGQ2 0.2.0 cannot build a float quantizer through its config (it passes is_weight), so the
    FloatPointQuantizer is put into a Quantizer layer by hand."""
    from hgq.quantizer.internal import FloatPointQuantizer

    layer = Quantizer(QuantizerConfig('kif', 'datalane'))
    layer.quantizer = FloatPointQuantizer(m0=2, e0=4, e00=0, homogeneous_axis=(0,))
    model = keras.Sequential([keras.Input((4,)), layer])
    with pytest.raises(ValueError, match="'quantizer.*FloatPointQuantizer quantizers are not supported"):
        hgq_models.convert(model, tmp_path)


def test_stochastic_rounding_dummy_quantizer_and_qnoise(tmp_path) -> None:
    """S_RND rounds like RND at inference; qnoise_factor acts in training only; a dummy quantizer passes."""
    noisy = QuantizerConfig('kif', 'datalane', round_mode='S_RND', qnoise_factor=0.5)
    model = keras.Sequential([keras.Input((4,)), Quantizer(QuantizerConfig(q_type='dummy')), QDense(3, iq_conf=noisy)])
    hgq_models.heterogenize(model, 6)
    hls_model = hgq_models.convert(model, tmp_path)
    quantizers = [layer for layer in hls_model.get_layers() if layer.kind == 'FixedPointQuantizer']
    assert [layer.attributes['rounding'] for layer in quantizers] == ['RND']
    hgq_models.assert_emulator_exact(model, hls_model, (4,))


REFUSED = {
    'QMeanPow2': lambda layers: layers.QMeanPow2(),
    'QSum': lambda layers: layers.QSum(),
    'QDenseT': lambda layers: layers.QDenseT(3),
}


@pytest.mark.parametrize('class_name', sorted(REFUSED))
def test_unsupported_hgq_layers_are_listed_by_name(tmp_path, class_name: str) -> None:
    import hgq.layers

    model = keras.Sequential([keras.Input((4,)), REFUSED[class_name](hgq.layers)])
    with pytest.raises(ValueError, match=f'unsupported Keras layer.*{class_name}'):
        hgq_models.convert(model, tmp_path)
