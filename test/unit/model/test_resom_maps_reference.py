"""The ReSOM of M maps (ReSOMMaps): a float64 reference written here from the definitions (docs/resom.md,
"More than two maps"), hand-checked three-map cases, the fixed-point reference's exact division against
rationals, the float model (hls4ml.nn.resom_maps_core), M = 2 equal to the two-map ReSOM bit for bit,
divergence labelling, and the refusal of bad input."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from hls4ml.converters.resom import resom_graph, resom_maps_graph
from hls4ml.model.fixed import quantize
from hls4ml.model.graph import ModelGraph
from hls4ml.model.interpreter import interpret
from hls4ml.model.reference.resom import ResomTypes, remainder_type
from hls4ml.model.reference.resom_maps import associate, block_matrix, pairs
from hls4ml.model.resom_maps_graphs import divergent_map_labels
from hls4ml.model.types import FixedPrecisionType
from hls4ml.nn.resom_maps_core import associate as float_associate
from hls4ml.nn.resom_maps_core import make_settings, resom_maps_forward
from hls4ml.utils.config import config_from_graph, create_config

# three maps of two units each, activities and matrices exactly representable
ACTIVITIES = [np.array([1.0, 0.5]), np.array([0.5, 1.0]), np.array([1.0, 0.25])]
MATRICES = {(0, 1): np.eye(2), (0, 2): 0.5 * np.eye(2), (1, 2): np.array([[0.0, 1.0], [1.0, 0.0]])}
# by hand: l0 = H01 a1 + H02 a2 = (1, 1.125); l1 = H01^T a0 + H12 a2 = (1.25, 1.5);
#          l2 = H02^T a0 + H12^T a1 = (1.5, 0.75)
# bmu (winners 0, 1, 0): l0 = H01[:, 1] + H02[:, 0] = (0.5, 1); l1 = H01[0, :] + H12[:, 0] = (1, 1); l2 = (1.5, 0)
HAND = {
    ('all', 'product'): [(8 / 9, 0.5), (5 / 12, 1.0), (1.0, 0.125)],
    ('all', 'sum'): [((1 + 8 / 9) / 2, 0.75), ((0.5 + 5 / 6) / 2, 1.0), (1.0, 0.375)],
    ('bmu', 'product'): [(0.5, 0.5), (0.5, 1.0), (1.0, 0.0)],
    ('bmu', 'sum'): [(0.75, 0.75), (0.75, 1.0), (1.0, 0.125)],
}


def _pair(matrices: dict, i: int, j: int) -> np.ndarray:
    return matrices[(i, j)] if i < j else matrices[(j, i)].T


def reference_rounds(activities: list, matrices: dict, source: str, combine: str, iterations: int) -> list:
    """One sample, written from the definitions: every round, map i's lateral input is the sum over the
    other maps j of H_ij a^j (or H_ij's column of j's winner), normalised by its max, combined."""
    for _ in range(iterations):
        winners = [int(np.argmax(act)) for act in activities]
        new = []
        for i, act in enumerate(activities):
            lateral = 0 * act  # floats, or exact Fractions in an object array
            for j, other in enumerate(activities):
                if j != i:
                    lateral += (
                        _pair(matrices, i, j) @ other if source == 'all' else _pair(matrices, i, j)[:, winners[j]]
                    )
            top = lateral.max()
            scaled = lateral / top if top > 0 else 0 * act
            new.append(act * scaled if combine == 'product' else (act + scaled) / 2)
        activities = new
    return activities


def reference_forward(inputs, codebooks, matrices, labels, betas, distance, source, combine, iterations, output):
    """The whole layer for each sample, from the definitions (Euclidean distance not squared)."""
    rows = []
    for sample in range(len(inputs[0])):
        activities = []
        for data, book, beta in zip(inputs, codebooks, betas, strict=True):
            gaps = np.abs(book - data[sample])
            d = {'squared_euclidean': np.sqrt((gaps**2).sum(1)), 'manhattan': gaps.sum(1), 'chebyshev': gaps.max(1)}
            activities.append(np.exp(-(d[distance] - d[distance].min()) / beta))
        activities = reference_rounds(activities, matrices, source, combine, iterations)
        every = np.concatenate(activities)
        best, start = 0, 0  # the first largest, map by map: a later map wins only when strictly larger
        for act in activities:
            if act.max() > every[best]:
                best = start + int(np.argmax(act))
            start += len(act)
        values = {'activities': every, 'winners': [np.argmax(a) for a in activities], 'index': [best]}
        rows.append(values.get(output, [labels[best] if labels is not None else 0]))
    return np.asarray(rows, dtype=np.float64)


@pytest.mark.parametrize(('source', 'combine'), list(HAND))
def test_hand_checked_three_maps_float(source: str, combine: str) -> None:
    for expected, ours, theirs in zip(
        HAND[(source, combine)],
        reference_rounds(ACTIVITIES, MATRICES, source, combine, 1),
        float_associate([a[None] for a in ACTIVITIES], block_matrix(MATRICES, (2, 2, 2)), _settings(source, combine)),
        strict=True,
    ):
        np.testing.assert_allclose(ours, expected, atol=1e-12)
        np.testing.assert_allclose(theirs[0], expected, atol=1e-12)


def _settings(source: str, combine: str, iterations: int = 1, output: str = 'activities'):
    return make_settings([(1, 2)] * 3, source=source, combine=combine, iterations=iterations, output=output)


ACTIVITY = FixedPrecisionType(24, 1, False)
LATERAL_ACCUM = FixedPrecisionType(48, 6, False)
TYPES = ResomTypes(ACTIVITY, ACTIVITY, ACTIVITY, LATERAL_ACCUM, remainder_type(ACTIVITY, LATERAL_ACCUM), ACTIVITY)


@pytest.mark.parametrize(('source', 'combine'), list(HAND))
@pytest.mark.parametrize('iterations', [1, 2])
def test_fixed_point_rounds_are_floors_of_the_exact_rationals(source: str, combine: str, iterations: int) -> None:
    """The reference's only rounding is one floor per activity and round: compare with Fractions."""
    exact = [np.array([Fraction(v) for v in act], dtype=object) for act in ACTIVITIES]
    fractions = {
        pair: np.array([[Fraction(v) for v in row] for row in values], dtype=object)
        for pair, values in MATRICES.items()
    }
    fixed = [quantize(act[None], ACTIVITY) for act in ACTIVITIES]
    matrix = quantize(block_matrix(MATRICES, (2, 2, 2)), 'ufixed<8,1>')
    bmus = [np.array([int(np.argmax(act))]) for act in ACTIVITIES]
    attributes = {'source': source, 'combine': combine, 'iterations': iterations, 'map_units': (2, 2, 2)}
    ours, _ = associate(fixed, bmus, matrix, attributes, TYPES)
    for _ in range(iterations):  # each round from the previous round's floored values
        exact = reference_rounds(exact, fractions, source, combine, 1)
        exact = [np.array([Fraction(math.floor(v * 2**23), 2**23) for v in act], dtype=object) for act in exact]
    for theirs, mine in zip(exact, ours, strict=True):
        np.testing.assert_array_equal(mine.value[0], np.array([float(v) for v in theirs]))
    if iterations == 1:
        for expected, mine in zip(HAND[(source, combine)], ours, strict=True):
            np.testing.assert_allclose(mine.value[0], expected, atol=2**-23)


def _random_maps(count: int, seed: int):
    rng = np.random.default_rng(seed)
    units = [(2, 2), (2, 3), (1, 3), (3, 1)][:count]
    widths = [3, 2, 4, 2][:count]
    codebooks = [rng.random((r * c, width)) for (r, c), width in zip(units, widths, strict=True)]
    matrices = {(i, j): rng.random((codebooks[i].shape[0], codebooks[j].shape[0])) for i, j in pairs(count)}
    matrices[(0, 1)] *= rng.random(matrices[(0, 1)].shape) > 0.4  # pruned synapses
    inputs = [rng.random((30, width)) for width in widths]
    return units, codebooks, matrices, inputs


VARIANTS = [
    ('all', 'product', 1, 'squared_euclidean'),
    ('all', 'sum', 2, 'manhattan'),
    ('bmu', 'product', 2, 'chebyshev'),
    ('bmu', 'sum', 1, 'squared_euclidean'),
]


@pytest.mark.parametrize('count', [3, 4])
@pytest.mark.parametrize(('source', 'combine', 'iterations', 'distance'), VARIANTS)
def test_float_model_equals_the_definitions(count, source, combine, iterations, distance) -> None:
    units, codebooks, matrices, inputs = _random_maps(count, 7 + count)
    betas = [0.5, 0.3, 1.0, 0.7][:count]
    labels = np.arange(sum(r * c for r, c in units)) % 5
    for output in ('activities', 'winners', 'index', 'label'):
        settings = make_settings(units, distance, source, combine, iterations, output, betas)
        ours = resom_maps_forward(inputs, codebooks, matrices, labels, settings)
        theirs = reference_forward(
            inputs, codebooks, matrices, labels, betas, distance, source, combine, iterations, output
        )
        np.testing.assert_allclose(ours, theirs, atol=1e-12, err_msg=output)


def _interpreted(graph, samples, precision: str = 'fixed<16,6>'):
    config = create_config('unused', 'myproject', 'Vitis')
    config['HLSConfig'] = config_from_graph(graph, 'name', precision, 1, None)
    (values,), _ = interpret(ModelGraph(config, graph), samples)
    return values.value


@pytest.mark.parametrize('count', [3, 4])
def test_fixed_point_follows_the_definitions_within_its_precision(count: int) -> None:
    """16-bit types: activities within the exp tables' error (a 1024-entry table over the gaps) and the
    same labels on (nearly) every sample."""
    units, codebooks, matrices, inputs = _random_maps(count, 3 + count)
    labels = [np.arange(4) % 3, *([None] * (count - 1))]
    every = np.concatenate(divergent_map_labels(matrices, labels))
    for output in ('activities', 'label'):
        graph, _ = resom_maps_graph(codebooks, units, matrices, labels, output=output, betas=0.5)
        ours = _interpreted(graph, inputs, 'fixed<16,6>')
        theirs = reference_forward(
            inputs, codebooks, matrices, every, [0.5] * count, 'squared_euclidean', 'all', 'product', 1, output
        )
        if output == 'activities':
            assert np.abs(ours - theirs).max() < 1e-2
        else:
            assert (ours == theirs).mean() >= 0.9


@pytest.mark.parametrize('output', ['label', 'index', 'winners', 'activities'])
@pytest.mark.parametrize('source', ['all', 'bmu'])
def test_two_maps_equal_the_two_map_resom_bit_for_bit(output: str, source: str) -> None:
    units, codebooks, matrices, inputs = _random_maps(2, 1)
    options = {'output': output, 'source': source, 'combine': 'sum', 'iterations': 2}
    general, _ = resom_maps_graph(
        codebooks, units, matrices, [np.arange(4) % 3, None], betas=0.5, pair_kind=False, **options
    )
    pair, _ = resom_graph(
        codebooks[0],
        units[0],
        codebooks[1],
        units[1],
        matrices[(0, 1)],
        np.arange(4) % 3,
        beta_x=0.5,
        beta_y=0.5,
        **options,
    )
    assert general.layers['resom'].kind == 'ReSOMMaps' and pair.layers['resom'].kind == 'ReSOM'
    np.testing.assert_array_equal(
        _interpreted(general, inputs, 'fixed<12,3>'), _interpreted(pair, inputs, 'fixed<12,3>')
    )
    default, _ = resom_maps_graph(codebooks, units, matrices, [np.arange(4) % 3, None], betas=0.5, **options)
    assert default.layers['resom'].kind == 'ReSOM'  # two maps keep today's layer and its code


def test_divergence_from_every_labelled_map() -> None:
    assert [list(v) for v in divergent_map_labels(MATRICES, [[7, 3], None, None])] == [[7, 3], [7, 3], [7, 3]]
    # map 2 from maps 0 and 1: unit 0 sees (0.5, 0 | 0, 1): map 1's unit 1; unit 1 sees (0, 0.5 | 1, 0): map 1's unit 0
    assert list(divergent_map_labels(MATRICES, [[7, 3], [5, 6], None])[2]) == [6, 5]
    # ties go to the lower map: H02[:, 0] = H12[:, 0] = 1
    tied = {(0, 1): np.eye(2), (0, 2): np.array([[1.0, 0], [0, 0]]), (1, 2): np.array([[1.0, 0], [0, 1]])}
    assert list(divergent_map_labels(tied, [[7, 3], [5, 6], None])[2]) == [7, 6]


def test_bad_input_is_refused_by_name() -> None:
    units, codebooks, matrices, _ = _random_maps(3, 2)
    missing = {pair: values for pair, values in matrices.items() if pair != (1, 2)}
    with pytest.raises(ValueError, match=r'maps 1 and 2 is missing'):
        resom_maps_graph(codebooks, units, missing, output='index')
    with pytest.raises(ValueError, match=r'lateral \(0, 2\) has shape \(3, 4\), expected \(4, 3\)'):
        resom_maps_graph(codebooks, units, {**matrices, (0, 2): np.ones((3, 4))}, output='index')
    with pytest.raises(ValueError, match=r'lateral \(0, 3\) is not a pair'):
        resom_maps_graph(codebooks, units, {**matrices, (0, 3): np.ones((4, 2))}, output='index')
    with pytest.raises(ValueError, match=r'lateral \(1, 2\) must be non-negative'):
        resom_maps_graph(codebooks, units, {**matrices, (1, 2): -matrices[(1, 2)]}, output='index')
    with pytest.raises(ValueError, match=r'3 lateral matrices for 4 maps'):
        resom_maps_graph([*codebooks, codebooks[0]], [*units, units[0]], list(matrices.values()), output='index')
    with pytest.raises(ValueError, match=r'3 labels for the 4 units of map 0'):
        resom_maps_graph(codebooks, units, matrices, [[0, 1, 2], None, None])
    with pytest.raises(ValueError, match=r'betas must be 3 positive numbers'):
        resom_maps_graph(codebooks, units, matrices, output='index', betas=[1.0, 2.0])
    with pytest.raises(ValueError, match=r'expected 2 to 8 maps'):
        resom_maps_graph(codebooks * 3, units * 3, {}, output='index')


def test_transposed_and_listed_matrices_are_the_same_layer() -> None:
    units, codebooks, matrices, inputs = _random_maps(3, 4)
    listed, _ = resom_maps_graph(codebooks, units, list(matrices.values()), output='activities')
    flipped = {(j, i): values.T for (i, j), values in matrices.items()}
    transposed, _ = resom_maps_graph(codebooks, units, flipped, output='activities')
    np.testing.assert_array_equal(_interpreted(listed, inputs), _interpreted(transposed, inputs))


def test_a_model_precision_keeps_the_internal_types_exact() -> None:
    """{'Model': {'Precision': 'fixed<16,6>'}} reaches the inputs and weights only; a layer setting that
    names a variable still overrides it."""
    units, codebooks, matrices, inputs = _random_maps(3, 6)
    graph, _ = resom_maps_graph(codebooks, units, matrices, output='index', betas=0.5)
    config = create_config('unused', 'myproject', 'Vitis')
    config['HLSConfig'] = {'Model': {'Precision': 'fixed<16,6>'}}
    types = ModelGraph(config, graph).graph.layers['resom'].types
    assert str(types['codebook']) == 'fixed<16,6>' and str(types['activity']) == 'ufixed<16,1>'
    assert str(types['result']) == 'ufixed<4,4>'  # indices 0 .. 12
    assert types['accum'].fractional == 20 and not types['accum'].signed  # squares of 10-bit differences
    graph, _ = resom_maps_graph(codebooks, units, matrices, output='index', betas=0.5)
    config['HLSConfig']['LayerName'] = {'resom': {'Precision': {'activity': 'ufixed<10,1>'}}}
    assert str(ModelGraph(config, graph).graph.layers['resom'].types['activity']) == 'ufixed<10,1>'


@pytest.mark.parametrize('output', ['label', 'index', 'winners', 'activities'])
def test_two_map_float_model_is_the_resom_float_model(output: str) -> None:
    from hls4ml.nn import resom_core

    units, codebooks, matrices, inputs = _random_maps(2, 8)
    labels = np.arange(10) % 4
    options = {'source': 'bmu', 'combine': 'sum', 'iterations': 2, 'output': output}
    pair = resom_core.make_settings(units[0], units[1], beta_x=0.5, beta_y=0.3, **options)
    general = make_settings(units, betas=[0.5, 0.3], **options)
    expected = resom_core.resom_forward(*inputs, *codebooks, matrices[(0, 1)], labels, pair)
    np.testing.assert_array_equal(resom_maps_forward(inputs, codebooks, matrices, labels, general), expected)
