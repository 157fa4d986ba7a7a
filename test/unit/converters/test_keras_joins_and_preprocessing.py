"""Keras merges and concatenations of more than two inputs (trees and chains of two-input layers), and
the preprocessing layers Rescaling and Normalization (a BatchNormalization): the IR they become and
what the emulator computes, against Keras."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import hls4ml
from hls4ml.converters.keras import KerasConversionError, parse_keras_model
from hls4ml.model.interpreter import interpret

L = keras.layers
PRECISION = 'ap_fixed<24,8>'  # weights with 16 fraction bits; auto types grow to the 48-bit cap
pytestmark = pytest.mark.filterwarnings("ignore:'auto' precision is capped")


def emulated(model: keras.Model, x: np.ndarray, tmp_path) -> np.ndarray:
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', default_precision=PRECISION)
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    (result,), _ = interpret(hls_model, x)
    return result.to_double()


def branches(count: int, width: int = 4) -> tuple[keras.KerasTensor, list]:
    inputs = keras.Input((width,), name='x')
    return inputs, [L.Dense(width, name=f'branch{index}')(inputs) for index in range(count)]


@pytest.mark.parametrize('merge', [L.Add, L.Multiply, L.Maximum, L.Minimum, L.Average])
@pytest.mark.parametrize('count', [4, 5])
def test_merges_of_n_inputs_compute_what_keras_computes(merge, count: int, tmp_path) -> None:
    keras.utils.set_random_seed(count)
    inputs, parts = branches(count)
    model = keras.Model(inputs, merge(name='joined')(parts))
    x = np.random.default_rng(1).uniform(-2, 2, (64, 4)).astype(np.float32)
    # auto types are exact up to the 48-bit cap: the weights' rounding to 16 fraction bits is what is lost
    np.testing.assert_allclose(emulated(model, x, tmp_path), model.predict(x, verbose=0), atol=2e-3)


def test_a_merge_of_five_is_a_balanced_tree_named_after_the_keras_layer() -> None:
    inputs, parts = branches(5)
    graph, origin = parse_keras_model(keras.Model(inputs, L.Add(name='total')(parts)))
    merges = {name: layer.inputs for name, layer in graph.layers.items() if layer.kind == 'Merge'}
    assert merges == {
        'total_0': ['branch0', 'branch1'],
        'total_1': ['branch2', 'branch3'],
        'total_2': ['total_0', 'total_1'],
        'total': ['total_2', 'branch4'],
    }
    assert origin['total'] == 'total' and 'total_0' not in origin


def test_an_average_of_three_is_the_sum_times_a_third() -> None:
    inputs, parts = branches(3)
    graph, _ = parse_keras_model(keras.Model(inputs, L.Average(name='mean')(parts)))
    assert graph.layers['mean_sum'].attributes['op'] == 'add'
    scale = graph.layers['mean'].weights['scale']
    assert graph.layers['mean'].kind == 'BatchNormalization' and np.all(scale == 1 / 3)


def test_concatenating_four_inputs_keeps_their_order(tmp_path) -> None:
    keras.utils.set_random_seed(2)
    inputs, parts = branches(4)
    model = keras.Model(inputs, L.Concatenate(name='cat')([parts[2], inputs, parts[0], parts[3]]))
    graph, _ = parse_keras_model(model)
    assert [layer.kind for layer in graph.layers.values()].count('Concatenate') == 3
    x = np.random.default_rng(3).uniform(-2, 2, (32, 4)).astype(np.float32)
    np.testing.assert_allclose(emulated(model, x, tmp_path), model.predict(x, verbose=0), atol=1e-4)


def test_merging_inputs_of_different_shapes_is_refused() -> None:
    inputs = keras.Input((4,), name='x')
    wide = L.Dense(8, name='wide')(inputs)
    model = keras.Model(inputs, L.Add(name='bad')([L.Reshape((4, 2))(wide), L.Reshape((4, 1))(inputs)]))
    with pytest.raises(KerasConversionError, match=r"'bad' \(Add\).*broadcasting"):
        parse_keras_model(model)


def test_rescaling_and_normalization_are_per_element_affine_maps(tmp_path) -> None:
    x = np.random.default_rng(0).normal(2, 3, (100, 4, 3)).astype(np.float32)
    adapted = L.Normalization(name='adapted')
    adapted.adapt(x)
    model = keras.Sequential(
        [
            keras.Input((4, 3)),
            L.Rescaling(1 / 8, offset=0.5, name='scaled'),
            adapted,
            L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.25, 1.0], invert=True, name='inverted'),
            L.Rescaling([0.5, 2.0, -1.0], name='per_channel'),
        ]
    )
    graph, _ = parse_keras_model(model)
    assert [layer.kind for layer in graph.layers.values()][1:] == ['BatchNormalization'] * 4
    assert graph.layers['per_channel'].weights['scale'].tolist() == [0.5, 2.0, -1.0] * 4
    emulation = emulated(model, x, tmp_path).reshape(len(x), -1)
    np.testing.assert_allclose(emulation, model.predict(x, verbose=0).reshape(len(x), -1), atol=2e-3)


@pytest.mark.parametrize(
    ('shapes', 'axes'),
    [(((3, 4), (5, 4)), (2, 2)), (((3, 4), (4, 2)), (2, 1)), (((3, 4), (3,)), 1), (((4, 3), (2, 3)), -1)],
)
def test_dot_of_matrices_is_keras_batch_dot(shapes, axes, tmp_path) -> None:
    inputs = [keras.Input(shape, name=f'in{index}') for index, shape in enumerate(shapes)]
    model = keras.Model(inputs, L.Dot(axes=axes, name='dot')(inputs))
    rng = np.random.default_rng(6)
    x = [rng.uniform(-2, 2, (16, *shape)).astype(np.float32) for shape in shapes]
    expected = model.predict(x, verbose=0).reshape(16, -1)
    np.testing.assert_allclose(emulated(model, x, tmp_path).reshape(16, -1), expected, atol=1e-4)


def test_a_normalized_dot_and_a_dot_of_three_axes_are_refused() -> None:
    inputs = [keras.Input((3, 4)), keras.Input((5, 4))]
    with pytest.raises(KerasConversionError, match=r"'bad' \(Dot\).*normalize=True"):
        parse_keras_model(keras.Model(inputs, L.Dot(axes=(2, 2), normalize=True, name='bad')(inputs)))
    cubes = [keras.Input((2, 3, 4)), keras.Input((2, 3, 4))]
    with pytest.raises(KerasConversionError, match=r"'cube' \(Dot\).*1 or 2 axes"):
        parse_keras_model(keras.Model(cubes, L.Dot(axes=(3, 3), name='cube')(cubes)))
