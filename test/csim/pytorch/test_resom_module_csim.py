"""The PyTorch ReSOM module (hls4ml.nn.torch_resom) through the PyTorch frontend, on scikit-learn digits
split into two modalities (left and right image halves): the module's float forward pass against the
numpy oracle, hls4ml's predict() against the float module (label agreement, accuracies) and bit for bit
against the reference interpreter inside a larger model, IR layers named after their modules (SOM and
ReSOM, so LayerName entries reach them), the constructors, and bad input refused with clear errors.

One model (two ReSOM heads after Flatten and Linear branches) is compiled once."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('sklearn')

import hls4ml  # noqa: E402
from hls4ml.converters.builder import ConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.resom_core import resom_forward  # noqa: E402
from hls4ml.nn.torch_resom import ReSOM  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

pytestmark = pytest.mark.csim
GRID = (6, 6)
TRAIN, LABELLED, TEST = slice(0, 1000), slice(0, 300), slice(1000, 1400)
AGREEMENT = 0.95  # fixed<16,6> firmware vs the float module, on the labels
ACCURACY_MARGIN = 0.02  # the firmware's accuracy may trail the float module's by this much at most
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


def _trained(settings: dict, x: np.ndarray, y: np.ndarray, targets: np.ndarray) -> ReSOM:
    """A ReSOM trained from paired samples (maps, lateral), x labelled on LABELLED, y by divergence."""
    resom = ReSOM(x.shape[1], y.shape[1], GRID, GRID, beta_x=0.25, beta_y=0.25, **settings)
    resom.fit_maps(x[TRAIN], y[TRAIN], epochs=2, seed=3).fit_lateral(x[TRAIN], y[TRAIN])
    return resom.label_units(labelled_x=(x[LABELLED], targets[LABELLED]))


class Heads(torch.nn.Module):
    """Left -> flatten -> x; right -> flatten -> Linear(32, 32) (a permutation) -> y; two ReSOM heads."""

    def __init__(self, resoms: dict[str, ReSOM], permutation: np.ndarray) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(32, 32)
        with torch.no_grad():
            self.linear.weight.copy_(torch.tensor(np.eye(32)[permutation]))
            self.linear.bias.zero_()
        self.heads = torch.nn.ModuleDict(resoms)

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x, y = torch.flatten(left, 1), self.linear(torch.flatten(right, 1))
        return tuple(resom(x, y) for resom in self.heads.values())


@pytest.fixture(scope='module')
def heads(digits) -> Heads:
    left, right, targets = digits
    permutation = np.random.default_rng(1).permutation(32)
    x, y = left.reshape(-1, 32), right.reshape(-1, 32)[:, permutation]
    resoms = {name: _trained(VARIANTS[name], x, y, targets) for name in ('classes', 'winners')}
    return Heads(resoms, permutation).eval()


def _tensor(values: np.ndarray) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


def test_forward_equals_the_numpy_reference(digits) -> None:
    left, right, targets = digits
    x, y = left.reshape(-1, 32), right.reshape(-1, 32)
    for name, settings in VARIANTS.items():
        resom = _trained(settings, x, y, targets)
        with torch.no_grad():
            outputs = resom(_tensor(x[TEST]), _tensor(y[TEST])).numpy()
        codebooks, lateral, labels = resom.codebook_arrays(), resom.lateral_array(), resom.labels_array()
        expected = resom_forward(x[TEST], y[TEST], *codebooks, lateral, labels, resom.settings)
        if name == 'activities':
            np.testing.assert_allclose(outputs, expected, atol=1e-5)
        else:
            assert float((outputs == expected).mean()) >= 0.99, name  # float32 vs float64 near-ties


def test_heads_after_flatten_and_linear_match_pytorch_and_the_interpreter(heads, digits, tmp_path) -> None:
    left, right, targets = digits
    config = hls4ml.utils.config_from_pytorch_model(heads, [(8, 4), (8, 4)], granularity='name')
    assert {'heads_classes', 'heads_winners'} <= set(config['LayerName'])  # named after the modules
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        heads, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config
    )
    samples = [left[TEST], right[TEST]]
    predicted = [np.asarray(values).reshape(-1) for values in hls_model.predict(samples)]
    interpreted, _ = interpret(hls_model, samples)
    for name, ours, reference in zip(('classes', 'winners'), predicted, interpreted, strict=True):
        np.testing.assert_array_equal(ours, reference.value.reshape(-1), err_msg=name)
    with torch.no_grad():
        floats = [values.numpy().reshape(-1) for values in heads(*map(_tensor, samples))]
    agreement = float((predicted[0] == floats[0]).mean())
    accuracy, float_accuracy = (float((classes == targets[TEST]).mean()) for classes in (predicted[0], floats[0]))
    print(
        f'PyTorch ReSOM, split digits: agreement {agreement:.3f}, accuracy {accuracy:.3f} (float {float_accuracy:.3f})'
    )
    assert agreement >= AGREEMENT
    assert accuracy >= float_accuracy - ACCURACY_MARGIN
    assert accuracy > 0.6  # ten classes: far above chance
    assert float((predicted[1] == floats[1]).mean()) >= AGREEMENT


class Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)
        self.som = SOM(3, (2, 2), output='activities')


class Paired(torch.nn.Module):
    """A SOM inside a submodule and a ReSOM at the top: both IR layers carry their module's name."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = Encoder()
        self.resom = ReSOM(4, 2, (2, 2), (1, 3), output='activities', beta_x=1.0, beta_y=1.0)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.encoder.som(self.encoder.linear(x)), self.resom(x, y)


def test_layers_are_named_after_their_modules(tmp_path) -> None:
    model = Paired().eval()
    model.resom.set_lateral(np.random.default_rng(0).random((4, 3)))
    config = {'InputShape': [(4,), (2,)], 'LayerName': {'encoder.som': {'TableSize': 64}, 'resom': {'TableSize': 128}}}
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config
    )
    layers = hls_model.graph.layers
    assert layers['encoder_som'].kind == 'SOM' and layers['resom'].kind == 'ReSOM'
    assert layers['encoder_som'].source_class == 'SOM' and layers['resom'].source_class == 'ReSOM'
    assert layers['encoder_som'].attributes['table_size'] == 64 and layers['resom'].attributes['table_size'] == 128
    lone = hls4ml.converters.convert_from_pytorch_model(
        SOM(3, (2, 2)), output_dir=str(tmp_path / 'lone'), backend='Vitis', hls_config={'InputShape': (3,)}
    )
    assert 'som' in lone.graph.layers  # the traced model itself: its class name


def test_constructors_from_som_modules_and_minisoms(digits) -> None:
    minisom = pytest.importorskip('minisom')
    from hls4ml.converters.resom import divergent_labels, hebbian_lateral
    from hls4ml.converters.som import minisom_unit_labels

    left, right, targets = digits
    x, y = left.reshape(-1, 32)[:400], right.reshape(-1, 32)[:400]
    soms = [SOM(32, (4, 4), beta=0.5).fit_kohonen(half, epochs=1, seed=index) for index, half in enumerate((x, y))]
    resom = ReSOM.from_soms(*soms, pairs=(_tensor(x), _tensor(y)), labelled_y=(y[:100], targets[:100]), output='index')
    assert resom.settings.map_y.beta == 0.5 and resom.settings.output == 'index'
    np.testing.assert_array_equal(resom.codebook_arrays()[0], soms[0].codebook_array())
    trained = []
    for index, half in enumerate((x, y)):
        som = minisom.MiniSom(4, 4, 32, sigma=1.0, random_seed=index)
        som.train(half, 400)
        trained.append(som)
    resom = ReSOM.from_minisoms(*trained, pairs=(x, y), labelled_x=(x[:200], targets[:200]), learning={'rule': 'bmu'})
    np.testing.assert_allclose(resom.lateral_array(), hebbian_lateral(tuple(trained), (x, y), rule='bmu'), atol=1e-6)
    labels_x = minisom_unit_labels(trained[0], x[:200], targets[:200])
    expected = np.concatenate([labels_x, divergent_labels(resom.lateral_array(), labels_x)])
    np.testing.assert_array_equal(resom.labels_array(), expected)


def test_bad_input_is_refused_with_clear_errors() -> None:
    resom = ReSOM(3, 2, (2, 2), (2, 3), beta_x=1.0, beta_y=1.0)  # H is set below, not learned
    with pytest.raises(
        ValueError, match=r'ReSOM.set_lateral: the lateral matrix has shape \(6, 4\), expected \(4, 6\)'
    ):
        resom.set_lateral(np.zeros((6, 4)))
    with pytest.raises(ValueError, match='ReSOM.set_lateral: the lateral matrix holds NaN'):
        resom.set_lateral(np.full((4, 6), np.nan))
    with pytest.raises(ValueError, match='ReSOM.set_labels: expected 10 non-negative labels'):
        resom.set_labels(-np.ones(10))
    with pytest.raises(ValueError, match='do not pair up'):
        resom(torch.zeros(3, 3), torch.zeros(2, 2))
    with pytest.raises(ValueError, match=r'expected inputs of shape \(batch, 2\)'):
        resom(torch.zeros(3, 3), torch.zeros(3, 4))
    with pytest.raises(ValueError, match="unsupported combine 'max'"):
        ReSOM(3, 2, (2, 2), (2, 2), combine='max')
    with pytest.raises(ValueError, match='give labelled samples of x, of y or of both'):
        resom.label_units()
    resom.lateral.fill_(float('nan'))  # behind the module's back
    with pytest.raises(ConversionError, match=r"'resom' \(ReSOM, the traced model\): lateral holds NaN"):
        hls4ml.converters.convert_from_pytorch_model(resom, backend='Vitis', hls_config={'InputShape': [(3,), (2,)]})
    with pytest.raises(ConversionError, match='PyTorch fails on inputs'):  # the x map of 3 inputs gets 5
        hls4ml.converters.convert_from_pytorch_model(
            ReSOM(3, 2, (2, 2), (2, 2), beta_x=1.0, beta_y=1.0),
            backend='Vitis',
            hls_config={'InputShape': [(5,), (2,)]},
        )
