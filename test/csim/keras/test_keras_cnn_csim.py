"""CNN layers, reshapes, merges and graph topologies through the whole path (io_parallel):
every model bit for bit against the reference interpreter and within precision of Keras."""

from __future__ import annotations

import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

pytestmark = pytest.mark.csim
L = keras.layers


IO_TYPES = ['io_parallel', 'io_stream']


def convert(model: keras.Model, tmp_path, granularity: str = 'name', io_type: str = 'io_parallel', **layer_cfg):
    config = hls4ml.utils.config_from_keras_model(model, granularity=granularity, default_precision='ap_fixed<16,6>')
    for name, settings in layer_cfg.items():
        config['LayerName'][name].update(settings)
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def inputs_for(model: keras.Model, n: int = 40) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.uniform(-2, 2, (n, *tensor.shape[1:])).astype(np.float32) for tensor in model.inputs]


def check(hls_model, model: keras.Model, atol: float = 0.05) -> None:
    x = inputs_for(model)
    feed = x[0] if len(x) == 1 else x
    predicted = hls_model.predict(feed)
    predicted = predicted if isinstance(predicted, list) else [predicted]
    expected, _ = interpret(hls_model, feed)
    keras_out = model.predict(feed, verbose=0)
    keras_out = keras_out if isinstance(keras_out, list) else [keras_out]
    for mine, reference, float_out in zip(predicted, expected, keras_out, strict=True):
        np.testing.assert_array_equal(mine, reference.to_double().astype(mine.dtype))
        np.testing.assert_allclose(mine, float_out.reshape(len(mine), -1), atol=atol)


def single(input_shape: tuple[int, ...], *layers: keras.layers.Layer, seed: int = 1) -> keras.Model:
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input(input_shape, name='x'), *layers])


CASES = {
    'conv2d_valid': lambda: single((7, 6, 2), L.Conv2D(3, (3, 2))),
    'conv2d_same_even_kernel_stride2': lambda: single(
        (8, 7, 1), L.Conv2D(4, (2, 4), strides=2, padding='same', activation='relu')
    ),
    'conv1d_same_stride': lambda: single((9, 3), L.Conv1D(2, 4, strides=2, padding='same')),
    'depthwise2d': lambda: single((6, 6, 3), L.DepthwiseConv2D(3, padding='same')),
    'depthwise1d': lambda: single((8, 2), L.DepthwiseConv1D(3)),
    'separable2d': lambda: single((6, 5, 2), L.SeparableConv2D(3, 3, padding='same')),
    'separable1d': lambda: single((8, 2), L.SeparableConv1D(3, 3)),
    'maxpool2d_same': lambda: single((7, 5, 2), L.MaxPooling2D(2, padding='same')),
    'avgpool2d_same': lambda: single((7, 5, 2), L.AveragePooling2D(3, strides=2, padding='same')),
    'pool1d': lambda: single((9, 2), L.MaxPooling1D(2), L.AveragePooling1D(2)),
    'global_pooling2d': lambda: single((5, 4, 3), L.GlobalAveragePooling2D()),
    'global_max1d': lambda: single((7, 3), L.GlobalMaxPooling1D()),
    'padding_cropping_upsampling2d': lambda: single(
        (4, 5, 2), L.ZeroPadding2D(((1, 0), (2, 1))), L.Cropping2D(((0, 2), (1, 1))), L.UpSampling2D((2, 3))
    ),
    'padding_cropping_upsampling1d': lambda: single(
        (6, 2), L.ZeroPadding1D((2, 1)), L.Cropping1D((1, 2)), L.UpSampling1D(2)
    ),
    'flatten_reshape_permute': lambda: single(
        (3, 4, 2), L.Permute((2, 1, 3)), L.Reshape((8, 3)), L.Flatten(), L.Dense(3)
    ),
}


STREAM_REFUSED = {
    'maxpool2d_same': "'same' pooling is not supported with io_stream",
    'avgpool2d_same': "'same' pooling",
}


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize('case', sorted(CASES))
def test_layer_is_bit_exact_and_close_to_keras(case: str, io_type: str, tmp_path) -> None:
    model = CASES[case]()
    check(convert(model, tmp_path, io_type=io_type), model)


@pytest.mark.parametrize('io_type', IO_TYPES)
@pytest.mark.parametrize(
    'operation', ['Add', 'Subtract', 'Multiply', 'Average', 'Maximum', 'Minimum', 'Concatenate', 'Dot']
)
def test_merges_of_two_inputs(operation: str, io_type: str, tmp_path) -> None:
    keras.utils.set_random_seed(2)
    first, second = keras.Input((6,), name='a'), keras.Input((6,), name='b')
    layer = getattr(L, operation)(axes=1) if operation == 'Dot' else getattr(L, operation)()
    model = keras.Model([first, second], layer([L.Dense(6)(first), second]))
    check(convert(model, tmp_path, io_type=io_type), model)


@pytest.mark.parametrize('axis', [1, 2, -1])
def test_concatenate_any_axis(axis: int, tmp_path) -> None:
    keras.utils.set_random_seed(4)
    image = keras.Input((3, 4, 2), name='image')
    model = keras.Model(image, L.Concatenate(axis=axis)([L.Conv2D(2, 1)(image), image]))
    check(convert(model, tmp_path), model)


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_resnet_block_with_an_add_skip(io_type: str, tmp_path) -> None:
    keras.utils.set_random_seed(5)
    image = keras.Input((8, 8, 2), name='image')
    hidden = L.Conv2D(4, 3, padding='same', activation='relu')(image)
    branch = L.Conv2D(4, 3, padding='same')(hidden)
    merged = L.Activation('relu')(L.Add()([hidden, branch]))
    model = keras.Model(image, L.Dense(3, activation='softmax')(L.GlobalAveragePooling2D()(merged)))
    hls_model = convert(model, tmp_path, io_type=io_type)
    check(hls_model, model)
    if io_type == 'io_stream':  # the skip branch waits for the two convolutions: a deeper FIFO than the chain
        depths = {tensor.fifo_depth for tensor in hls_model.graph.tensors.values()}
        assert min(depths) == 2 and max(depths) > 2


def test_a_tensor_read_by_five_layers_and_the_output_chains_clones(tmp_path) -> None:
    keras.utils.set_random_seed(7)
    x = keras.Input((6,), name='x')
    shared = L.Dense(6, activation='relu', name='shared')(x)
    heads = [L.Dense(3, name=f'head{index}')(shared) for index in range(5)]
    total = L.Add()([L.Add()([heads[0], heads[1]]), L.Add()([heads[2], L.Add()([heads[3], heads[4]])])])
    model = keras.Model(x, [total, shared])
    hls_model = convert(model, tmp_path, io_type='io_stream')
    clones = [layer for layer in hls_model.get_layers() if layer.kind == 'Clone']
    assert sorted(len(layer.outputs) for layer in clones) == [2, 3, 3]  # 6 readers: 3 + 3 + 2, chained
    check(hls_model, model)


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_two_inputs_and_two_outputs_keep_the_model_order(io_type: str, tmp_path) -> None:
    keras.utils.set_random_seed(6)
    first, second = keras.Input((5,), name='first'), keras.Input((3,), name='second')
    joined = L.Concatenate()([L.Dense(4, activation='relu')(first), second])
    model = keras.Model([first, second], [L.Dense(2, name='out_a')(joined), L.Dense(3, name='out_b')(joined)])
    hls_model = convert(model, tmp_path, io_type=io_type)
    x = inputs_for(model, 10)
    outputs = hls_model.predict(x)
    assert isinstance(outputs, list) and [o.shape for o in outputs] == [(10, 2), (10, 3)]
    check(hls_model, model)


@pytest.mark.parametrize('io_type', IO_TYPES)
def test_example_cnn(io_type: str, tmp_path) -> None:
    """16x16x1 -> Conv2D(4,3x3,relu) -> MaxPool 2x2 -> Conv2D(8,3x3,relu) -> Flatten -> Dense(10, softmax)."""
    keras.utils.set_random_seed(7)
    model = single(
        (16, 16, 1),
        L.Conv2D(4, 3, activation='relu'),
        L.MaxPooling2D(2),
        L.Conv2D(8, 3, activation='relu'),
        L.Flatten(),
        L.Dense(10, activation='softmax'),
    )
    check(convert(model, tmp_path, granularity='model', io_type=io_type), model)
    check(convert(model, tmp_path / 'auto', io_type=io_type), model)


@pytest.mark.parametrize('settings', [{'Strategy': 'Resource', 'ReuseFactor': 3}, {'ParallelizationFactor': 4}])
def test_conv_strategies_do_not_change_results(settings: dict, tmp_path) -> None:
    model = single((6, 6, 2), L.Conv2D(3, 3, name='conv'))
    plain = convert(model, tmp_path / 'plain')
    other = convert(model, tmp_path / 'other', conv=settings)
    x = inputs_for(model)[0]
    np.testing.assert_array_equal(other.predict(x), plain.predict(x))
