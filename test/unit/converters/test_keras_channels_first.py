"""Keras spatial layers with data_format='channels_first' (converters/keras/channels_first.py): the graph
(layout moves around the channels-last layer, joined between two such layers) and the emulator's outputs
against Keras' own, in Keras' channels-first layout. Weights on a 2^-3 grid and inputs on a 2^-4 grid are
exact in the 'auto' types, so the emulator is Keras' value within float32's rounding."""

from __future__ import annotations

import numpy as np
import pytest

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = [
    pytest.mark.filterwarnings('ignore:.auto. precision is capped'),
    pytest.mark.filterwarnings('error::hls4ml.converters.guard.ConversionMismatchWarning'),  # the guard agrees
]
keras = pytest.importorskip('keras')
LAYERS = keras.layers
FIRST = {'data_format': 'channels_first'}


def grid_model(shape: tuple[int, ...], *layers) -> keras.Model:
    model = keras.Sequential([keras.Input(shape, name='x'), *layers])
    rng = np.random.default_rng(2)
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([rng.integers(-8, 8, w.shape) / 8 for w in layer.get_weights()])
    return model


def convert(model: keras.Model, tmp_path, io_type: str = 'io_parallel', config: dict | None = None):
    config = config or {'Model': {'Precision': {'default': 'fixed<16,6>', 'result': 'auto', 'accum': 'auto'}}}
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type
    )


def assert_emulates_keras(model: keras.Model, hls_model, atol: float = 1e-5, reference=None) -> None:
    """The emulator against `reference(x)` (by default Keras' predict, which agrees with the channels-last twin
    where TensorFlow's eager call of a channels-first model does not: guard.keras_runner)."""
    x = np.random.default_rng(3).integers(-16, 16, (8, *model.input_shape[1:])) / 16
    (emulated,), _ = interpret(hls_model, x)
    want = reference(x) if reference else model.predict(x, verbose=0)
    assert list(hls_model.get_output_variables()[0].shape) == list(want.shape[1:])  # Keras' own layout
    np.testing.assert_allclose(emulated.to_double(), want.reshape(len(x), -1), atol=atol, rtol=0)


ONE_D = [
    LAYERS.Conv1D(2, 3, strides=2, padding='same', activation='relu', **FIRST),
    LAYERS.MaxPooling1D(2, **FIRST),
    LAYERS.AveragePooling1D(3, strides=2, padding='same', **FIRST),
    LAYERS.GlobalMaxPooling1D(**FIRST),
    LAYERS.GlobalAveragePooling1D(keepdims=True, **FIRST),
    LAYERS.ZeroPadding1D((1, 2), **FIRST),
    LAYERS.DepthwiseConv1D(3, **FIRST),
    LAYERS.SeparableConv1D(2, 3, padding='same', **FIRST),
]
TWO_D = [
    LAYERS.Conv2D(2, (3, 2), strides=(2, 1), padding='same', activation='relu', **FIRST),
    LAYERS.MaxPooling2D(2, **FIRST),
    LAYERS.AveragePooling2D((2, 3), padding='same', **FIRST),
    LAYERS.GlobalAveragePooling2D(**FIRST),
    LAYERS.GlobalMaxPooling2D(keepdims=True, **FIRST),
    LAYERS.UpSampling2D((2, 1), **FIRST),
    LAYERS.ZeroPadding2D(((1, 0), (2, 1)), **FIRST),
    LAYERS.Cropping2D(((1, 0), (2, 1)), **FIRST),
    LAYERS.DepthwiseConv2D(3, padding='same', **FIRST),
    LAYERS.SeparableConv2D(2, 3, **FIRST),
    LAYERS.Conv2DTranspose(2, 3, strides=2, padding='same', **FIRST),
]


@pytest.mark.parametrize('layer', ONE_D + TWO_D, ids=lambda layer: type(layer).__name__)
def test_each_layer_computes_what_keras_computes(tmp_path, layer) -> None:
    shape = (3, 7) if type(layer).__name__.endswith('1D') else (3, 5, 6)
    model = grid_model(shape, layer)
    # an average divides by window sizes that are no power of two: the quotient truncated to 2^-10 (fixed<16,6>)
    assert_emulates_keras(model, convert(model, tmp_path), atol=2**-10 if 'Average' in type(layer).__name__ else 1e-5)


def test_batch_normalization_over_the_channels_axis(tmp_path) -> None:
    bn = LAYERS.BatchNormalization(axis=1, name='bn')
    model = grid_model((3, 4, 5), LAYERS.Conv2D(3, 3, padding='same', name='conv', **FIRST), bn)
    stats = np.random.default_rng(7)
    bn.set_weights(
        [stats.integers(1, 8, 3) / 4, stats.integers(-8, 8, 3) / 8, stats.integers(-8, 8, 3) / 8, np.ones(3)]
    )
    # the scale gamma / sqrt(1 + epsilon) is no grid value: rounded to the 10 fraction bits of fixed<16,6>
    assert_emulates_keras(model, convert(model, tmp_path), atol=2**-7)


def test_conv1d_transpose_against_its_channels_last_twin(tmp_path) -> None:
    """TensorFlow cannot run a channels-first Conv1DTranspose (an IndexError inside Keras): the reference is
    the channels-last twin with the same weights, on the transposed input."""
    model = grid_model((3, 7), LAYERS.Conv1DTranspose(2, 3, strides=2, padding='same', **FIRST))
    twin = keras.Sequential([keras.Input((7, 3)), LAYERS.Conv1DTranspose(2, 3, strides=2, padding='same')])
    twin.set_weights(model.get_weights())
    reference = lambda x: np.swapaxes(twin.predict(np.swapaxes(x, 1, 2), verbose=0), 1, 2)  # noqa: E731
    assert_emulates_keras(model, convert(model, tmp_path), reference=reference)


def test_channels_last_layers_between_are_unchanged(tmp_path) -> None:
    """Keras 3's UpSampling1D and Cropping1D have no data_format (channels last): no move around them."""
    model = grid_model((3, 7), LAYERS.UpSampling1D(2), LAYERS.Cropping1D((2, 0)), LAYERS.MaxPooling1D(2, **FIRST))
    assert_emulates_keras(model, convert(model, tmp_path))


def test_moves_between_two_channels_first_layers_are_joined(tmp_path) -> None:
    model = grid_model(
        (2, 6, 6),
        LAYERS.Conv2D(3, 3, activation='relu', name='conv', **FIRST),
        LAYERS.MaxPooling2D(2, name='pool', **FIRST),
        LAYERS.Conv2D(2, 1, name='mix', **FIRST),
    )
    hls_model = convert(model, tmp_path)
    kinds = [(layer.name, layer.kind) for layer in hls_model.get_layers()]
    assert kinds == [
        ('x', 'Input'),
        ('conv_channels_last', 'Transpose'),
        ('conv', 'Conv2D'),
        ('conv_relu', 'Activation'),
        ('pool', 'Pooling2D'),
        ('mix', 'Conv2D'),
        ('mix_channels_first', 'Transpose'),
    ]
    assert_emulates_keras(model, hls_model)


def test_a_branch_keeps_the_channels_first_tensor_it_reads(tmp_path) -> None:
    """The conv's output goes to a channels-first pooling (joined) and to a Flatten (channel-major, as Keras)."""
    inputs = keras.Input((2, 4, 4))
    conv = LAYERS.Conv2D(2, 3, padding='same', name='conv', **FIRST)(inputs)
    pooled = LAYERS.Flatten()(LAYERS.AveragePooling2D(2, name='pool', **FIRST)(conv))
    model = keras.Model(inputs, LAYERS.Concatenate()([pooled, LAYERS.Flatten()(conv)]))
    model.layers[1].set_weights([np.full((3, 3, 2, 2), 0.25), np.array([0.5, -0.5])])
    hls_model = convert(model, tmp_path)
    names = [layer.name for layer in hls_model.get_layers()]
    assert 'conv_channels_first' in names and 'pool_channels_last' not in names
    assert_emulates_keras(model, hls_model)


def test_one_channel_moves_by_a_reshape(tmp_path) -> None:
    model = grid_model((1, 5, 6), LAYERS.Conv2D(1, 3, name='conv', **FIRST))
    assert [layer.kind for layer in convert(model, tmp_path).get_layers()] == ['Input', 'Reshape', 'Conv2D', 'Reshape']


def test_the_moves_keep_their_input_type(tmp_path) -> None:
    """A Model precision would round a move; the moves are preset 'auto': the type of what they move."""
    model = grid_model((2, 4, 4), LAYERS.Conv2D(2, 3, name='conv', **FIRST))
    config = {
        'Model': {'Precision': 'fixed<16,6>'},
        'LayerName': {'x': {'Precision': 'fixed<10,3>'}, 'conv': {'Precision': {'result': 'fixed<20,8>'}}},
    }
    layers = convert(model, tmp_path, config=config).graph.layers
    assert str(layers['conv_channels_last'].types['result']) == 'fixed<10,3>'
    assert str(layers['conv_channels_first'].types['result']) == 'fixed<20,8>'


def test_io_stream_graph(tmp_path) -> None:
    model = grid_model((2, 5, 5), LAYERS.Conv2D(2, 3, padding='same', **FIRST), LAYERS.MaxPooling2D(2, **FIRST))
    assert_emulates_keras(model, convert(model, tmp_path, io_type='io_stream'))
