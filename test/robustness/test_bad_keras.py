"""Keras models a converter meets in the wild and cannot convert: each is refused at conversion with a
ValueError naming the layer or input and what to do (no KeyError, no g++ error later)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from refusals import refused

import hls4ml
from hls4ml.model.interpreter import interpret


def convert(model: keras.Model, tmp_path, **kwargs):
    return hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), **kwargs)


def shared_chain() -> keras.Model:
    inputs = keras.Input((4,))
    shared = keras.layers.Dense(4, name='shared')
    return keras.Model(inputs, keras.layers.ReLU(name='after')(shared(shared(inputs))))


def shared_in_a_merge() -> keras.Model:
    inputs = keras.Input((4,))
    shared = keras.layers.Dense(4, name='shared')
    first = shared(inputs)
    return keras.Model(inputs, keras.layers.Add()([first, shared(keras.layers.ReLU()(first))]))


def shared_on_two_inputs() -> keras.Model:
    left, right = keras.Input((4,)), keras.Input((4,))
    shared = keras.layers.Dense(3, name='shared')
    return keras.Model([left, right], [shared(left), shared(right)])


@pytest.mark.parametrize('build', [shared_chain, shared_in_a_merge, shared_on_two_inputs])
def test_a_shared_layer_is_refused_naming_it_and_the_fix(build, tmp_path) -> None:
    """Refused rather than duplicated: each call is a layer of its own in firmware anyway, and a
    LayerName config entry for 'shared' would silently apply to both calls whose input ranges differ;
    the user makes the copies (set_weights) and configures each. Layers after it report no KeyError."""
    refused(lambda: convert(build(), tmp_path), 'shared (Dense) is called 2 times', 'set_weights')


def test_a_layer_of_another_model_used_once_here_converts(tmp_path) -> None:
    """A layer also called in another model is not shared within this one: it converts."""
    dense = keras.layers.Dense(3, name='reused')
    keras.Model(other := keras.Input((4,)), dense(other))
    inputs = keras.Input((4,))
    hls_model = convert(keras.Model(inputs, dense(inputs)), tmp_path)
    assert [layer.kind for layer in hls_model.get_layers()] == ['Input', 'Dense']


@pytest.mark.parametrize('shape', [(None,), (None, 4), (3, None)])
def test_an_input_axis_without_size_is_refused(shape, tmp_path) -> None:
    inputs = keras.Input(shape, name='features')
    model = keras.Model(inputs, keras.layers.ReLU()(inputs))
    refused(lambda: convert(model, tmp_path), "'features' (InputLayer)", 'every input dimension must be fixed')


@pytest.mark.parametrize('shape', [(0,), (3, 0), (0, 2, 2)])
def test_a_zero_size_input_is_refused_at_conversion(shape, tmp_path) -> None:
    """Converted before, it failed only in g++ with 'division by zero'."""
    inputs = keras.Input(shape, name='features')
    model = keras.Model(inputs, keras.layers.ReLU()(inputs))
    refused(lambda: convert(model, tmp_path), "layer 'features'", f'has shape {shape}', 'at least 1')


def test_a_sequential_of_only_an_input_is_refused(tmp_path) -> None:
    model = keras.Sequential([keras.Input((4,))], name='only_input')
    refused(lambda: convert(model, tmp_path), "'only_input' has no layers", 'nothing to convert')


@pytest.mark.parametrize(
    'build',
    [
        lambda: keras.Model(inputs := keras.Input((4,)), inputs),
        lambda: keras.Sequential([keras.Input((4,)), keras.layers.Dropout(0.5)]),
    ],
    ids=['identity', 'dropout'],
)
def test_a_model_that_computes_nothing_is_refused(build, tmp_path) -> None:
    """hls4ml writes no project whose output is its input; refused at conversion, not at write()."""
    refused(lambda: convert(build(), tmp_path), 'is its input unchanged', 'nothing to convert')


@pytest.mark.parametrize('model', ['model.keras', None, 3, np.zeros(3)], ids=['path', 'None', 'int', 'array'])
def test_not_a_keras_model_is_refused(model, tmp_path) -> None:
    refused(lambda: convert(model, tmp_path), 'expected a Keras 3 model')


def test_an_unbuilt_sequential_is_refused(tmp_path) -> None:
    refused(lambda: convert(keras.Sequential([keras.layers.Dense(3)]), tmp_path), 'keras.Input(shape=...)')


def test_a_nested_model_is_listed_as_unsupported(tmp_path) -> None:
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)], name='inner')
    inputs = keras.Input((4,))
    refused(lambda: convert(keras.Model(inputs, inner(inputs)), tmp_path), 'inner (Sequential)')


def test_a_scalar_input_converts_and_computes(tmp_path) -> None:
    """An input of shape () is one value per sample: accepted, and the emulator computes ReLU of it."""
    inputs = keras.Input(())
    hls_model = convert(keras.Model(inputs, keras.layers.ReLU()(inputs)), tmp_path)
    (outputs,), _ = interpret(hls_model, np.array([-1.5, 0.25, 2.0]))
    np.testing.assert_array_equal(outputs.to_double().reshape(-1), [0.0, 0.25, 2.0])
