"""The Verilog backend's pooling, BatchNormalization, PReLU and depthwise convolutions without Verilator:
Keras models converted for backend='Verilog', the traced program (run by da4ml's interpreter) against the
reference interpreter bit for bit, over accumulators that are exact, wrap, saturate and are unsigned;
and the rendered project (its per-layer costs trace each layer between its own inputs and outputs)."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402

pytest.importorskip('da4ml', reason='the Verilog backend needs da4ml (pip install hls4ml[rtl])')

from verilog_programs import assert_program_matches_reference  # noqa: E402

from hls4ml.backends.verilog.project import render_rtl  # noqa: E402

layers = keras.layers
PRECISIONS = [
    ('ap_fixed<8,3>', 'name'),  # exact inferred accumulators
    ('ap_fixed<6,2>', 'model'),  # wrapping, narrow
    ('ap_fixed<7,3,AP_RND,AP_SAT>', 'model'),  # rounding and saturating
    ('ap_ufixed<6,2>', 'model'),  # unsigned, wrapping negative sums
]


def convert(model: keras.Model, tmp_path, precision: str, granularity: str):
    config = hls4ml.utils.config_from_keras_model(model, granularity=granularity, default_precision=precision)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Verilog'
        )


def batchnorm(channels: int) -> keras.layers.Layer:
    rng = np.random.default_rng(3)
    layer = layers.BatchNormalization()
    layer.build((None, channels))
    layer.set_weights(
        [
            rng.uniform(0.5, 2, channels),
            rng.uniform(-1, 1, channels),
            rng.uniform(-1, 1, channels),
            rng.uniform(0.5, 2, channels),
        ]
    )
    return layer


def slopes() -> keras.initializers.Initializer:
    return keras.initializers.RandomUniform(-0.5, 0.8, seed=4)


CASES = {
    'AveragePooling2D': ((5, 5, 2), lambda: [layers.AveragePooling2D(3, strides=2, padding='same')]),
    'AveragePooling2D-valid': ((4, 5, 2), lambda: [layers.AveragePooling2D((2, 3), strides=(2, 1))]),
    'AveragePooling1D': ((7, 3), lambda: [layers.AveragePooling1D(3, strides=2, padding='same')]),
    'GlobalAveragePooling1D': ((7, 3), lambda: [layers.GlobalAveragePooling1D()]),
    'GlobalAveragePooling2D': ((3, 5, 2), lambda: [layers.GlobalAveragePooling2D()]),
    'MaxPooling2D-same': ((5, 5, 2), lambda: [layers.MaxPooling2D(3, strides=2, padding='same')]),
    'GlobalMaxPooling1D': ((7, 3), lambda: [layers.GlobalMaxPooling1D()]),
    'BatchNormalization': ((6,), lambda: [batchnorm(6)]),
    'PReLU': ((3, 2), lambda: [layers.PReLU(alpha_initializer=slopes(), shared_axes=[1])]),
    'DepthwiseConv2D': (
        (5, 5, 2),
        lambda: [layers.DepthwiseConv2D(3, padding='same', bias_initializer='glorot_uniform')],
    ),
    'DepthwiseConv1D': ((7, 3), lambda: [layers.DepthwiseConv1D(3, strides=2, bias_initializer='glorot_uniform')]),
}
KINDS = {
    'AveragePooling2D': 'Pooling2D',
    'AveragePooling2D-valid': 'Pooling2D',
    'AveragePooling1D': 'Pooling1D',
    'GlobalAveragePooling1D': 'GlobalPooling1D',
    'GlobalAveragePooling2D': 'GlobalPooling2D',
    'MaxPooling2D-same': 'Pooling2D',
    'GlobalMaxPooling1D': 'GlobalPooling1D',
    'BatchNormalization': 'BatchNormalization',
    'PReLU': 'PReLU',
    'DepthwiseConv2D': 'DepthwiseConv2D',
    'DepthwiseConv1D': 'DepthwiseConv1D',
}


@pytest.mark.parametrize('case', list(CASES))
def test_program_equals_the_reference(tmp_path, case):
    shape, make = CASES[case]
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input(shape), *make()])
    x = np.random.default_rng(0).uniform(-4, 4, (300, *shape))
    for precision, granularity in PRECISIONS:
        converted = convert(model, tmp_path, precision, granularity)
        assert KINDS[case] in {layer.kind for layer in converted.graph.layers.values()}
        assert_program_matches_reference(converted, x)


def test_a_layer_fed_by_the_input_renders_with_its_own_cost(tmp_path):
    """Each layer's logic is traced between its own inputs and outputs for the per-layer cost: a kind
    whose comparisons would read behind a re-typed input (the input port) could not be costed."""
    keras.utils.set_random_seed(2)
    model = keras.Sequential(
        [keras.Input((4, 3)), layers.GlobalAveragePooling1D(), layers.PReLU(alpha_initializer=slopes())]
    )
    project = render_rtl(convert(model, tmp_path, 'ap_fixed<8,3>', 'name').design)
    assert all(cost > 0 for cost in project.layer_costs.values())


def test_average_merge_program_equals_the_reference(tmp_path):
    first, second = keras.Input((5,)), keras.Input((5,))
    model = keras.Model([first, second], keras.layers.Average()([first, keras.layers.Dense(5)(second)]))
    for precision, granularity in PRECISIONS:
        converted = convert(model, tmp_path, precision, granularity)
        assert any(layer.attributes.get('op') == 'average' for layer in converted.graph.layers.values())
        render_rtl(converted.design)  # two input ports: checked through the whole project


@pytest.mark.parametrize('name', ['dense_model', 'table_model'])
def test_hgq2_quantizers_program_equals_the_reference(tmp_path, name):
    """HGQ2 models (heterogeneous per-element FixedPointQuantizers, some pruned; BatchNormalization, a
    table activation, HGQ2's softmax) are expressed whole and exactly."""
    import hgq_models

    model = getattr(hgq_models, name)()
    converted = hgq_models.convert(model, tmp_path, backend='Verilog')
    assert 'FixedPointQuantizer' in {layer.kind for layer in converted.graph.layers.values()}
    assert_program_matches_reference(converted, hgq_models.inputs((hgq_models.DENSE_FEATURES,), 400, seed=5))
