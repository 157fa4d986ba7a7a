"""The HGQ2 layers of the second round (hls4ml/converters/keras/hgq.py), without a compiler: the IR they
become and the emulator against HGQ2's own inference `model(x, training=False)`, for
QBatchNormalization, QEinsumDenseBatchnorm, dense layers over the last axis of 2-D inputs, and the
merges QSubtract, QMultiply, QMaximum and QMinimum."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip('hgq')

import hgq_models  # noqa: E402
import keras  # noqa: E402
from hgq.layers import (  # noqa: E402
    QBatchNormalization,
    QConv1D,
    QDense,
    QEinsumDenseBatchnorm,
    QMaximum,
    QMinimum,
    QMultiply,
    QSubtract,
)

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402


def _convert(model, tmp_path, **kwargs):
    return hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), **kwargs)


def _assert_emulator_exact(model, hls_model, shape, count=400) -> None:
    x = hgq_models.inputs(shape, count, seed=5, reach=4.0)
    expected = hgq_models.hgq_outputs(model, x)
    (emulated,), _ = interpret(hls_model, x)
    np.testing.assert_array_equal(emulated.value.reshape(count, -1), expected)


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
    batchnorm = QBatchNormalization()
    einsum = QEinsumDenseBatchnorm('bnc,cC->bnC', (4, 5), bias_axes='C', activation='relu')
    hidden = einsum(batchnorm(QConv1D(4, 3, activation='relu')(inputs)))
    model = keras.Model(inputs, QDense(3)(keras.layers.Flatten()(hidden)))
    _statistics(batchnorm, 1)
    _statistics(einsum, 2)
    hgq_models.heterogenize(model, 7)
    widths = batchnorm.kq.quantizer
    widths._b.assign(np.array([0, 3, 5, 7], dtype=np.float32).reshape(widths._b.shape))  # one pruned
    widths._i.assign(np.full(widths._i.shape, 2, dtype=np.float32))
    hls_model = _convert(model, tmp_path)
    kinds = {layer.name: layer.kind for layer in hls_model.get_layers()}
    assert kinds['q_batch_normalization'] == 'BatchNormalization'
    assert kinds['q_einsum_dense_batchnorm'] == 'Conv1D'
    scale = hls_model.graph.layers['q_batch_normalization'].weights['scale']
    assert (scale[::4] == 0).all() and (scale[1::4] != 0).all() and len(set(scale.tolist())) >= 3  # one pruned
    _assert_emulator_exact(model, hls_model, (6, 3))


def test_batchnorm_right_after_a_dense_is_not_folded_into_it(tmp_path) -> None:
    """Without its input quantizer the batch normalization reads the QDense directly; folding it would
    round the products W * scale into the QDense's exact weight type."""
    keras.utils.set_random_seed(8)
    batchnorm = QBatchNormalization(enable_iq=False)
    model = keras.Sequential([keras.Input((5,)), QDense(4), batchnorm])
    _statistics(batchnorm, 3)
    hgq_models.heterogenize(model, 8)
    hls_model = _convert(model, tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()][-2:] == ['Dense', 'BatchNormalization']
    _assert_emulator_exact(model, hls_model, (5,))


@pytest.mark.parametrize('merge', [QSubtract, QMultiply, QMaximum, QMinimum], ids=lambda cls: cls.__name__)
def test_merges(tmp_path, merge) -> None:
    keras.utils.set_random_seed(9)
    inputs = keras.Input((6,))
    left, right = QDense(4)(inputs), QDense(4, activation='relu')(inputs)
    model = keras.Model(inputs, merge()([left, right]))
    hgq_models.heterogenize(model, 9)
    hls_model = _convert(model, tmp_path)
    (merged,) = [layer for layer in hls_model.get_layers() if layer.kind == 'Merge']
    assert merged.attributes['op'] == merge.__name__[1:].lower()
    _assert_emulator_exact(model, hls_model, (6,))
