"""On-chip learning through the flow (hls4ml/learning): the learners run the learning top functions of
the compiled C-simulation and must equal, bit for bit, the numpy twin (reference/resom_learn.py) in the
learning types, agree with float64 Kohonen and Hebb written here from spec A.8 / A.9 within what the
precision explains, and train a MiniSom-initialised map as MiniSom's float training does."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from minisom import MiniSom

import hls4ml
from hls4ml.learning import LearningWarning, schedules
from hls4ml.model.fixed import quantize
from hls4ml.model.reference.arrays import take
from hls4ml.model.reference.resom import afferent, layer_setup
from hls4ml.model.reference.resom_learn import hebbian_update, hebbian_update_bmu, kohonen_update, neighbourhood_table

pytestmark = pytest.mark.csim
GRID = (3, 4)


def _data(seed: int, count: int, size: int) -> np.ndarray:
    """Values on a 2^-8 grid in [0, 1): exact in the inputs' fixed<16,6>, so float and firmware see one x."""
    return np.floor(np.random.default_rng(seed).random((count, size)) * 256) / 256


def _som_model(tmp_path, distance: str = 'euclidean', backend: str = 'Vitis', output: str = 'index'):
    data = _data(1, 100, 4)
    som = MiniSom(*GRID, 4, sigma=1.0, learning_rate=0.5, activation_distance=distance, random_seed=3)
    som.random_weights_init(data)
    model = hls4ml.converters.convert_from_minisom(
        som,
        output_dir=str(tmp_path / f'som_{backend}'),
        backend=backend,
        output=output,
        labels=np.arange(12) % 2 if output == 'label' else None,
    )
    model.compile()
    return model, som, data


def _twin_kohonen(learner, start: np.ndarray, samples: np.ndarray, rates, sigmas):
    """The numpy twin, step by step, in the learner's types."""
    types, distance = learner.types, learner.layer.attributes['distance']
    codebook, bmus = quantize(start, types.codebook), []
    for x, rate, sigma in zip(samples, rates, sigmas, strict=True):
        tables = tuple(neighbourhood_table(size, sigma, types.neighbourhood) for size in GRID)
        step = quantize(rate, types.rate)
        codebook, bmu = kohonen_update(
            quantize(x, types.data), codebook, tables, step, GRID, distance, (types.accum, types.factor)
        )
        bmus.append(bmu)
    return codebook.value, bmus


def _float_kohonen(start: np.ndarray, samples: np.ndarray, rates, sigmas, distance: str):
    """Kohonen (spec A.8) in float64: BMU = first smallest distance, h = exp(-|p_n - p_bmu|^2 / (2 sigma^2)),
    W_n += rate h_n (x - W_n)."""
    rows, cols = np.divmod(np.arange(GRID[0] * GRID[1]), GRID[1])
    weights, bmus = np.array(start, dtype=np.float64), []
    for x, rate, sigma in zip(samples, rates, sigmas, strict=True):
        gaps = x - weights
        distances = (gaps**2).sum(axis=1) if distance == 'squared_euclidean' else np.abs(gaps).sum(axis=1)
        bmu = int(np.flatnonzero(distances == distances.min())[0])
        grid_gap = (rows - rows[bmu]) ** 2 + (cols - cols[bmu]) ** 2
        weights += (rate * np.exp(-grid_gap / (2.0 * sigma**2)))[:, None] * (x - weights)
        bmus.append(bmu)
    return weights, bmus


@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_kohonen_fit_equals_the_numpy_twin(tmp_path, backend: str) -> None:
    model, _, data = _som_model(tmp_path, backend=backend)
    learner = model.learner('som')
    start = learner.codebook
    bmus = learner.fit(data[:50], epochs=2, rate=0.5, sigma=1.5, shuffle=True, seed=4)
    rng = np.random.default_rng(4)
    order = np.concatenate([rng.permutation(50) for _ in range(2)])  # one seeded permutation per epoch
    steps = 100
    rates, sigmas = schedules.asymptotic_decay(0.5, steps), schedules.asymptotic_decay(1.5, steps)
    expected, expected_bmus = _twin_kohonen(learner, start, data[order], rates, sigmas)
    assert list(bmus) == expected_bmus
    np.testing.assert_array_equal(learner.codebook, expected)


@pytest.mark.parametrize('distance', ['euclidean', 'manhattan'])
def test_kohonen_agrees_with_float64_definition(tmp_path, distance: str) -> None:
    model, _, data = _som_model(tmp_path, distance)
    learner = model.learner('som')
    start, steps = learner.codebook, 200
    rates = schedules.exponential_decay(0.6, 0.05, 2).repeat(100)
    sigmas = schedules.exponential_decay(2.0, 0.5, 2).repeat(100)
    bmus = learner.kohonen_step(np.concatenate([data, data]), rates, sigmas)
    expected, expected_bmus = _float_kohonen(
        start, np.concatenate([data, data]), rates, sigmas, learner.layer.attributes['distance']
    )
    assert list(bmus) == expected_bmus
    # per step: the factor is off by at most 2 LSB of its 16 fraction bits (rate, two table entries and
    # the product each rounded to nearest), times |x - w| <= 1, plus half an LSB of the codebook write
    per_step = 2 * 2.0**-16 + 2.0 ** -(learner.types.codebook.fractional + 1)
    error = np.abs(learner.codebook - expected).max()
    assert error <= steps * per_step, error


def test_kohonen_from_a_minisom_codebook_converges_like_minisom(tmp_path) -> None:
    model, som, data = _som_model(tmp_path)
    learner = model.learner('som')
    som.train(data, 300)  # MiniSom float64: samples in order, asymptotic decay of rate 0.5 and sigma 1.0 over 300 steps
    learner.fit(data, epochs=3, rate=0.5, sigma=1.0)
    trained = MiniSom(*GRID, 4, random_seed=3)
    trained._weights = learner.codebook.reshape(*GRID, 4)
    ours, theirs = trained.quantization_error(data), som.quantization_error(data)
    assert abs(ours - theirs) <= 0.01 * theirs, (ours, theirs)  # measured: within 0.1 %
    agree = np.mean([trained.winner(x) == som.winner(x) for x in data])
    assert agree >= 0.95, agree


def test_apply_puts_the_codebook_into_predict(tmp_path) -> None:
    model, _, data = _som_model(tmp_path, output='label')
    learner = model.learner('som')
    learner.fit(data, epochs=1, rate=0.9, sigma=2.0)
    with pytest.warns(LearningWarning, match='labels'):
        learner.apply(labels=None)
    np.testing.assert_array_equal(model.graph.layers['som'].weights['codebook'], learner.codebook)
    learner.apply(labels=np.arange(12) % 3)
    bmus = np.argmin(((data[:, None, :] - learner.codebook[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(model.predict(data).ravel(), bmus % 3)


def test_learners_of_one_model_run_in_threads(tmp_path) -> None:
    model, _, data = _som_model(tmp_path)
    learners = [model.learner('som') for _ in range(4)]
    threads = [threading.Thread(target=learner.fit, args=(data,), kwargs={'epochs': 5}) for learner in learners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alone = model.learner('som')
    alone.fit(data, epochs=5)
    for learner in learners:
        np.testing.assert_array_equal(learner.codebook, alone.codebook)


def _resom_model(tmp_path):
    x, y = _data(5, 60, 4), _data(6, 60, 3)
    som_x, som_y = MiniSom(2, 3, 4, random_seed=1), MiniSom(2, 2, 3, random_seed=2)
    som_x.random_weights_init(x)
    som_y.random_weights_init(y)
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'resom': {'Precision': {'lateral': 'ufixed<16,4>'}}}}
    model = hls4ml.converters.convert_from_resom(
        som_x,
        som_y,
        np.full((6, 4), 0.5),
        output_dir=str(tmp_path / 'resom'),
        backend='Vitis',
        output='index',
        beta_x=0.25,
        beta_y=0.25,
        hls_config=config,
    )
    model.compile()
    return model, x, y


@pytest.mark.parametrize('rule', ['hebb', 'oja', 'bmu'])
def test_hebbian_step_equals_the_twin_and_the_float_definition(tmp_path, rule: str) -> None:
    model, x, y = _resom_model(tmp_path)
    learner = model.learner('resom')
    layer, start, rate = learner.layer, learner.lateral, 0.05
    bmus = learner.hebbian_step(x, y, rate, rule)
    types, tables = layer_setup(layer, 'ap')
    codebooks = [quantize(layer.weights[f'codebook_{side}'], layer.types[f'codebook_{side}']) for side in 'xy']
    twin, exact, worst_activity = quantize(start, learner.types.lateral), start.copy(), 0.0
    for index in range(len(x)):
        samples = [
            quantize(values[index : index + 1], model.graph.input_type(layer, side))
            for side, values in enumerate((x, y))
        ]
        (act_x, bmu_x), (act_y, bmu_y) = (
            afferent(sample, codebook, 'squared_euclidean', accum, table)
            for sample, codebook, accum, table in zip(
                samples, codebooks, (types.accum_x, types.accum_y), tables, strict=True
            )
        )
        assert (int(bmu_x[0]), int(bmu_y[0])) == tuple(bmus[index])
        step = quantize(rate, learner.types.rate)
        if rule == 'bmu':
            twin = hebbian_update_bmu(twin, int(bmu_x[0]), int(bmu_y[0]), step)
        else:
            twin = hebbian_update(twin, take(act_x, 0), take(act_y, 0), step, rule)
        float_x, float_y = (
            _float_activities(sample.value[0], codebook.value)
            for sample, codebook in zip(samples, codebooks, strict=True)
        )
        worst_activity = max(
            worst_activity, np.abs(float_x - act_x.value[0]).max(), np.abs(float_y - act_y.value[0]).max()
        )
        exact = _float_hebb(exact, float_x, float_y, rate, rule)
    np.testing.assert_array_equal(learner.lateral, twin.value)
    # float64 Hebb from spec A.9 on exp(-(d_n - d_bmu) / beta): each step moves an entry by at most
    # rate (2 e + e^2) (e: the worst activity error, measured above) plus one lateral LSB
    lsb = 2.0**-learner.types.lateral.fractional
    bound = len(x) * (rate * (2 * worst_activity + worst_activity**2) * (2 if rule == 'oja' else 1) + lsb)
    assert np.abs(learner.lateral - exact).max() <= bound


def _float_activities(x: np.ndarray, codebook: np.ndarray, beta: float = 0.25) -> np.ndarray:
    distances = np.sqrt(((x - codebook) ** 2).sum(axis=1))
    return np.exp(-(distances - distances.min()) / beta)


def _float_hebb(lateral: np.ndarray, act_x: np.ndarray, act_y: np.ndarray, rate: float, rule: str) -> np.ndarray:
    if rule == 'bmu':
        lateral = lateral.copy()
        lateral[np.argmax(act_x), np.argmax(act_y)] += rate
        return lateral
    step = np.outer(act_x, act_y)
    if rule == 'oja':
        step -= act_y[None, :] ** 2 * lateral
    return np.maximum(lateral + rate * step, 0.0)


def test_hebbian_apply_widens_the_lateral_input_and_predicts(tmp_path) -> None:
    model, x, y = _resom_model(tmp_path)
    learner = model.learner('resom')
    learner.fit(x, y, epochs=3, rate=0.2, rule='hebb')
    before = model.graph.layers['resom'].types['lateral_accum']
    with pytest.warns(LearningWarning, match='lateral input type'):
        learner.apply()
    assert model.graph.layers['resom'].types['lateral_accum'] != before
    np.testing.assert_array_equal(model.graph.layers['resom'].weights['lateral'], learner.lateral)
    from hls4ml.model.interpreter import interpret

    outputs, _ = interpret(model, [x, y])
    np.testing.assert_array_equal(model.predict([x, y]), outputs[0].value.reshape(len(x), -1))


@pytest.mark.parametrize(
    ('call', 'message'),
    [
        (lambda learner, x: learner.kohonen_step(x[:, :3], 0.5, 1.0), r'shape \(n_samples, 4\)'),
        (lambda learner, x: learner.kohonen_step(np.full(4, np.nan), 0.5, 1.0), 'NaN'),
        (lambda learner, x: learner.kohonen_step(x, 0.0, 1.0), 'rate must be positive'),
        (lambda learner, x: learner.kohonen_step(x, 1.5, 1.0), r'rate must lie in \(0, 1\]'),
        (lambda learner, x: learner.kohonen_step(x, [0.5, 0.4], 1.0), 'rate must be one value or 100'),
        (lambda learner, x: learner.kohonen_step(x, 0.5, -1.0), 'sigma must be positive'),
        (lambda learner, x: learner.fit(x, epochs=0), 'epochs must be a positive integer'),
        (lambda learner, x: learner.fit(x, schedule='linear'), 'unknown schedule'),
        (lambda learner, x: learner.fit(x, schedule='exponential'), 'needs the final value'),
        (lambda learner, x: learner.apply(labels=[0.5] * 12), 'non-negative integers'),
        (lambda learner, x: learner.apply(labels=[1] * 11), 'got 11 labels; the layer has 12 labels'),
    ],
)
def test_bad_learning_input_is_refused(tmp_path, call, message: str) -> None:
    model, _, data = _som_model(tmp_path, output='label')
    learner = model.learner('som')
    before = learner.codebook
    with pytest.raises(ValueError, match=message):
        call(learner, data)
    np.testing.assert_array_equal(learner.codebook, before)


def test_bad_hebbian_input_is_refused(tmp_path) -> None:
    model, x, y = _resom_model(tmp_path)
    learner = model.learner('resom')
    with pytest.raises(ValueError, match='unknown Hebbian rule'):
        learner.hebbian_step(x, y, 0.1, rule='anti')
    with pytest.raises(ValueError, match='x has 60 samples, y 59'):
        learner.hebbian_step(x, y[:59], 0.1)
    with pytest.raises(ValueError, match=r'y must have shape \(n_samples, 3\)'):
        learner.hebbian_step(x, x, 0.1)
    with pytest.warns(LearningWarning, match='saturated'):
        learner.fit(x, y, epochs=40, rate=1.0)


def test_apply_widens_a_distance_type_fitted_to_the_converted_codebook(tmp_path) -> None:
    from hls4ml.api.model_graph import ModelGraph
    from hls4ml.converters.som import som_graph

    # a codebook mid-range of the inputs: its distances stay below 1; learning towards the edge doubles them
    graph, _ = som_graph(np.full((6, 2), 0.5) + np.arange(6)[:, None] / 64, (2, 3), 'squared_euclidean', 'index')
    config = {
        'OutputDir': str(tmp_path / 'narrow'),
        'ProjectName': 'myproject',
        'Backend': 'Vitis',
        'IOType': 'io_parallel',
        'ClockPeriod': 5,
        'HLSConfig': {
            'Model': {'Precision': 'ufixed<8,0>'},
            'LayerName': {'som': {'Precision': {'codebook': 'ufixed<12,2>'}}},
        },
    }
    model = ModelGraph(config, graph)
    model.compile()
    learner = model.learner('som')
    far = np.full((20, 2), 0.99609375)  # the largest ufixed<8,0>: the codebook moves far from where it was converted
    learner.fit(far, epochs=2, rate=0.9, sigma=2.0)
    before = model.graph.layers['som'].types['accum']
    with pytest.warns(LearningWarning, match='distance type'):
        learner.apply()
    assert model.graph.layers['som'].types['accum'] == learner.types.accum != before
    probe = _data(9, 40, 2)
    expected = np.argmin(((probe[:, None, :] - learner.codebook[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(model.predict(probe).ravel(), expected)
