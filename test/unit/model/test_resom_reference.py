"""The ReSOM reference (hls4ml/model/reference/resom.py): the spec's C.2 checks, exact division,
properties of the activities and winners, the inferred exact types, the learning references, and
the converter's checks of bad input."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from hls4ml.converters.resom import divergent_labels, hebbian_lateral, resom_graph
from hls4ml.converters.som import som_graph
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.arrays import exact_divide
from hls4ml.model.reference.resom import ResomTypes, afferent, associate, layer_setup, remainder_type
from hls4ml.model.reference.resom_learn import hebbian_update, hebbian_update_bmu, kohonen_update, neighbourhood_table
from hls4ml.model.types import FixedPrecisionType, parse_precision
from hls4ml.utils.config import config_from_graph, create_config

ACTIVITY = FixedPrecisionType(24, 1, False)
LATERAL_ACCUM = FixedPrecisionType(48, 6, False)
TYPES = ResomTypes(ACTIVITY, ACTIVITY, ACTIVITY, LATERAL_ACCUM, remainder_type(ACTIVITY, LATERAL_ACCUM), ACTIVITY)
H = np.array([[0.9, 0.1], [0.2, 0.7], [0.1, 0.9]])  # the spec's C.2 example
ACT_X, ACT_Y = np.array([1.0, 0.8, 0.3]), np.array([0.5, 1.0])


def _associate(source: str, combination: str, iterations: int = 1):
    lateral = quantize(H, 'ufixed<24,1,RND>')
    act_x, act_y = quantize(ACT_X[None], ACTIVITY), quantize(ACT_Y[None], ACTIVITY)
    attributes = {'source': source, 'combine': combination, 'iterations': iterations}
    return associate(act_x, act_y, (np.array([0]), np.array([1])), lateral, attributes, TYPES)


@pytest.mark.parametrize(
    ('source', 'combination', 'expected_x', 'expected_y'),
    [
        ('all', 'product', (0.5789, 0.6737, 0.3000), (0.5000, 0.8532)),
        ('all', 'sum', (0.7895, 0.8211, 0.6500), (0.7500, 0.9266)),
        ('bmu', 'product', (0.1111, 0.6222, 0.3000), (0.5000, 0.1111)),
    ],
)
def test_spec_c2_convergence(source, combination, expected_x, expected_y) -> None:
    act_x, act_y, winner_x, winner_y = _associate(source, combination)
    np.testing.assert_allclose(act_x.value[0], expected_x, atol=1e-4)
    np.testing.assert_allclose(act_y.value[0], expected_y, atol=1e-4)
    if source == 'all':  # the global winner is y unit 1 (index 4): x's own BMU (unit 0) is overruled
        assert act_y.value[0, winner_y[0]] > act_x.value[0, winner_x[0]] and winner_y[0] == 1


def test_spec_c2_divergence_labels() -> None:
    assert divergent_labels(H, np.array([0, 1, 1])).tolist() == [0, 1]


def test_spec_c2_hebbian_step() -> None:
    lateral = quantize(np.zeros((3, 2)), 'ufixed<20,2,RND,SAT>')
    act_x, act_y = quantize(ACT_X, ACTIVITY), quantize(ACT_Y, ACTIVITY)
    rate = quantize(np.float64(0.1), 'ufixed<20,0,RND>')
    updated = hebbian_update(lateral, act_x, act_y, rate)
    np.testing.assert_allclose(updated.value, [[0.05, 0.1], [0.04, 0.08], [0.015, 0.03]], atol=1e-5)


def test_hebbian_bmu_and_oja() -> None:
    lateral = quantize(H, 'ufixed<16,2,RND,SAT>')
    rate = quantize(np.float64(0.25), 'ufixed<8,0>')
    grown = hebbian_update_bmu(lateral, 2, 0, rate)
    assert grown.value[2, 0] == pytest.approx(lateral.value[2, 0] + 0.25)
    assert (np.delete(grown.value.ravel(), 4) == np.delete(lateral.value.ravel(), 4)).all()
    oja = hebbian_update(lateral, quantize(ACT_X, ACTIVITY), quantize(ACT_Y, ACTIVITY), rate, 'oja')
    exact = lateral.value + 0.25 * (np.outer(ACT_X, ACT_Y) - ACT_Y[None] ** 2 * lateral.value)
    np.testing.assert_allclose(oja.value, exact, atol=2.0**-14)
    with pytest.raises(ValueError, match='unknown rule'):
        hebbian_update(lateral, quantize(ACT_X, ACTIVITY), quantize(ACT_Y, ACTIVITY), rate, 'anti')


def test_divide_is_the_exact_floor() -> None:
    rng = np.random.default_rng(3)
    remainder = FixedPrecisionType(20, 6, False)
    divisor = quantize(rng.random((200, 1)) * 20 + 2.0**-14, remainder)
    value = quantize(rng.random((200, 1)) * divisor.value, remainder)
    quotient = exact_divide(value, divisor, ACTIVITY)
    for got, v, s in zip(quotient.value.ravel(), value.value.ravel(), divisor.value.ravel(), strict=True):
        exact = Fraction(v) / Fraction(s)
        assert Fraction(got) == Fraction(int(exact * 2**23), 2**23)


def test_silent_lateral_input() -> None:
    """With an all-zero H: product gives 0, sum gives the activity halved."""
    lateral = quantize(np.zeros((3, 2)), 'ufixed<8,1>')
    act_x, act_y = quantize(ACT_X[None], ACTIVITY), quantize(ACT_Y[None], ACTIVITY)
    for combination, expected in (('product', 0 * ACT_X), ('sum', ACT_X / 2)):
        attributes = {'source': 'all', 'combine': combination, 'iterations': 1}
        new_x, *_ = associate(act_x, act_y, (np.array([0]), np.array([1])), lateral, attributes, TYPES)
        np.testing.assert_allclose(new_x.value[0], expected, atol=2.0**-23)


def _model(output: str, **options) -> ModelGraph:
    rng = np.random.default_rng(1)
    graph, origin = resom_graph(
        rng.random((6, 3)),
        (2, 3),
        rng.random((4, 2)),
        (2, 2),
        rng.random((6, 4)),
        labels_x=[0, 1, 2, 0, 1, 2],
        output=output,
        **options,
    )
    config = create_config('unused-resom', 'myproject', 'Vitis')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    return ModelGraph(config, graph, origin)


@pytest.mark.parametrize('source', ['all', 'bmu'])
@pytest.mark.parametrize('combination', ['product', 'sum'])
def test_properties_of_the_outputs(source, combination) -> None:
    rng = np.random.default_rng(2)
    samples = [rng.random((64, 3)), rng.random((64, 2))]
    options = {'source': source, 'combine': combination}
    (activities,), _ = interpret(_model('activities', **options), samples)
    (winners,), _ = interpret(_model('winners', **options), samples)
    (index,), _ = interpret(_model('index', **options), samples)
    (labels,), _ = interpret(_model('label', **options), samples)
    values = activities.value
    assert ((values >= 0) & (values <= 1)).all()
    assert (values[:, :6].argmax(axis=1) == winners.value[:, 0]).all()  # first largest: numpy argmax
    assert (values[:, 6:].argmax(axis=1) == winners.value[:, 1]).all()
    assert (values.argmax(axis=1) == index.value[:, 0]).all()  # global winner, x first on ties
    all_labels = _model('label', **options).graph.layers['resom'].weights['labels']  # x's, then y's by divergence
    assert (all_labels[index.value[:, 0].astype(int)] == labels.value[:, 0]).all()


def test_inferred_lateral_accumulator_holds_every_sum() -> None:
    model = _model('activities')
    layer = model.graph.layers['resom']
    accum, lateral = layer.types['lateral_accum'], quantize(layer.weights['lateral'], layer.types['lateral'])
    assert not accum.signed and accum.max >= lateral.value.sum(axis=1).max()
    assert accum.max >= lateral.value.sum(axis=0).max()
    assert str(layer.types['activity']) == 'ufixed<12,1>'


@pytest.mark.parametrize(
    ('change', 'message'),
    [
        ({'lateral': np.full((6, 4), np.nan)}, 'NaN'),
        ({'lateral': -np.ones((6, 4))}, 'non-negative'),
        ({'lateral': np.ones((5, 4))}, 'does not match the codebooks'),
        ({'codebook_y': np.ones(4)}, 'codebook_y must have 2 dimensions'),
        ({'source': 'some'}, 'unsupported source'),
        ({'combine': 'max'}, 'unsupported combine'),
        ({'distance': 'cosine'}, 'unsupported distance'),
        ({'beta_x': 0.0}, 'positive'),
        ({'labels_x': None}, 'needs labels_x or labels_y'),
        ({'iterations': 0}, 'iterations must be at least 1'),
        ({'grid_x': (2, 2)}, 'grid_x 2x2 does not hold 6'),
    ],
)
def test_bad_input_raises_a_clear_error(change, message) -> None:
    arguments = {
        'codebook_x': np.ones((6, 3)),
        'grid_x': (2, 3),
        'codebook_y': np.ones((4, 2)),
        'grid_y': (2, 2),
        'lateral': np.ones((6, 4)),
        'labels_x': np.zeros(6),
        'output': 'label',
        **change,
    }
    with pytest.raises(ValueError, match=message):
        resom_graph(**arguments)


def test_activity_type_must_hold_one() -> None:
    model = _model('activities')
    layer = model.graph.layers['resom']
    layer.types['activity'] = parse_precision('ufixed<8,0>')
    with pytest.raises(ValueError, match='must hold 1'):
        interpret(model, [np.zeros((1, 3)), np.zeros((1, 2))])


def test_kohonen_step_follows_the_float_rule() -> None:
    rng = np.random.default_rng(4)
    grid, sigma, rate = (3, 4), 1.2, 0.375
    codebook = quantize(rng.random((12, 3)), 'fixed<24,2,RND>')
    x = quantize(rng.random(3), 'fixed<16,2>')
    tables = (neighbourhood_table(3, sigma, 'ufixed<20,1,RND>'), neighbourhood_table(4, sigma, 'ufixed<20,1,RND>'))
    types = ('ufixed<48,8>', 'ufixed<24,1>')
    updated, bmu = kohonen_update(
        x, codebook, tables, quantize(np.float64(rate), 'ufixed<8,0>'), grid, 'squared_euclidean', types
    )
    assert bmu == int(((codebook.value - x.value) ** 2).sum(axis=1).argmin())
    rows, cols = np.divmod(np.arange(12), 4)
    spread = np.exp(-((rows - bmu // 4) ** 2 + (cols - bmu % 4) ** 2) / (2 * sigma**2))
    exact = codebook.value + rate * spread[:, None] * (x.value - codebook.value)
    np.testing.assert_allclose(updated.value, exact, atol=1e-5)
    assert np.abs(updated.value[bmu] - x.value).sum() < np.abs(codebook.value[bmu] - x.value).sum()


def test_afferent_activities_are_the_som_activities() -> None:
    """Each map's afferent activities are the SOM layer's output 'activities' (one implementation)."""
    rng = np.random.default_rng(6)
    resom_model = _model('activities', source='all', combine='product')
    graph, origin = som_graph(
        resom_model.graph.layers['resom'].weights['codebook_x'], (2, 3), 'euclidean', 'activities'
    )
    config = create_config('unused-som', 'myproject', 'Vitis')
    config['HLSConfig'] = config_from_graph(graph, 'name', 'fixed<12,3>', 1, None)
    som_model = ModelGraph(config, graph, origin)
    layer = resom_model.graph.layers['resom']
    som_layer = som_model.graph.layers['som']
    som_layer.types['table'] = layer.types['activity']
    x = rng.random((32, 3))
    (expected,), _ = interpret(som_model, x)
    types, tables = layer_setup(layer, 'ap')
    weights = quantize(layer.weights['codebook_x'], layer.types['codebook_x'])
    activities, _ = afferent(quantize(x, 'fixed<12,3>'), weights, 'squared_euclidean', types.accum_x, tables[0])
    assert str(layer.types['accum_x']) == str(som_layer.types['accum'])
    np.testing.assert_array_equal(activities.value, expected.value)


def test_offline_hebbian_lateral() -> None:
    """One pair whose BMUs are x unit 0 and y unit 1: the bmu rule marks that synapse only; the hebb
    rule is the normalised outer product of the float activities; pruning keeps the largest entries."""
    codebook_x, codebook_y = np.array([[0.0], [1.0], [3.0]]), np.array([[2.0], [0.0]])
    data = (np.array([[0.0]]), np.array([[0.0]]))
    bmu = hebbian_lateral((codebook_x, codebook_y), data, rule='bmu')
    assert bmu.tolist() == [[0, 1], [0, 0], [0, 0]]
    hebb = hebbian_lateral((codebook_x, codebook_y), data, rule='hebb')
    np.testing.assert_allclose(hebb, np.outer(np.exp(-np.array([0, 1, 3])), np.exp(-np.array([2, 0]))))
    pruned = hebbian_lateral((codebook_x, codebook_y), data, rule='hebb', keep=0.34)
    assert (pruned > 0).sum() == 2 and pruned.max() == 1.0
    with pytest.raises(ValueError, match='must pair up'):
        hebbian_lateral((codebook_x, codebook_y), (np.zeros((2, 1)), np.zeros((3, 1))))


def test_labels_of_x_by_divergence_from_y() -> None:
    graph, _ = resom_graph(np.ones((3, 2)), (1, 3), np.ones((2, 2)), (1, 2), H, labels_y=[4, 7], output='label')
    assert graph.layers['resom'].weights['labels'].tolist() == [4, 7, 7, 4, 7]
    with pytest.raises(ValueError, match='3 labels_y for 2 units'):
        resom_graph(np.ones((3, 2)), (1, 3), np.ones((2, 2)), (1, 2), H, labels_y=[4, 7, 1], output='label')
