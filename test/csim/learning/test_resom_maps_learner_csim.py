"""On-chip Hebbian learning of a ReSOMMaps layer (three maps, three pair matrices) on the compiled
C-simulation: bit for bit the numpy twin (reference/resom_learn.py), within a derived bound of float64
Hebb and Oja written here from spec A.9 on the activities exp(-(d_n - d_min) / beta), in threads, and
apply() feeding predict(); bad input refused with the state untouched."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from minisom import MiniSom

import hls4ml
from hls4ml.learning import LearningWarning, ReSOMMapsLearner
from hls4ml.model.fixed import quantize
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.arrays import take
from hls4ml.model.reference.resom import afferent
from hls4ml.model.reference.resom_learn import hebbian_maps_update
from hls4ml.model.reference.resom_maps import layer_setup, pairs

pytestmark = pytest.mark.csim
GRIDS, WIDTHS, BETA = [(2, 2), (2, 3), (1, 3)], [3, 2, 4], 0.25


def _data(seed: int, count: int, size: int) -> np.ndarray:
    """Values on a 2^-8 grid in [0, 1): exact in the inputs' fixed<16,6>, so float and firmware see one x."""
    return np.floor(np.random.default_rng(seed).random((count, size)) * 256) / 256


def _build(tmp_path, name: str, backend: str = 'Vitis') -> tuple[hls4ml.api.ModelGraph, list[np.ndarray]]:
    xs = [_data(10 + m, 40, width) for m, width in enumerate(WIDTHS)]
    soms = []
    for m, ((rows, cols), width) in enumerate(zip(GRIDS, WIDTHS, strict=True)):
        som = MiniSom(rows, cols, width, random_seed=m)
        som.random_weights_init(xs[m])
        soms.append(som)
    laterals = {
        (i, j): np.full((rows_i * cols_i, GRIDS[j][0] * GRIDS[j][1]), 0.5)
        for i, j in pairs(3)
        for rows_i, cols_i in [GRIDS[i]]
    }
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'resom': {'Precision': {'lateral': 'ufixed<16,4>'}}}}
    model = hls4ml.converters.convert_from_resom(
        soms, laterals, output_dir=str(tmp_path / name), backend=backend, output='index', betas=BETA, hls_config=config
    )
    model.compile()
    return model, xs


@pytest.fixture(scope='module')
def maps_model(tmp_path_factory):
    return _build(tmp_path_factory.mktemp('maps'), 'learn')


def _twin(learner: ReSOMMapsLearner, xs: list[np.ndarray], rate: float, rule: str):
    """The numpy twin, sample by sample: each map's afferent activities, then every pair's step."""
    layer, model = learner.layer, learner.model
    types, tables = layer_setup(layer, 'ap')
    codebooks = [quantize(layer.weights[f'codebook_{m}'], layer.types['codebook']) for m in range(3)]
    laterals = {pair: quantize(values, learner.types.lateral) for pair, values in learner.laterals.items()}
    step, winners_all, activities_all = quantize(rate, learner.types.rate), [], []
    for index in range(len(xs[0])):
        afferents = [
            afferent(
                quantize(x[index : index + 1], model.graph.input_type(layer, m)),
                codebooks[m],
                layer.attributes['distance'],
                types.accum_x,
                tables[m],
            )
            for m, x in enumerate(xs)
        ]
        activities = [take(act, 0) for act, _ in afferents]
        winners = [int(bmu[0]) for _, bmu in afferents]
        laterals = hebbian_maps_update(laterals, activities, winners, step, rule)
        winners_all.append(winners)
        activities_all.append([act.value for act in activities])
    return {pair: values.value for pair, values in laterals.items()}, np.array(winners_all), activities_all


def _float_activities(x: np.ndarray, codebook: np.ndarray) -> np.ndarray:
    """Spec A.9's afferent activity in float64: exp(-(d_n - d_min) / beta), d the Euclidean distance."""
    distances = np.sqrt(((x - codebook) ** 2).sum(axis=1))
    return np.exp(-(distances - distances.min()) / BETA)


def _float_step(lateral: np.ndarray, act_x: np.ndarray, act_y: np.ndarray, rate: float, rule: str) -> np.ndarray:
    """One float64 step of spec A.9 (hebb, oja, bmu), clipped at 0 like the unsigned lateral type."""
    if rule == 'bmu':
        lateral = lateral.copy()
        lateral[np.argmax(act_x), np.argmax(act_y)] += rate
        return lateral
    step = np.outer(act_x, act_y)
    if rule == 'oja':
        step -= act_y[None, :] ** 2 * lateral
    return np.maximum(lateral + rate * step, 0.0)


@pytest.mark.parametrize('rule', ['hebb', 'oja', 'bmu'])
def test_hebbian_maps_step_equals_the_twin_and_the_float_definition(maps_model, rule: str) -> None:
    model, xs = maps_model
    learner = model.learner('resom')
    assert isinstance(learner, ReSOMMapsLearner)
    start, rate = learner.laterals, 0.05
    codebooks = [
        quantize(learner.layer.weights[f'codebook_{m}'], learner.layer.types['codebook']).value for m in range(3)
    ]
    twin, twin_winners, fixed_activities = _twin(learner, xs, rate, rule)
    winners = learner.hebbian_step(xs, rate, rule)
    np.testing.assert_array_equal(winners, twin_winners)
    for pair in pairs(3):
        np.testing.assert_array_equal(learner.laterals[pair], twin[pair])
    # float64 from the definitions. Per step an entry moves by rate * (a_u a_v - [oja] a_v^2 H); with e the
    # worst activity error (measured), |a_u a_v - a'_u a'_v| <= 2e + e^2 and for oja the second term adds
    # (2e + e^2) |H| while its a'_v^2 part contracts the carried error; plus one lateral LSB per rounding.
    lsb = 2.0**-learner.types.lateral.fractional
    exact, worst, largest = dict(start), 0.0, 0.0
    for index in range(len(xs[0])):
        floats = [_float_activities(x[index], codebook) for x, codebook in zip(xs, codebooks, strict=True)]
        worst = max(worst, *(np.abs(f - a).max() for f, a in zip(floats, fixed_activities[index], strict=True)))
        for i, j in pairs(3):
            exact[(i, j)] = _float_step(exact[(i, j)], floats[i], floats[j], rate, rule)
            largest = max(largest, np.abs(exact[(i, j)]).max())
    per_step = rate * (2 * worst + worst**2) * (1 + largest if rule == 'oja' else 1) + lsb
    for pair in pairs(3):
        assert not np.array_equal(learner.laterals[pair], start[pair])
        assert np.abs(learner.laterals[pair] - exact[pair]).max() <= len(xs[0]) * per_step


@pytest.mark.parametrize('backend', ['oneAPI', 'Catapult'])
def test_every_backend_learns_as_the_twin(tmp_path, backend: str) -> None:
    model, xs = _build(tmp_path, backend, backend)
    learner = model.learner('resom')
    twin, twin_winners, _ = _twin(learner, xs, 0.05, 'oja')
    np.testing.assert_array_equal(learner.hebbian_step(xs, 0.05, 'oja'), twin_winners)
    for pair in pairs(3):
        np.testing.assert_array_equal(learner.laterals[pair], twin[pair])


def test_learners_of_one_maps_layer_run_in_threads(maps_model) -> None:
    model, xs = maps_model
    learners = [model.learner('resom') for _ in range(3)]
    threads = [
        threading.Thread(target=learner.fit, args=(xs,), kwargs={'epochs': 2, 'rate': 0.05}) for learner in learners
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alone = model.learner('resom')
    alone.fit(xs, epochs=2, rate=0.05)
    for learner in learners:
        for pair in pairs(3):
            np.testing.assert_array_equal(learner.laterals[pair], alone.laterals[pair])


@pytest.mark.parametrize(
    ('call', 'message'),
    [
        (lambda learner, xs: learner.hebbian_step(xs[:2], 0.1), 'a list of 3 arrays'),
        (lambda learner, xs: learner.hebbian_step(xs[0], 0.1), 'a list of 3 arrays'),
        (
            lambda learner, xs: learner.hebbian_step([xs[0], xs[0], xs[2]], 0.1),
            r'xs\[1\] must have shape \(n_samples, 2\)',
        ),
        (lambda learner, xs: learner.hebbian_step([xs[0], xs[1][:5], xs[2]], 0.1), 'different sample counts'),
        (lambda learner, xs: learner.hebbian_step(xs, 0.1, rule='anti'), 'unknown Hebbian rule'),
        (lambda learner, xs: learner.hebbian_step(xs, 1.5), r'rate must lie in \(0, 1\]'),
        (lambda learner, xs: learner.fit(xs, epochs=0), 'epochs must be a positive integer'),
        (lambda learner, xs: learner.apply(labels=[1] * 4), 'no labels'),
    ],
)
def test_bad_maps_learning_input_is_refused(maps_model, call, message: str) -> None:
    model, xs = maps_model
    learner = model.learner('resom')
    before = learner.laterals
    with pytest.raises(ValueError, match=message):
        call(learner, xs)
    for pair in pairs(3):
        np.testing.assert_array_equal(learner.laterals[pair], before[pair])


def test_maps_apply_widens_the_lateral_input_and_predicts(tmp_path) -> None:
    model, xs = _build(tmp_path, 'apply')
    learner = model.learner('resom')
    with pytest.warns(LearningWarning, match='saturated'):
        learner.fit(xs, epochs=2, rate=0.5)
    before = model.graph.layers['resom'].types['lateral_accum']
    with pytest.warns(LearningWarning, match='lateral input type'):
        learner.apply()
    assert model.graph.layers['resom'].types['lateral_accum'] != before
    for (i, j), values in learner.laterals.items():
        np.testing.assert_array_equal(model.graph.layers['resom'].weights[f'lateral_{i}_{j}'], values)
    outputs, _ = interpret(model, xs)
    np.testing.assert_array_equal(model.predict(xs), outputs[0].value.reshape(len(xs[0]), -1))
