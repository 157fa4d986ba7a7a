"""The PyTorch SOM module (hls4ml.nn.torch_som) through the PyTorch frontend: the module's forward pass
equals hls4ml's predict() (bit for bit where the values are exact, within the table error for the
activities) inside larger models, BMUs agree on unrounded data, the Kohonen trainer is deterministic,
MiniSom weights load, and bad input is refused with errors that name the module."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip('torch')

import hls4ml  # noqa: E402
from hls4ml.converters.builder import ConversionError  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402
from hls4ml.nn.som_core import som_forward  # noqa: E402
from hls4ml.nn.torch_som import SOM  # noqa: E402

pytestmark = pytest.mark.csim
GRID = (3, 4)
ACTIVITY_TOLERANCE = 5e-3  # the exp table's step and LSB (docs/som.md)
HEADS = {  # head: SOM settings; every head reads the same Linear output
    'index': {'output': 'index'},
    'label': {'output': 'label'},
    'hexagonal': {'output': 'coordinates', 'topology': 'hexagonal'},
    'chebyshev': {'output': 'distances', 'distance': 'chebyshev'},
    'activities': {'output': 'activities', 'beta': 0.5, 'distance': 'manhattan'},
    'euclidean_activities': {'output': 'activities', 'beta': 2.0},
    'quantized': {'output': 'quantized', 'distance': 'chebyshev'},
}


class Heads(torch.nn.Module):
    """(2, 3) -> flatten -> Linear(6, 4) -> one SOM per head."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(6, 4)
        self.soms = torch.nn.ModuleDict({name: SOM(4, GRID, **settings) for name, settings in HEADS.items()})

    def forward(self, x):
        hidden = self.linear(torch.flatten(x, 1))
        return tuple(som(hidden) for som in self.soms.values())


def _grid_data(count: int, seed: int) -> np.ndarray:
    """Inputs on a 1/8 grid: every value of the models below is exact in float32 and fixed point."""
    return np.random.default_rng(seed).integers(-8, 9, (count, 2, 3)) / 8.0


@pytest.fixture(scope='module')
def heads() -> Heads:
    model = Heads().eval()
    rng = np.random.default_rng(1)
    with torch.no_grad():
        model.linear.weight.copy_(torch.tensor(rng.integers(-4, 5, (4, 6)) / 4.0))
        model.linear.bias.copy_(torch.tensor([0.25, -0.5, 0.0, 0.125]))
        features = model.linear(torch.tensor(_grid_data(300, 2), dtype=torch.float32).flatten(1)).numpy()
    for index, som in enumerate(model.soms.values()):
        som.fit_kohonen(features, epochs=2, seed=index)
        som.set_codebook(np.round(som.codebook_array() * 16) / 16)
        som.label_units(features, (features[:, 0] > 0).astype(int) + (features[:, 1] > 0))
    return model


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_som_heads_after_linear_equal_pytorch(heads, io_type, tmp_path) -> None:
    config = hls4ml.utils.config_from_pytorch_model(heads, (2, 3), granularity='name')
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        heads, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type=io_type, hls_config=config
    )
    x = _grid_data(100, 3)
    with torch.no_grad():
        expected = [output.numpy() for output in heads(torch.tensor(x, dtype=torch.float32))]
    predicted = hls_model.predict(x)
    interpreted, _ = interpret(hls_model, x)
    for name, ours, theirs, reference in zip(HEADS, predicted, expected, interpreted, strict=True):
        ours = np.asarray(ours).reshape(theirs.shape)
        np.testing.assert_array_equal(ours, reference.value.reshape(theirs.shape), err_msg=name)
        if name.endswith('activities'):
            np.testing.assert_allclose(ours, theirs, atol=ACTIVITY_TOLERANCE, err_msg=name)
        elif name == 'hexagonal':
            np.testing.assert_allclose(ours, theirs, atol=2.0**-12, err_msg=name)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_forward_equals_the_numpy_reference(heads) -> None:
    x = torch.tensor(_grid_data(50, 4), dtype=torch.float32)
    with torch.no_grad():
        features = heads.linear(x.flatten(1)).numpy()
        outputs = heads(x)
    for som, output in zip(heads.soms.values(), outputs, strict=True):
        reference = som_forward(features, som.codebook_array(), som.labels.numpy(), som.settings)
        np.testing.assert_allclose(output.numpy(), reference, atol=1e-5)


def test_lone_som_agrees_on_unrounded_data(tmp_path) -> None:
    """The SOM as the whole model, trained and converted as is: the BMU agreement (spec A.6)."""
    data = np.random.default_rng(6).uniform(0, 1, (400, 8))
    som = SOM(8, (4, 5)).fit_kohonen(data, epochs=3, seed=1)
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        som, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config={'InputShape': (8,)}
    )
    predicted = np.asarray(hls_model.predict(data)).reshape(-1)
    with torch.no_grad():
        expected = som(torch.tensor(data, dtype=torch.float32)).numpy().reshape(-1)
    assert float((predicted == expected).mean()) >= 0.98


@pytest.mark.parametrize('mode', ['online', 'batch'])
def test_trainer_is_deterministic_and_learns(mode) -> None:
    data = torch.tensor(np.random.default_rng(8).uniform(-1, 1, (200, 3)))
    codebooks = [SOM(3, GRID).fit_kohonen(data, 4, mode=mode, seed=seed).codebook_array() for seed in (1, 1, 2)]
    np.testing.assert_array_equal(codebooks[0], codebooks[1])
    assert not np.array_equal(codebooks[0], codebooks[2])
    samples = data.numpy()
    untrained = SOM(3, GRID).codebook_array()
    error = [np.sqrt(((samples[:, None] - book[None]) ** 2).sum(2)).min(1).mean() for book in (untrained, codebooks[0])]
    assert error[1] < error[0]


def test_minisom_weights_load() -> None:
    minisom = pytest.importorskip('minisom')
    data = np.random.default_rng(3).uniform(0, 1, (200, 3))
    trained = minisom.MiniSom(3, 4, 3, sigma=1.0, topology='hexagonal', random_seed=2)
    trained.train(data, 200)
    module = SOM.from_minisom(trained, output='coordinates')
    assert module.settings.topology == 'hexagonal'
    with torch.no_grad():
        coordinates = module(torch.tensor(data)).numpy()
    xx, yy = trained.get_euclidean_coordinates()
    expected = np.array([(xx[trained.winner(x)], yy[trained.winner(x)]) for x in data])
    assert float(np.all(np.abs(coordinates - expected) < 1e-6, axis=1).mean()) >= 0.99  # float32 vs float64


def test_bad_input_is_refused_with_clear_errors() -> None:
    som = SOM(3, GRID)
    with pytest.raises(ValueError, match=r'SOM.set_codebook: the codebook has shape \(12, 2\), expected \(12, 3\)'):
        som.set_codebook(np.zeros((12, 2)))
    with pytest.raises(ValueError, match=r'SOM.fit_kohonen: expected samples of shape \(n, 3\)'):
        som.fit_kohonen(np.zeros((10, 4)))
    with pytest.raises(ValueError, match='NaN or infinite'):
        som.fit_kohonen(np.full((10, 3), np.nan))
    with pytest.raises(ValueError, match=r'expected inputs of shape \(batch, 3\)'):
        som(torch.zeros(2, 4))
    with pytest.raises(ValueError, match="unsupported output 'winner'"):
        SOM(3, GRID, output='winner')
    model = torch.nn.Sequential(torch.nn.Linear(5, 3), SOM(3, GRID))
    model[1].codebook.fill_(float('nan'))  # behind the module's back
    with pytest.raises(ConversionError, match=r"'1' \(SOM, module 1\): the codebook holds NaN"):
        hls4ml.converters.convert_from_pytorch_model(model, backend='Vitis', hls_config={'InputShape': (5,)})
    with pytest.raises(ConversionError, match='PyTorch fails on inputs'):  # the SOM of 3 inputs gets 5
        hls4ml.converters.convert_from_pytorch_model(
            torch.nn.Sequential(torch.nn.Identity(), SOM(3, GRID)), backend='Vitis', hls_config={'InputShape': (5,)}
        )
