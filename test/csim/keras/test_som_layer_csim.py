"""The Keras SOM layer (hls4ml.nn.keras_som) through the Keras frontend: the layer's own forward pass
equals hls4ml's predict() (bit for bit where the values are exact, within the table error for the
activities) inside larger models, BMUs agree on unrounded data, the Kohonen trainer is deterministic,
MiniSom weights load, and bad input is refused with errors that name the layer."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip('keras')

import hls4ml  # noqa: E402
from hls4ml.converters.keras import KerasConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.keras_som import SOM  # noqa: E402
from hls4ml.nn.som_core import som_forward  # noqa: E402

pytestmark = pytest.mark.csim
GRID = (3, 4)
ACTIVITY_TOLERANCE = 5e-3  # the exp table's step and LSB (docs/som.md)
HEADS = {  # name: SOM settings; every head reads the same Dense output
    'bmu_index': {'output': 'index'},
    'bmu_label': {'output': 'label'},
    'hex_coordinates': {'output': 'coordinates', 'topology': 'hexagonal'},
    'manhattan_distances': {'output': 'distances', 'distance': 'manhattan'},
    'activities': {'output': 'activities', 'beta': 0.5},
    'cosine_one_hot': {'output': 'one_hot', 'distance': 'cosine'},
    'quantized': {'output': 'quantized', 'distance': 'chebyshev'},
}


def _grid_data(count: int, seed: int) -> np.ndarray:
    """Inputs on a 1/8 grid: every value of the models below is exact in float32 and fixed point."""
    return np.random.default_rng(seed).integers(-8, 9, (count, 2, 3)) / 8.0


def _heads_model() -> tuple[keras.Model, dict[str, SOM]]:
    """Input (2, 3) -> Flatten -> Dense(4) -> one SOM per head; SOM weights trained, then put on a 1/16 grid."""
    inputs = keras.Input((2, 3))
    dense = keras.layers.Dense(4, name='dense')
    hidden = dense(keras.layers.Flatten()(inputs))
    soms = {name: SOM(GRID, name=name, **settings) for name, settings in HEADS.items()}
    model = keras.Model(inputs, [som(hidden) for som in soms.values()])
    kernel = np.random.default_rng(1).integers(-4, 5, (6, 4)) / 4.0
    dense.set_weights([kernel, np.array([0.25, -0.5, 0.0, 0.125])])
    features = _grid_data(300, 2).reshape(300, 6) @ kernel + dense.get_weights()[1]
    for index, som in enumerate(soms.values()):
        som.fit_kohonen(features, epochs=2, seed=index)
        som.set_codebook(np.round(som.codebook_array() * 16) / 16)
        som.label_units(features, (features[:, 0] > 0).astype(int) + (features[:, 1] > 0))
    return model, soms


@pytest.fixture(scope='module')
def heads() -> tuple[keras.Model, dict[str, SOM]]:
    return _heads_model()


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_som_heads_after_dense_equal_keras(heads, io_type, tmp_path) -> None:
    model, soms = heads
    # exact 'auto' distances after the Dense: wider than the default cap of 'auto' types
    config = hls4ml.utils.config_from_keras_model(model, granularity='name', max_precision='fixed<64,32>')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type, hls_config=config
    )
    x = _grid_data(100, 3)
    expected = model.predict(x, verbose=0)
    predicted = hls_model.predict(x)
    interpreted, _ = interpret(hls_model, x)
    for name, ours, theirs, reference in zip(soms, predicted, expected, interpreted, strict=True):
        ours = np.asarray(ours).reshape(theirs.shape)
        np.testing.assert_array_equal(ours, reference.value.reshape(theirs.shape), err_msg=name)
        if name == 'activities':
            np.testing.assert_allclose(ours, theirs, atol=ACTIVITY_TOLERANCE, err_msg=name)
        elif name == 'hex_coordinates':
            np.testing.assert_allclose(ours, theirs, atol=2.0**-12, err_msg=name)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_forward_equals_the_numpy_reference(heads) -> None:
    model, soms = heads
    x = _grid_data(50, 4)
    features = model.get_layer('dense')(x.reshape(50, 6)).numpy()
    for som, output in zip(soms.values(), model.predict(x, verbose=0), strict=True):
        labels = som.labels.numpy()
        np.testing.assert_allclose(output, som_forward(features, som.codebook_array(), labels, som.settings), atol=1e-5)


def test_som_after_flatten_agrees_on_unrounded_data(tmp_path) -> None:
    """A SOM straight after Flatten, trained and converted as is: the BMU agreement with Keras (spec A.6)."""
    data = np.random.default_rng(6).uniform(0, 1, (400, 4, 2))
    som = SOM((4, 5), name='som')
    model = keras.Sequential([keras.Input((4, 2)), keras.layers.Flatten(), som])
    som.fit_kohonen(data.reshape(400, 8), epochs=3, seed=1)
    hls_model = hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    predicted = np.asarray(hls_model.predict(data)).reshape(-1)
    agreement = float((predicted == model.predict(data, verbose=0).reshape(-1)).mean())
    assert agreement >= 0.98


@pytest.mark.parametrize('mode', ['online', 'batch'])
def test_trainer_is_deterministic_and_learns(mode) -> None:
    data = np.random.default_rng(8).uniform(-1, 1, (200, 3))
    codebooks = [SOM(GRID, seed=5).fit_kohonen(data, 4, mode=mode, seed=seed).codebook_array() for seed in (1, 1, 2)]
    np.testing.assert_array_equal(codebooks[0], codebooks[1])
    assert not np.array_equal(codebooks[0], codebooks[2])
    untrained = np.random.default_rng(0).uniform(-1, 1, codebooks[0].shape)
    error = [np.sqrt(((data[:, None] - book[None]) ** 2).sum(2)).min(1).mean() for book in (untrained, codebooks[0])]
    assert error[1] < error[0]


def test_minisom_weights_load() -> None:
    minisom = pytest.importorskip('minisom')
    data = np.random.default_rng(3).uniform(0, 1, (200, 3))
    trained = minisom.MiniSom(3, 4, 3, sigma=1.0, activation_distance='manhattan', random_seed=2)
    trained.train(data, 200)
    layer = SOM.from_minisom(trained)
    winners = [np.ravel_multi_index(trained.winner(x), GRID) for x in data]
    assert float((layer(data).numpy().reshape(-1) == winners).mean()) >= 0.99  # float32 vs float64
    mismatched = SOM((4, 3))
    with pytest.raises(ValueError, match=r"SOM '.*': the MiniSom has grid"):
        mismatched.load_minisom(trained)


def test_bad_input_is_refused_with_clear_errors(tmp_path) -> None:
    som = SOM(GRID, name='mapper')
    model = keras.Sequential([keras.Input((3,)), som])
    with pytest.raises(ValueError, match=r"SOM 'mapper': the codebook has shape \(12, 2\), expected \(12, 3\)"):
        som.set_codebook(np.zeros((12, 2)))
    with pytest.raises(ValueError, match='expected samples of shape'):
        som.fit_kohonen(np.zeros((10, 4)))
    with pytest.raises(ValueError, match='NaN or infinite'):
        som.fit_kohonen(np.full((10, 3), np.nan))
    with pytest.raises(ValueError, match="SOM 'mapper': the codebook holds NaN"):
        som.set_codebook(np.full((12, 3), np.nan))
    som.codebook.assign(np.full((12, 3), np.nan))  # behind the layer's back
    with pytest.raises(KerasConversionError, match=r"'mapper' \(SOM\): the codebook holds NaN"):
        hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    with pytest.raises(ValueError, match="unsupported distance 'hamming'"):
        SOM(GRID, distance='hamming')
    with pytest.raises(ValueError, match=r'expected inputs of shape \(batch, n_in\)'):
        keras.Sequential([keras.Input((2, 3)), SOM(GRID)])


def test_layer_config_and_saved_model_round_trip(tmp_path) -> None:
    layer = SOM(GRID, distance='cosine', output='activities', topology='hexagonal', beta=0.3, name='som')
    clone = SOM.from_config(layer.get_config())
    assert clone.settings == layer.settings and clone.name == 'som'
    som = SOM(GRID, output='label', name='labelled')
    model = keras.Sequential([keras.Input((4,)), som])
    som.fit_kohonen(np.random.default_rng(0).uniform(size=(50, 4)), 2).set_labels(np.arange(12) % 3)
    model.save(tmp_path / 'som.keras')
    loaded = keras.models.load_model(tmp_path / 'som.keras')
    x = np.random.default_rng(1).uniform(size=(20, 4))
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
