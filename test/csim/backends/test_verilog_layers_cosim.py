"""The Verilog backend's pooling (average and max, padded), BatchNormalization, PReLU, depthwise
convolutions, HGQ2's quantizers, merge 'average', the gathers (Gather, Reduce, Interpolate) and softmax
'argmax' in small Keras and PyTorch models against the Vitis C-simulation: Verilator predict bit-exact.
Skips, naming the tool, where Verilator is not installed (scripts/setup_env.sh installs it)."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from verilog_programs import needs_tool  # noqa: E402

import hls4ml  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')
pytestmark = [
    pytest.mark.csim,
    needs_tool('verilator'),
]
layers = keras.layers


def assert_bit_exact(model: keras.Model, tmp_path, precision: str, x: np.ndarray, kinds: set[str]) -> None:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=precision)
    converted = []
    for backend in ('Vitis', 'Verilog'):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            converted.append(
                hls4ml.converters.convert_from_keras_model(
                    model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend
                )
            )
    vitis, verilog = converted
    assert kinds <= {layer.kind for layer in verilog.graph.layers.values()}
    verilog.compile()
    assert np.array_equal(verilog.predict(x), vitis.predict(x))


def test_depthwise_batchnorm_prelu_and_average_pooling_2d(tmp_path):
    keras.utils.set_random_seed(8)
    norm = layers.BatchNormalization()
    model = keras.Sequential(
        [
            keras.Input((4, 4, 2)),
            layers.DepthwiseConv2D(3, padding='same', bias_initializer='glorot_uniform'),
            layers.PReLU(alpha_initializer=keras.initializers.RandomUniform(-0.5, 0.8), shared_axes=[1, 2]),
            norm,
            layers.AveragePooling2D(3, strides=2, padding='same'),  # windows of 4, 6 and 9 inputs
            layers.MaxPooling2D(2, padding='same'),
        ]
    )
    rng = np.random.default_rng(3)
    norm.set_weights([rng.uniform(0.5, 2, 2), rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2), rng.uniform(0.5, 2, 2)])
    x = np.random.default_rng(9).uniform(-4, 4, (400, 4, 4, 2))
    kinds = {'DepthwiseConv2D', 'PReLU', 'BatchNormalization', 'Pooling2D'}
    assert_bit_exact(model, tmp_path, 'ap_fixed<6,2>', x, kinds)


def test_depthwise_and_average_pooling_1d_with_narrow_types(tmp_path):
    keras.utils.set_random_seed(9)
    model = keras.Sequential(
        [
            keras.Input((7, 3)),
            layers.DepthwiseConv1D(2, bias_initializer='glorot_uniform'),
            layers.AveragePooling1D(3, strides=2, padding='same'),
            layers.GlobalAveragePooling1D(),
        ]
    )
    x = np.random.default_rng(10).uniform(-4, 4, (400, 7, 3))
    assert_bit_exact(model, tmp_path, 'ap_fixed<6,2>', x, {'DepthwiseConv1D', 'Pooling1D', 'GlobalPooling1D'})


def test_hgq2_model_and_average_merge_are_bit_exact(tmp_path):
    """An HGQ2 MLP (per-element FixedPointQuantizers, some pruned) and a Keras Average merge."""
    import hgq_models

    model = hgq_models.dense_model()
    vitis, verilog = (
        hgq_models.convert(model, tmp_path / backend, backend=backend) for backend in ('Vitis', 'Verilog')
    )
    x = hgq_models.inputs((hgq_models.DENSE_FEATURES,), 2000, seed=6)
    verilog.compile()
    assert np.array_equal(verilog.predict(x), vitis.predict(x))

    first, second = keras.Input((4,)), keras.Input((4,))
    merged = keras.Model([first, second], layers.Average()([first, second]))
    config = hls4ml.utils.config_from_keras_model(merged, granularity='model', default_precision='ap_fixed<6,2>')
    vitis, verilog = (
        hls4ml.converters.convert_from_keras_model(
            merged, hls_config=config, output_dir=str(tmp_path / f'merge_{backend}'), backend=backend
        )
        for backend in ('Vitis', 'Verilog')
    )
    rng = np.random.default_rng(11)
    pair = [rng.uniform(-3, 3, (500, 4)), rng.uniform(-3, 3, (500, 4))]
    verilog.compile()
    assert np.array_equal(verilog.predict(pair), vitis.predict(pair))


class Gathers(torch.nn.Module):
    """Slicing (Gather), max and mean (Reduce, BatchNormalization), bilinear upsampling (Interpolate)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        upsampled = torch.nn.functional.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
        parts = [x[:, :, 1:4:2], torch.amax(x, dim=2), x.mean(dim=2), upsampled]
        return torch.cat([part.flatten(1) for part in parts], dim=1)


def test_gathers_and_softmax_argmax_are_bit_exact(tmp_path):
    config = {'Model': {'Precision': 'fixed<7,3,RND,SAT>', 'ReuseFactor': 1}, 'InputShape': (2, 3, 4)}
    vitis, verilog = (
        hls4ml.converters.convert_from_pytorch_model(
            Gathers().eval(), hls_config=config, output_dir=str(tmp_path / backend), backend=backend
        )
        for backend in ('Vitis', 'Verilog')
    )
    assert {'Gather', 'Reduce', 'Interpolate'} <= {layer.kind for layer in verilog.graph.layers.values()}
    x = np.random.default_rng(12).uniform(-4, 4, (500, 2, 3, 4))
    verilog.compile()
    assert np.array_equal(verilog.predict(x), vitis.predict(x))

    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((6,)), layers.Dense(4), layers.Softmax(name='choice')])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<5,2>')
    config['LayerName']['choice']['Implementation'] = 'argmax'
    vitis, verilog = (
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / f'argmax_{backend}'), backend=backend
        )
        for backend in ('Vitis', 'Verilog')
    )
    x = np.random.default_rng(13).integers(-4, 4, (500, 6)) / 2
    verilog.compile()
    assert np.array_equal(verilog.predict(x), vitis.predict(x))


def test_embedding_is_bit_exact(tmp_path):
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((5,), name='tokens'), layers.Embedding(7, 3), layers.Flatten()])
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision='ap_fixed<8,3>')
    config['LayerName']['tokens']['Precision'] = 'ap_int<5>'
    vitis, verilog = (
        hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend
        )
        for backend in ('Vitis', 'Verilog')
    )
    x = np.random.default_rng(14).integers(-3, 11, (500, 5)).astype(np.float64)  # some outside the vocabulary
    verilog.compile()
    assert np.array_equal(verilog.predict(x), vitis.predict(x))
