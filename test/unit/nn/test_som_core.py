"""The framework-free SOM parts (hls4ml/nn/som_core.py): the Kohonen trainer against MiniSom's own
training, the float forward pass against the IR reference, unit labelling and the settings checks."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.converters.som import minisom_unit_labels
from hls4ml.nn.som_core import make_settings, minisom_state, som_forward, train_kohonen, unit_labels

minisom = pytest.importorskip('minisom')


@pytest.mark.parametrize('topology', ['rectangular', 'hexagonal'])
@pytest.mark.parametrize('distance', ['euclidean', 'manhattan'])
def test_one_unshuffled_epoch_is_minisom_training(topology, distance) -> None:
    """Same start, same order, same schedule (asymptotic decay, Gaussian on the unit coordinates)."""
    data = np.random.default_rng(1).uniform(0, 1, (120, 3))
    trained = minisom.MiniSom(4, 5, 3, sigma=1.5, learning_rate=0.4, topology=topology, random_seed=4)
    trained._activation_distance = getattr(trained, f'_{distance}_distance')
    start = minisom_state(trained)
    trained.train(data, len(data))
    settings = make_settings(start['grid'], start['distance'], 'index', topology, 1.0)
    ours = train_kohonen(data, start['codebook'], settings, 1, sigma=1.5, learning_rate=0.4, shuffle=False)
    np.testing.assert_allclose(ours, trained.get_weights().reshape(20, 3), atol=1e-12)


def test_batch_training_is_the_neighbourhood_mean() -> None:
    """With a tiny sigma every unit becomes the mean of the samples it wins (k-means' step)."""
    data = np.random.default_rng(2).uniform(-1, 1, (60, 2))
    settings = make_settings((2, 2), 'euclidean', 'index', 'rectangular', 1.0)
    start = data[:4].copy()
    ours = train_kohonen(data, start, settings, 1, sigma=0.05, mode='batch')
    best = ((data[:, None] - start[None]) ** 2).sum(2).argmin(1)
    for unit in range(4):
        np.testing.assert_allclose(ours[unit], data[best == unit].mean(axis=0), atol=1e-9)


@pytest.mark.parametrize('output', ['index', 'coordinates', 'one_hot', 'distances', 'quantized'])
def test_forward_matches_minisom(output) -> None:
    data = np.random.default_rng(3).uniform(0, 1, (100, 3))
    trained = minisom.MiniSom(3, 4, 3, topology='hexagonal', random_seed=1)
    trained.train(data, 100)
    state = minisom_state(trained)
    settings = make_settings(state['grid'], state['distance'], output, state['topology'], 1.0)
    result = som_forward(data, state['codebook'], None, settings)
    winners = np.array([np.ravel_multi_index(trained.winner(x), (3, 4)) for x in data])
    xx, yy = trained.get_euclidean_coordinates()
    expected = {
        'index': winners[:, None],
        'coordinates': np.stack([xx.reshape(-1)[winners], yy.reshape(-1)[winners]], axis=1),
        'one_hot': np.eye(12)[winners],
        'distances': np.array([trained.activate(x).reshape(-1) ** 2 for x in data]),
        'quantized': trained.quantization(data),
    }[output]
    np.testing.assert_allclose(result, expected, atol=1e-12)


def test_unit_labels_follow_minisom_unit_labels() -> None:
    data = np.random.default_rng(4).uniform(0, 1, (150, 2))
    targets = (data[:, 0] > 0.5).astype(int) + 2 * (data[:, 1] > 0.7)
    trained = minisom.MiniSom(4, 4, 2, random_seed=5)
    trained.train(data, 300)
    state = minisom_state(trained)
    settings = make_settings(state['grid'], state['distance'], 'label', 'rectangular', 1.0)
    np.testing.assert_array_equal(
        unit_labels(state['codebook'], settings, data, targets), minisom_unit_labels(trained, data, targets)
    )


def test_activity_labelling_is_khacef_rule() -> None:
    """label_n = argmax_c of the class-mean of exp(-(d_n - d_bmu) / beta), d Euclidean (spec A.5)."""
    settings = make_settings((1, 3), 'euclidean', 'label', 'rectangular', 1.0)
    codebook = np.array([[0.0], [1.0], [3.0]])
    data, targets = np.array([[0.0], [0.2], [3.0]]), np.array([0, 0, 1])
    assert unit_labels(codebook, settings, data, targets, 'activities').tolist() == [0, 0, 1]
    rng = np.random.default_rng(6)
    codebook, data, targets = rng.uniform(0, 1, (6, 2)), rng.uniform(0, 1, (40, 2)), rng.integers(0, 3, 40)
    settings = make_settings((2, 3), 'euclidean', 'label', 'rectangular', 0.3)
    expected = []
    for unit in range(6):
        means = []
        for label in range(3):
            gaps = [
                np.linalg.norm(x - codebook[unit]) - np.linalg.norm(x - codebook, axis=1).min()
                for x in data[targets == label]
            ]
            means.append(np.mean(np.exp(-np.array(gaps) / 0.3)))
        expected.append(int(np.argmax(means)))
    assert unit_labels(codebook, settings, data, targets, 'activities').tolist() == expected
    with pytest.raises(ValueError, match="unknown method 'vote'"):
        unit_labels(codebook, settings, data, targets, 'vote')


@pytest.mark.parametrize(
    'arguments, message',
    [
        ({'grid': (0, 3)}, 'at least one row'),
        ({'grid': 'big'}, r'grid must be \(rows, cols\)'),
        ({'distance': 'hamming'}, "unsupported distance 'hamming'"),
        ({'topology': 'toroidal'}, "unsupported topology 'toroidal'"),
        ({'beta': -1.0}, 'beta must be a finite positive number'),
    ],
)
def test_settings_are_checked(arguments, message) -> None:
    settings = {'grid': (2, 3), 'distance': 'euclidean', 'output': 'index', 'topology': 'rectangular', 'beta': 1.0}
    with pytest.raises(ValueError, match=message):
        make_settings(**{**settings, **arguments}, where='SOM x')


def test_training_refuses_bad_arguments() -> None:
    settings = make_settings((2, 2), 'euclidean', 'index', 'rectangular', 1.0)
    data = np.zeros((5, 2))
    with pytest.raises(ValueError, match="unknown mode 'stochastic'"):
        train_kohonen(data, None, settings, mode='stochastic')
    with pytest.raises(ValueError, match='epochs'):
        train_kohonen(data, None, settings, epochs=0)
    with pytest.raises(ValueError, match=r'expected samples of shape \(n, 3\)'):
        train_kohonen(data, np.zeros((4, 3)), settings)
