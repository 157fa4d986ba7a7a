"""On-chip Kohonen learning of the maps of a ReSOM and a ReSOMMaps layer (the SOM's Kohonen top per map):
bit for bit the numpy twin (reference/resom_learn.py), within a derived bound of float64 Kohonen written
here from spec A.8, refused Hebbian steps on stale codebooks, and a three-map model trained end to end on
the firmware (Kohonen, apply, compile, Hebbian, apply) whose predict() equals the reference interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from minisom import MiniSom

import hls4ml
from hls4ml.learning import LearningWarning
from hls4ml.model.fixed import quantize
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.resom_learn import kohonen_update, neighbourhood_table

pytestmark = pytest.mark.csim


def _data(seed: int, count: int, size: int) -> np.ndarray:
    """Values on a 2^-8 grid in [0, 1): exact in the inputs' fixed<16,6>."""
    return np.floor(np.random.default_rng(seed).random((count, size)) * 256) / 256


def _soms(xs: list[np.ndarray], grids: list[tuple[int, int]]) -> list[MiniSom]:
    soms = []
    for m, (x, (rows, cols)) in enumerate(zip(xs, grids, strict=True)):
        som = MiniSom(rows, cols, x.shape[1], random_seed=m)
        som.random_weights_init(x)
        soms.append(som)
    return soms


@pytest.fixture(scope='module')
def resom_model(tmp_path_factory):
    """One compiled two-map ReSOM for the tests that do not apply(): each takes its own learner."""
    tmp_path = tmp_path_factory.mktemp('map_kohonen')
    xs, grids = [_data(20, 50, 4), _data(21, 50, 3)], [(2, 3), (2, 2)]
    som_x, som_y = _soms(xs, grids)
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'resom': {'Precision': {'lateral': 'ufixed<16,4>'}}}}
    model = hls4ml.converters.convert_from_resom(
        som_x, som_y, np.full((6, 4), 0.5), output_dir=str(tmp_path / 'resom'), backend='Vitis',
        output='index', beta_x=0.25, beta_y=0.25, hls_config=config,
    )  # fmt: skip
    model.compile()
    return model, xs, grids


def _float_kohonen(start: np.ndarray, samples: np.ndarray, rates, sigmas, grid: tuple[int, int]) -> np.ndarray:
    """Spec A.8 in float64: BMU the first smallest squared Euclidean distance, W_n += rate h_n (x - W_n),
    h_n = exp(-|p_n - p_bmu|^2 / (2 sigma^2))."""
    rows, cols = np.divmod(np.arange(grid[0] * grid[1]), grid[1])
    weights = np.array(start, dtype=np.float64)
    for x, rate, sigma in zip(samples, rates, sigmas, strict=True):
        distances = ((x - weights) ** 2).sum(axis=1)
        bmu = int(np.flatnonzero(distances == distances.min())[0])
        gap = (rows - rows[bmu]) ** 2 + (cols - cols[bmu]) ** 2
        weights += (rate * np.exp(-gap / (2.0 * sigma**2)))[:, None] * (x - weights)
    return weights


@pytest.mark.parametrize('part', [0, 1])
def test_resom_map_kohonen_equals_the_twin_and_the_float_definition(resom_model, part: int) -> None:
    model, xs, grids = resom_model
    learner = model.learner('resom')
    types, before = learner.map_types(part), learner.codebooks
    start = before[part]
    rates, sigmas = np.linspace(0.5, 0.1, 50), np.linspace(1.5, 0.5, 50)
    bmus = learner.kohonen_step(part, xs[part], rates, sigmas)
    codebook, twin_bmus = quantize(start, types.codebook), []
    for x, rate, sigma in zip(xs[part], rates, sigmas, strict=True):
        tables = tuple(neighbourhood_table(size, sigma, types.neighbourhood) for size in grids[part])
        codebook, bmu = kohonen_update(
            quantize(x, types.data), codebook, tables, quantize(rate, types.rate), grids[part],
            'squared_euclidean', (types.accum, types.factor),
        )  # fmt: skip
        twin_bmus.append(bmu)
    np.testing.assert_array_equal(learner.codebooks[part], codebook.value)
    assert list(bmus) == twin_bmus
    np.testing.assert_array_equal(learner.codebooks[1 - part], before[1 - part])  # the other map did not move
    # per step: the factor is off by at most 2 LSB of its 16 fraction bits (rate, two table entries and
    # their product, each rounded to nearest) times |x - w| <= 1, plus half an LSB of the codebook write
    per_step = 2 * 2.0**-16 + 2.0 ** -(types.codebook.fractional + 1)
    expected = _float_kohonen(start, xs[part], rates, sigmas, grids[part])
    assert np.abs(learner.codebooks[part] - expected).max() <= len(rates) * per_step


def test_map_learning_input_is_checked_and_stale_hebbian_refused(resom_model) -> None:
    model, xs, _ = resom_model
    learner = model.learner('resom')
    with pytest.raises(ValueError, match=r'map must be an integer in 0 \.\. 1, got 2'):
        learner.kohonen_step(2, xs[0], 0.5, 1.0)
    with pytest.raises(ValueError, match=r'x \(map 1\) must have shape \(n_samples, 3\)'):
        learner.kohonen_step(1, xs[0], 0.5, 1.0)
    with pytest.raises(ValueError, match='sigma must be positive'):
        learner.kohonen_fit(0, xs[0], sigma=-1.0)
    learner.hebbian_step(xs[0], xs[1], 0.1)  # fine before any map learned
    learner.kohonen_fit(0, xs[0], epochs=1)
    with pytest.raises(ValueError, match=r'map\(s\) \[0\] learned since; call apply\(\), compile\(\)'):
        learner.hebbian_step(xs[0], xs[1], 0.1)


def test_three_maps_train_end_to_end_on_the_firmware(tmp_path) -> None:
    grids = [(2, 2), (2, 3), (1, 3)]
    xs = [_data(30 + m, 40, width) for m, width in enumerate((3, 2, 4))]
    soms = _soms(xs, grids)
    laterals = {(0, 1): np.zeros((4, 6)), (0, 2): np.zeros((4, 3)), (1, 2): np.zeros((6, 3))}
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'resom': {'Precision': {'lateral': 'ufixed<16,6>'}}}}
    model = hls4ml.converters.convert_from_resom(
        soms, laterals, output_dir=str(tmp_path / 'maps'), backend='Vitis', output='index', betas=0.25,
        hls_config=config,
    )  # fmt: skip
    model.compile()
    learner = model.learner('resom')
    for part, x in enumerate(xs):
        learner.kohonen_fit(part, x, epochs=3, rate=0.5, shuffle=True, seed=part)
    learned = learner.codebooks
    learner.apply()
    for part in range(3):
        np.testing.assert_array_equal(model.graph.layers['resom'].weights[f'codebook_{part}'], learned[part])
    model.compile()
    hebbian = model.learner('resom')
    winners = hebbian.fit(xs, epochs=2, rate=0.1)
    for part in range(3):  # the Hebbian step saw the learned codebooks: its winners are their BMUs
        distances = ((xs[part][:, None, :] - learned[part][None]) ** 2).sum(axis=2)
        np.testing.assert_array_equal(winners[:40, part], np.argmin(distances, axis=1))
    with pytest.warns(LearningWarning, match='lateral input type'):  # the zero matrices got a narrow one
        hebbian.apply()
    outputs, _ = interpret(model, xs)
    np.testing.assert_array_equal(model.predict(xs), outputs[0].value.reshape(40, -1))
