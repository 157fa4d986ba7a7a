"""The layer attributes hls4ml's own `test_keras_api.py` asserts, replayed on real Keras models (conversion only):
1.x's `class_name` (the framework's name: 'InputLayer', 'ELU', 'LeakyReLU', 'MaxPooling2D'), a pooling layer's
`n_filt` and 1-D `n_in` / `n_out`, the input layer's `input_shape`; read with `[]`, `get_attr` and `get`."""

from __future__ import annotations

import keras
import pytest

import hls4ml

LAYERS = keras.layers


def convert(model: keras.Model, tmp_path) -> hls4ml.model.ModelGraph:
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='fixed<16,6>')
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', check_conversion=False
    )


def test_dense_and_activation_layers_answer_the_1x_class_names(tmp_path) -> None:
    model = keras.Sequential(
        [
            keras.Input((1,), name='Dense_input'),
            LAYERS.Dense(2, name='Dense'),
            LAYERS.Activation('elu', name='elu'),
            LAYERS.LeakyReLU(negative_slope=0.5, name='leaky'),
            LAYERS.ELU(alpha=0.5, name='elu_layer'),
            LAYERS.Activation('sigmoid', name='sigmoid'),
        ]
    )
    layers = convert(model, tmp_path).get_layers()
    assert [layer.attributes['class_name'] for layer in layers] == [
        'InputLayer', 'Dense', 'ELU', 'LeakyReLU', 'ELU', 'Activation'
    ]  # fmt: skip
    assert [layer.attributes.get('class_name') for layer in layers] == [
        layer.get_attr('class_name') for layer in layers
    ]
    assert layers[0].attributes['input_shape'] == [1] and layers[0].attributes.get('input_shape') == [1]
    assert layers[1].attributes['n_in'] == 1 and layers[1].attributes['n_out'] == 2
    assert [layer.class_name for layer in layers[:3]] == ['Input', 'Dense', 'ParametrizedActivation']  # IR kinds
    assert 'class_name' not in layers[1].attributes and 'input_shape' not in layers[0].attributes  # not stored


@pytest.mark.parametrize(
    ('pooling', 'shape', 'n_in'),
    [
        (LAYERS.MaxPooling1D, (121, 3), 121),
        (LAYERS.AveragePooling1D, (121, 3), 121),
        (LAYERS.MaxPooling2D, (12, 10, 3), None),
        (LAYERS.AveragePooling2D, (12, 10, 3), None),
    ],
)
def test_pooling_layers_answer_n_filt_and_n_in(tmp_path, pooling, shape: tuple[int, ...], n_in: int | None) -> None:
    model = keras.Sequential([keras.Input(shape), pooling(pool_size=2, padding='same', name='pool')])
    layer = convert(model, tmp_path).get_layers()[-1]
    assert layer.attributes['class_name'] == pooling.__name__ and layer.attributes.get('n_filt') == 3
    assert layer.attributes.get('n_in') == n_in and layer.get_attr('n_filt') == 3
    assert layer.attributes.get('n_out') == (61 if n_in else None)


def test_global_pooling_class_name(tmp_path) -> None:
    model = keras.Sequential([keras.Input((6, 4)), LAYERS.GlobalAveragePooling1D(name='gap')])
    layer = convert(model, tmp_path).get_layers()[-1]
    assert layer.attributes['class_name'] == 'GlobalAveragePooling1D' and layer.attributes['n_filt'] == 4
