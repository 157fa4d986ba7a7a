"""The PyTorch ReSOMMaps module (hls4ml.nn.torch_resom_maps, three maps) through the PyTorch frontend, on
scikit-learn digits cut into three column bands: the float forward pass against the numpy float model,
predict() against the float module (label agreement, accuracy) and bit for bit against the interpreter,
the IR layer named after its module, and bad input refused with errors that name the module."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('sklearn')

import hls4ml  # noqa: E402
from hls4ml.converters.builder import ConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.resom_maps_core import resom_maps_forward  # noqa: E402
from hls4ml.nn.torch_resom_maps import ReSOMMaps  # noqa: E402

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


def _trained(settings: dict, vectors: list[np.ndarray], targets: np.ndarray) -> ReSOMMaps:
    """Maps and pair matrices from unlabelled bands; every map labelled on LABELLED."""
    resom = ReSOMMaps([v.shape[1] for v in vectors], GRIDS, betas=0.25, **settings)
    resom.fit_maps([v[TRAIN] for v in vectors], epochs=2, seed=3).fit_laterals([v[TRAIN] for v in vectors])
    return resom.label_units([(v[LABELLED], targets[LABELLED]) for v in vectors])


class Bands(torch.nn.Module):
    """Three bands -> flatten -> one ReSOMMaps head."""

    def __init__(self, resom: ReSOMMaps) -> None:
        super().__init__()
        self.resom = resom

    def forward(self, first: torch.Tensor, second: torch.Tensor, third: torch.Tensor) -> torch.Tensor:
        return self.resom(torch.flatten(first, 1), torch.flatten(second, 1), torch.flatten(third, 1))


def _tensor(values: np.ndarray) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


def test_forward_equals_the_numpy_float_model(digits) -> None:
    bands, targets = digits
    vectors = [band.reshape(len(band), -1) for band in bands]
    for name, settings in VARIANTS.items():
        resom = _trained(settings, vectors, targets)
        with torch.no_grad():
            outputs = resom(*(_tensor(v[TEST]) for v in vectors)).numpy()
        expected = resom_maps_forward(
            [v[TEST] for v in vectors],
            resom.codebook_arrays(),
            resom.lateral_arrays(),
            resom.labels_array(),
            resom.settings,
        )
        if name == 'activities':
            np.testing.assert_allclose(outputs, expected, atol=1e-5)
        else:
            assert float((outputs == expected).mean()) >= 0.99, name  # float32 vs float64 near-ties


def test_three_bands_match_pytorch_and_the_interpreter(digits, tmp_path) -> None:
    bands, targets = digits
    vectors = [band.reshape(len(band), -1) for band in bands]
    model = Bands(_trained(VARIANTS['classes'], vectors, targets)).eval()
    config = hls4ml.utils.config_from_pytorch_model(model, [band.shape[1:] for band in bands], granularity='name')
    assert 'resom' in config['LayerName']  # named after the module
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config
    )
    samples = [band[TEST] for band in bands]
    predicted = np.asarray(hls_model.predict(samples)).reshape(-1)
    (interpreted,), _ = interpret(hls_model, samples)
    np.testing.assert_array_equal(predicted, interpreted.value.reshape(-1))
    with torch.no_grad():
        floats = model(*map(_tensor, samples)).numpy().reshape(-1)
    agreement = float((predicted == floats).mean())
    accuracy, float_accuracy = (float((classes == targets[TEST]).mean()) for classes in (predicted, floats))
    print(
        f'PyTorch ReSOMMaps, 3 bands: agreement {agreement:.3f}, accuracy {accuracy:.3f} (float {float_accuracy:.3f})'
    )
    assert agreement >= 0.95 and accuracy >= float_accuracy - 0.02
    assert accuracy > 0.45  # ten classes, small maps trained two epochs: far above chance


def test_bad_input_is_refused_with_clear_errors(tmp_path) -> None:
    resom = ReSOMMaps([3, 2, 2], [(2, 2), (1, 3), (2, 1)])
    with pytest.raises(
        ValueError, match=r'ReSOMMaps.set_laterals: lateral \(0, 1\) has shape \(3, 4\), expected \(4, 3\)'
    ):
        resom.set_laterals([np.ones((3, 4)), np.ones((4, 2)), np.ones((3, 2))])
    with pytest.raises(ValueError, match=r'3 lateral matrices for 3 maps|expected one per pair'):
        resom.set_laterals([np.ones((4, 3))])
    with pytest.raises(ValueError, match='2 input widths for 3 maps'):
        ReSOMMaps([3, 2], [(2, 2)] * 3)
    with pytest.raises(ValueError, match=r'ReSOMMaps.label_units: 2 entries for 3 maps'):
        resom.label_units([None, None])
    resom.matrix[0, 0] = 1.0  # behind the module's back: a map linked to itself
    with pytest.raises(ConversionError, match=r'resom.*not symmetric with zero diagonal blocks'):
        hls4ml.converters.convert_from_pytorch_model(
            Bands(resom),
            output_dir=str(tmp_path / 'prj'),
            backend='Vitis',
            hls_config={'InputShape': [(1, 3), (1, 2), (1, 2)]},
        )
