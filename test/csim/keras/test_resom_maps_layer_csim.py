"""The Keras ReSOMMaps layer (hls4ml.nn.keras_resom_maps, three maps) through the Keras frontend, on
scikit-learn digits cut into three column bands: the float forward pass against the numpy float model,
predict() against the float layer (label agreement, accuracy) and bit for bit against the interpreter,
MiniSoms as maps, a config round trip, and bad input refused with errors that name the layer."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip('keras')
pytest.importorskip('sklearn')

import hls4ml  # noqa: E402
from hls4ml.converters.keras import KerasConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.keras_resom_maps import ReSOMMaps  # noqa: E402
from hls4ml.nn.resom_maps_core import resom_maps_forward  # noqa: E402

pytestmark = pytest.mark.csim
GRIDS = [(5, 5), (4, 4), (5, 5)]
BANDS = ((0, 3), (3, 5), (5, 8))
TRAIN, LABELLED, TEST = slice(0, 1000), slice(0, 300), slice(1000, 1400)
VARIANTS = {
    'classes': {'output': 'label'},
    'winners': {'output': 'winners', 'source': 'bmu', 'combine': 'sum', 'iterations': 2, 'distance': 'manhattan'},
    'activities': {'output': 'activities', 'combine': 'sum', 'distance': 'chebyshev'},
    'index': {'output': 'index', 'source': 'bmu', 'iterations': 3},
}


@pytest.fixture(scope='module')
def digits() -> tuple[list[np.ndarray], np.ndarray]:
    """The three column bands (n, 8, width) of the 8x8 digits in [0, 1], and the classes."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = data.data.reshape(-1, 8, 8) / 16.0
    return [images[:, :, start:stop] for start, stop in BANDS], data.target


def _trained(settings: dict, bands: list[np.ndarray], targets: np.ndarray, name: str) -> ReSOMMaps:
    """Maps and pair matrices from unlabelled bands; map 0 labelled on LABELLED, maps 1 and 2 by divergence."""
    vectors = [band.reshape(len(band), -1) for band in bands]
    resom = ReSOMMaps(GRIDS, betas=0.25, name=name, **settings)
    resom.fit_maps([v[TRAIN] for v in vectors], epochs=2, seed=3).fit_laterals([v[TRAIN] for v in vectors])
    return resom.label_units([(vectors[0][LABELLED], targets[LABELLED]), None, None])


def test_forward_equals_the_numpy_float_model(digits) -> None:
    bands, targets = digits
    vectors = [band.reshape(len(band), -1)[TEST] for band in bands]
    for name, settings in VARIANTS.items():
        resom = _trained(settings, bands, targets, name)
        outputs = np.asarray(resom(vectors))
        expected = resom_maps_forward(
            vectors, resom.codebook_arrays(), resom.lateral_arrays(), resom.labels_array(), resom.settings
        )
        if name == 'activities':
            np.testing.assert_allclose(outputs, expected, atol=1e-5)
        else:
            assert float((outputs == expected).mean()) >= 0.99, name  # float32 vs float64 near-ties


def test_three_bands_after_flatten_match_keras_and_the_interpreter(digits, tmp_path) -> None:
    bands, targets = digits
    inputs = [keras.Input(band.shape[1:], name=f'band{index}') for index, band in enumerate(bands)]
    resom = _trained(VARIANTS['classes'], bands, targets, 'resom')
    model = keras.Model(inputs, resom([keras.layers.Flatten()(value) for value in inputs]))
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    hls_model = hls4ml.converters.convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_parallel', hls_config=config
    )
    samples = [band[TEST] for band in bands]
    predicted = np.asarray(hls_model.predict(samples)).reshape(-1)
    (interpreted,), _ = interpret(hls_model, samples)
    np.testing.assert_array_equal(predicted, interpreted.value.reshape(-1))
    floats = model.predict(samples, verbose=0).reshape(-1)
    agreement = float((predicted == floats).mean())
    accuracy, float_accuracy = (float((classes == targets[TEST]).mean()) for classes in (predicted, floats))
    print(f'Keras ReSOMMaps, 3 bands: agreement {agreement:.3f}, accuracy {accuracy:.3f} (float {float_accuracy:.3f})')
    assert agreement >= 0.95 and accuracy >= float_accuracy - 0.02
    assert accuracy > 0.3  # ten classes, labels of map 0 only (maps 1 and 2 by divergence): far above chance


def test_minisoms_and_config_round_trip(digits) -> None:
    minisom = pytest.importorskip('minisom')
    from hls4ml.converters.resom import hebbian_laterals

    bands, targets = digits
    vectors = [band.reshape(len(band), -1)[:400] for band in bands]
    soms = []
    for index, values in enumerate(vectors):
        som = minisom.MiniSom(4, 4, values.shape[1], sigma=1.0, random_seed=index)
        som.train(values, 400)
        soms.append(som)
    resom = ReSOMMaps.from_minisoms(
        soms, data=vectors, labelled=[None, (vectors[1][:200], targets[:200]), None], betas=0.3
    )
    for pair, values in hebbian_laterals(soms, vectors, betas=0.3).items():
        np.testing.assert_allclose(resom.lateral_arrays()[pair], values, atol=1e-6)  # stored in float32
    clone = ReSOMMaps.from_config(resom.get_config())
    assert clone.settings == resom.settings


def test_bad_input_is_refused_with_clear_errors(tmp_path) -> None:
    resom = ReSOMMaps([(2, 2), (1, 3), (2, 1)], name='joint')
    inputs = [keras.Input((3,)), keras.Input((2,)), keras.Input((2,))]
    model = keras.Model(inputs, resom(inputs))
    with pytest.raises(ValueError, match=r'ReSOMMaps.set_laterals: the lateral matrix of maps 1 and 2 is missing'):
        resom.set_laterals({(0, 1): np.ones((4, 3)), (0, 2): np.ones((4, 2))})
    with pytest.raises(ValueError, match=r'lateral \(0, 2\) has shape \(2, 4\), expected \(4, 2\)'):
        resom.set_laterals({(0, 1): np.ones((4, 3)), (0, 2): np.ones((2, 4)), (1, 2): np.ones((3, 2))})
    with pytest.raises(ValueError, match=r"ReSOMMaps 'joint': expected 3 inputs"):
        keras.Sequential([keras.Input((3,)), ReSOMMaps([(2, 2)] * 3, name='joint')])
    with pytest.raises(ValueError, match="unsupported source 'most'"):
        ReSOMMaps([(2, 2)] * 3, source='most')
    matrix = np.zeros((9, 9))
    matrix[0, 5] = 1.0  # one direction only: not the symmetric matrix set_laterals writes
    resom.matrix.assign(matrix)
    with pytest.raises(KerasConversionError, match=r"'joint' \(ReSOMMaps\).*not symmetric"):
        hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
