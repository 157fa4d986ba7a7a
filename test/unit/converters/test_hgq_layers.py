"""The HGQ2 layers of the second round (hls4ml/converters/keras/hgq.py), without a compiler: the IR they
become and the emulator against HGQ2's own inference `model(x, training=False)`, for
QBatchNormalization, QEinsumDenseBatchnorm, dense layers over the last axis of 2-D inputs, the merges
QSubtract, QMultiply, QMaximum and QMinimum, and the table layers QUnaryFunctionLUT,
QAffinedUnaryFunctionLUT and QSoftmax (hgq_tables.py) with their refusals."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('hgq')

import hgq_models  # noqa: E402
import keras  # noqa: E402
from hgq.config import QuantizerConfig  # noqa: E402
from hgq.layers import (  # noqa: E402
    QAffinedUnaryFunctionLUT,
    QBatchNormalization,
    QConv1D,
    QDense,
    QEinsumDenseBatchnorm,
    QMaximum,
    QMinimum,
    QMultiply,
    QSoftmax,
    QSubtract,
    QUnaryFunctionLUT,
)

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402


def _statistics(layer, seed: int) -> None:
    """Moving statistics (and gamma) as training would leave them, without the cost of fit()."""
    rng = np.random.default_rng(seed)
    layer.moving_mean.assign(rng.normal(0, 0.5, layer.moving_mean.shape).astype(np.float32))
    layer.moving_variance.assign(rng.uniform(0.5, 2, layer.moving_variance.shape).astype(np.float32))
    layer.bn_gamma.assign(rng.uniform(0.5, 2, layer.bn_gamma.shape).astype(np.float32))


def test_batchnorm_after_a_conv_and_a_per_particle_einsum_batchnorm(tmp_path) -> None:
    """QConv1D -> QBatchNormalization (per channel) -> QEinsumDenseBatchnorm 'bnc,cC->bnC' (a dense layer
    over the last axis, as HGQ2's jet-tagging models use it: a pointwise Conv1D) -> Flatten -> QDense."""
    keras.utils.set_random_seed(7)
    inputs = keras.Input((6, 3))
    batchnorm = QBatchNormalization(name='bn')
    einsum = QEinsumDenseBatchnorm('bnc,cC->bnC', (4, 5), bias_axes='C', activation='relu', name='einsum')
    hidden = einsum(batchnorm(QConv1D(4, 3, activation='relu')(inputs)))
    model = keras.Model(inputs, QDense(3)(keras.layers.Flatten()(hidden)))
    _statistics(batchnorm, 1)
    _statistics(einsum, 2)
    hgq_models.heterogenize(model, 7)
    widths = batchnorm.kq.quantizer
    widths._b.assign(np.array([0, 3, 5, 7], dtype=np.float32).reshape(widths._b.shape))  # one pruned
    widths._i.assign(np.full(widths._i.shape, 2, dtype=np.float32))
    hls_model = hgq_models.convert(model, tmp_path)
    kinds = {layer.name: layer.kind for layer in hls_model.get_layers()}
    assert kinds['bn'] == 'BatchNormalization'
    assert kinds['einsum'] == 'Conv1D'
    scale = hls_model.graph.layers['bn'].weights['scale']
    assert (scale[::4] == 0).all() and (scale[1::4] != 0).all() and len(set(scale.tolist())) >= 3  # one pruned
    hgq_models.assert_emulator_exact(model, hls_model, (6, 3))


def test_batchnorm_right_after_a_dense_is_not_folded_into_it(tmp_path) -> None:
    """Without its input quantizer the batch normalization reads the QDense directly; folding it would
    round the products W * scale into the QDense's exact weight type."""
    keras.utils.set_random_seed(8)
    batchnorm = QBatchNormalization(enable_iq=False)
    model = keras.Sequential([keras.Input((5,)), QDense(4), batchnorm])
    _statistics(batchnorm, 3)
    hgq_models.heterogenize(model, 8)
    hls_model = hgq_models.convert(model, tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()][-2:] == ['Dense', 'BatchNormalization']
    hgq_models.assert_emulator_exact(model, hls_model, (5,))


@pytest.mark.parametrize('merge', [QSubtract, QMultiply, QMaximum, QMinimum], ids=lambda cls: cls.__name__)
def test_merges(tmp_path, merge) -> None:
    keras.utils.set_random_seed(9)
    inputs = keras.Input((6,))
    left, right = QDense(4)(inputs), QDense(4, activation='relu')(inputs)
    model = keras.Model(inputs, merge()([left, right]))
    hgq_models.heterogenize(model, 9)
    hls_model = hgq_models.convert(model, tmp_path)
    (merged,) = [layer for layer in hls_model.get_layers() if layer.kind == 'Merge']
    assert merged.attributes['op'] == merge.__name__[1:].lower()
    hgq_models.assert_emulator_exact(model, hls_model, (6,))


# ---- tables ---------------------------------------------------------------------------------------


def _only(hls_model, kind: str):
    (layer,) = [layer for layer in hls_model.get_layers() if layer.kind == kind]
    return layer


def test_unary_lut_with_a_folded_output_quantizer(tmp_path) -> None:
    """tanh over a heterogeneous input quantizer; the uniform output quantizer is the table's result type."""
    keras.utils.set_random_seed(10)
    model = keras.Sequential([keras.Input((6,)), QDense(5), QUnaryFunctionLUT('tanh')])
    hgq_models.heterogenize(model, 10)
    hls_model = hgq_models.convert(model, tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()][-2:] == ['FixedPointQuantizer', 'UnaryLUT']
    lut = _only(hls_model, 'UnaryLUT')
    input_type = hls_model.graph.input_type(lut)
    assert lut.attributes['table_size'] == 2**input_type.width  # one entry per input value
    assert lut.types['result'] != lut.types['table']  # the output quantizer, folded
    hgq_models.assert_emulator_exact(model, hls_model, (6,))


def test_affined_lut_with_a_per_element_output_quantizer(tmp_path) -> None:
    per_element = QuantizerConfig('kif', 'datalane', i0=1, f0=4, overflow_mode='SAT', round_mode='RND_CONV')
    keras.utils.set_random_seed(11)
    lut = QAffinedUnaryFunctionLUT('sigmoid', oq_conf=per_element)
    model = keras.Sequential([keras.Input((6,)), QDense(4), lut])
    hgq_models.heterogenize(model, 11)
    lut.scale.assign(np.array([1.7], dtype=np.float32))
    lut.bias.assign(np.array([-0.3], dtype=np.float32))
    widths = lut.oq.quantizer
    widths._f.assign(np.arange(4, dtype=np.float32).reshape(widths._f.shape) + 2)
    hls_model = hgq_models.convert(model, tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()][-2:] == ['UnaryLUT', 'FixedPointQuantizer']
    hgq_models.assert_emulator_exact(model, hls_model, (6,))


def test_lut_without_an_output_quantizer_keeps_the_float32_values(tmp_path) -> None:
    keras.utils.set_random_seed(12)
    model = keras.Sequential([keras.Input((4,)), QUnaryFunctionLUT('softsign', enable_oq=False)])
    hgq_models.heterogenize(model, 12)
    hls_model = hgq_models.convert(model, tmp_path)
    lut = _only(hls_model, 'UnaryLUT')
    entries = lut.weights['table']
    np.testing.assert_array_equal(entries.astype(np.float32), entries)  # float32 values, held exactly
    hgq_models.assert_emulator_exact(model, hls_model, (4,))


def test_softmax_tables(tmp_path) -> None:
    """QSoftmax after a QDense, with its own input quantizer, a non-unit input scaler and an exp table of
    12 fraction bits, converted with the per-name config (which lists the tables' exact types: its
    defaults, fixed<18,8>, would round the entries)."""
    keras.utils.set_random_seed(13)
    fine = QuantizerConfig('kif', 'table', i0=1, f0=12)
    softmax = QSoftmax(enable_iq=True, input_scaler=0.75, exp_oq_conf=fine)
    model = keras.Sequential([keras.Input((6,)), QDense(5), softmax])
    hgq_models.heterogenize(model, 13)
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    assert config['LayerName'][softmax.name]['Precision']['exp_table'] == 'ufixed<13,1>'
    hls_model = hgq_models.convert(model, tmp_path, hls_config=config)
    layer = _only(hls_model, 'Softmax')
    assert layer.attributes['max_minus_x'] and 'exp_table' in layer.weights
    hgq_models.assert_emulator_exact(model, hls_model, (6,))
    config['LayerName'][softmax.name]['Implementation'] = 'latency'
    latency = hgq_models.convert(model, tmp_path / 'latency', hls_config=config)
    with pytest.raises(ValueError, match="computed for the 'stable' implementation"):
        interpret(latency, np.zeros((1, 6), dtype=np.float32))  # and so would writing the project


@pytest.mark.parametrize(
    'layer, message',
    [
        (lambda: QSoftmax(stable=False), 'stable=False is not supported'),
        (lambda: QSoftmax(allow_heterogeneous_table=True), 'per-element tables'),
        (lambda: QUnaryFunctionLUT('tanh', enable_iq=False), 'no finite set of values'),
        (
            lambda: QUnaryFunctionLUT('tanh', iq_conf=QuantizerConfig('kif', 'datalane', i0=6, f0=12)),
            'narrow its input quantizer',
        ),
    ],
    ids=['unstable softmax', 'heterogeneous tables', 'lut without input quantizer', 'lut too wide'],
)
def test_table_refusals_name_the_layer_and_the_reason(tmp_path, layer, message) -> None:
    model = keras.Sequential([keras.Input((4,)), layer()])
    with pytest.raises(ValueError, match=message):
        hgq_models.convert(model, tmp_path)
