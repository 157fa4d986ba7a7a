"""The Keras ReSOM layer (hls4ml.nn.keras_resom) through the Keras frontend, on scikit-learn digits split
into two modalities (left and right image halves): the layer's float forward pass against the numpy
oracle, hls4ml's predict() against the float layer (label agreement, accuracies) and bit for bit
against the reference interpreter inside a larger model, the constructors from SOM layers and MiniSoms,
a saved-model round trip, and bad input refused with errors that name the layer.

One model (two ReSOM heads after Flatten and Dense branches) is compiled once per IO type."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip('keras')
pytest.importorskip('sklearn')

import hls4ml  # noqa: E402
from hls4ml.converters.keras import KerasConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.keras_resom import ReSOM  # noqa: E402
from hls4ml.nn.keras_som import SOM  # noqa: E402
from hls4ml.nn.resom_core import resom_forward  # noqa: E402

pytestmark = pytest.mark.csim
GRID = (6, 6)
TRAIN, LABELLED, TEST = slice(0, 1000), slice(0, 300), slice(1000, 1400)
AGREEMENT = 0.95  # fixed<16,6> firmware vs the float layer, on the labels
ACCURACY_MARGIN = 0.02  # the firmware's accuracy may trail the float layer's by this much at most
VARIANTS = {  # name: ReSOM settings (the forward checks); the compiled model holds the first two
    'classes': {'output': 'label'},
    'winners': {'output': 'index', 'source': 'bmu', 'combine': 'sum', 'iterations': 2, 'distance': 'manhattan'},
    'activities': {'output': 'activities', 'combine': 'sum', 'distance': 'chebyshev'},
    'pairs': {'output': 'winners', 'source': 'bmu', 'iterations': 3},
}


@pytest.fixture(scope='module')
def digits() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Left and right halves (n, 8, 4) of the 8x8 digits in [0, 1], and the classes."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = data.data.reshape(-1, 8, 8) / 16.0
    return images[:, :, :4], images[:, :, 4:], data.target


def _trained(settings: dict, x: np.ndarray, y: np.ndarray, targets: np.ndarray, name: str) -> ReSOM:
    """A ReSOM trained from paired samples (maps, lateral), x labelled on LABELLED, y by divergence."""
    resom = ReSOM(GRID, GRID, beta_x=0.25, beta_y=0.25, name=name, **settings)
    resom.fit_maps(x[TRAIN], y[TRAIN], epochs=2, seed=3).fit_lateral(x[TRAIN], y[TRAIN])
    return resom.label_units(labelled_x=(x[LABELLED], targets[LABELLED]))


@pytest.fixture(scope='module')
def heads(digits) -> tuple[keras.Model, list[ReSOM], np.ndarray]:
    """Left -> Flatten -> x; right -> Flatten -> Dense(32) (a permutation) -> y; two ReSOM heads."""
    left, right, targets = digits
    inputs = [keras.Input((8, 4), name='left'), keras.Input((8, 4), name='right')]
    dense = keras.layers.Dense(32, name='dense')
    branch_x, branch_y = keras.layers.Flatten()(inputs[0]), dense(keras.layers.Flatten()(inputs[1]))
    rng = np.random.default_rng(1)
    kernel = np.eye(32)[rng.permutation(32)]  # a shuffle of the features: exact in float and fixed point
    dense.set_weights([kernel, np.zeros(32)])
    x, y = left.reshape(-1, 32), right.reshape(-1, 32) @ kernel
    resoms = [_trained(VARIANTS[name], x, y, targets, name) for name in ('classes', 'winners')]
    model = keras.Model(inputs, [resom([branch_x, branch_y]) for resom in resoms])
    return model, resoms, y


def test_forward_equals_the_numpy_reference(digits) -> None:
    left, right, targets = digits
    x, y = left.reshape(-1, 32), right.reshape(-1, 32)
    for name, settings in VARIANTS.items():
        resom = _trained(settings, x, y, targets, name)
        outputs = resom([x[TEST], y[TEST]]).numpy()
        codebooks = resom.codebook_arrays()
        expected = resom_forward(
            x[TEST], y[TEST], *codebooks, resom.lateral_array(), resom.labels_array(), resom.settings
        )
        if name == 'activities':
            np.testing.assert_allclose(outputs, expected, atol=1e-5)
        else:
            assert float((outputs == expected).mean()) >= 0.99, name  # float32 vs float64 near-ties


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_heads_after_flatten_and_dense_match_keras_and_the_interpreter(heads, digits, io_type, tmp_path) -> None:
    model, resoms, _ = heads
    left, right, targets = digits
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type, hls_config=config
    )
    samples = [left[TEST], right[TEST]]
    predicted = [np.asarray(values).reshape(-1) for values in hls_model.predict(samples)]
    interpreted, _ = interpret(hls_model, samples)
    for name, ours, reference in zip(('classes', 'winners'), predicted, interpreted, strict=True):
        np.testing.assert_array_equal(ours, reference.value.reshape(-1), err_msg=name)
    floats = [values.reshape(-1) for values in model.predict(samples, verbose=0)]
    agreement = float((predicted[0] == floats[0]).mean())
    accuracy, float_accuracy = (float((classes == targets[TEST]).mean()) for classes in (predicted[0], floats[0]))
    print(f'Keras ReSOM, split digits: agreement {agreement:.3f}, accuracy {accuracy:.3f} (float {float_accuracy:.3f})')
    assert agreement >= AGREEMENT
    assert accuracy >= float_accuracy - ACCURACY_MARGIN
    assert accuracy > 0.6  # ten classes: far above chance
    assert float((predicted[1] == floats[1]).mean()) >= AGREEMENT


def test_constructors_from_som_layers_and_minisoms(digits) -> None:
    minisom = pytest.importorskip('minisom')
    from hls4ml.converters.resom import divergent_labels, hebbian_lateral
    from hls4ml.converters.som import minisom_unit_labels

    left, right, targets = digits
    x, y = left.reshape(-1, 32)[:400], right.reshape(-1, 32)[:400]
    soms = [SOM((4, 4), beta=0.5).fit_kohonen(half, epochs=1, seed=index) for index, half in enumerate((x, y))]
    resom = ReSOM.from_soms(*soms, pairs=(x, y), labelled_y=(y[:100], targets[:100]), output='index', name='joint')
    assert resom.name == 'joint' and resom.settings.map_x.beta == 0.5 and resom.settings.output == 'index'
    np.testing.assert_array_equal(resom.codebook_arrays()[1], soms[1].codebook_array())
    trained = []
    for index, half in enumerate((x, y)):
        som = minisom.MiniSom(4, 4, 32, sigma=1.0, random_seed=index)
        som.train(half, 400)
        trained.append(som)
    resom = ReSOM.from_minisoms(*trained, pairs=(x, y), labelled_x=(x[:200], targets[:200]), beta_x=0.3, beta_y=0.3)
    lateral = hebbian_lateral(tuple(trained), (x, y), betas=(0.3, 0.3))
    np.testing.assert_allclose(resom.lateral_array(), lateral, atol=1e-6)  # stored in float32
    labels_x = minisom_unit_labels(trained[0], x[:200], targets[:200])
    expected = np.concatenate([labels_x, divergent_labels(resom.lateral_array(), labels_x)])
    np.testing.assert_array_equal(resom.labels_array(), expected)


def test_config_and_saved_model_round_trip(tmp_path) -> None:
    layer = ReSOM((2, 3), (3, 2), 'chebyshev', 'bmu', 'sum', 2, 'winners', 0.5, 2.0, ('hexagonal', 'rectangular'))
    clone = ReSOM.from_config(layer.get_config())
    assert clone.settings == layer.settings
    resom = ReSOM((2, 2), (2, 3), beta_x=1.0, beta_y=1.0, name='joint')  # H is set, not learned
    inputs = [keras.Input((3,)), keras.Input((2,))]
    model = keras.Model(inputs, resom(inputs))
    rng = np.random.default_rng(0)
    resom.fit_maps(rng.random((40, 3)), rng.random((40, 2)), epochs=1).set_lateral(rng.random((4, 6)))
    resom.set_labels(np.arange(10) % 3)
    model.save(tmp_path / 'resom.keras')
    loaded = keras.models.load_model(tmp_path / 'resom.keras')
    samples = [rng.random((20, 3)), rng.random((20, 2))]
    np.testing.assert_array_equal(loaded.predict(samples, verbose=0), model.predict(samples, verbose=0))


def test_bad_input_is_refused_with_clear_errors(tmp_path) -> None:
    resom = ReSOM((2, 2), (2, 3), beta_x=1.0, beta_y=1.0, name='joint')  # H is set, not learned
    inputs = [keras.Input((3,)), keras.Input((2,))]
    model = keras.Model(inputs, resom(inputs))
    with pytest.raises(ValueError, match=r"ReSOM 'joint': the lateral matrix has shape \(6, 4\), expected \(4, 6\)"):
        resom.set_lateral(np.zeros((6, 4)))
    with pytest.raises(ValueError, match="ReSOM 'joint': the lateral matrix holds NaN"):
        resom.set_lateral(np.full((4, 6), np.nan))
    with pytest.raises(ValueError, match='must be non-negative'):
        resom.set_lateral(-np.ones((4, 6)))
    with pytest.raises(ValueError, match=r"ReSOM 'joint': expected 10 non-negative labels"):
        resom.set_labels(np.arange(4))
    with pytest.raises(ValueError, match='expected samples of shape'):
        resom.fit_maps(np.zeros((10, 4)), np.zeros((10, 2)))
    with pytest.raises(ValueError, match='data_x has 10 samples, data_y 9: they must pair up'):
        resom.fit_lateral(np.zeros((10, 3)), np.zeros((9, 2)))
    with pytest.raises(ValueError, match=r'expected two inputs \[x, y\]'):
        keras.Sequential([keras.Input((3,)), ReSOM((2, 2), (2, 2))])
    with pytest.raises(ValueError, match="unsupported distance 'cosine'"):
        ReSOM((2, 2), (2, 2), distance='cosine')
    with pytest.raises(ValueError, match='iterations must be an integer of at least 1'):
        ReSOM((2, 2), (2, 2), iterations=0)
    with pytest.raises(ValueError, match='the two SOMs must use one distance'):
        ReSOM.from_soms(
            SOM((2, 2), 'manhattan').fit_kohonen(np.zeros((4, 2)), 1), SOM((2, 2)).fit_kohonen(np.zeros((4, 2)), 1)
        )
    resom.lateral.assign(np.full((4, 6), np.nan))  # behind the layer's back
    with pytest.raises(KerasConversionError, match=r"'joint' \(ReSOM\): lateral holds NaN"):
        hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
