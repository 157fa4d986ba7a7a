"""The conversion passes, one at a time on small hand-built graphs, plus the flow around them.

fuse_batchnorm keeps the float function; infer_precision is overflow-free, checked against the
exact worst case of the accumulator; validate_reuse_factor follows the rule of API spec section 5.4.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Any

import keras
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hls4ml.converters import convert_from_keras_model
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.flow import CONVERT_FLOW, run_flow
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph
from hls4ml.model.passes import PassContext
from hls4ml.model.passes.fuse_batchnorm import fuse_batchnorm
from hls4ml.model.passes.infer_precision import infer_precision
from hls4ml.model.passes.remove_linear_activation import remove_linear_activation
from hls4ml.model.passes.validate_reuse_factor import valid_reuse_factors, validate_reuse_factor
from hls4ml.model.types import FixedPrecisionType, UnspecifiedPrecisionType, parse_precision
from hls4ml.utils import config_from_keras_model

DEFAULT = FixedPrecisionType(16, 6)
DENSE_AUTO = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}
BN_AUTO = {'result': 'auto', 'scale': 'auto', 'bias': 'auto'}


def context(maximum: str | None = None, default: FixedPrecisionType = DEFAULT) -> PassContext:
    return PassContext(default, parse_precision(maximum) if maximum else None)  # type: ignore[arg-type]


def dense_graph(
    build_layer, weights: np.ndarray, biases: np.ndarray, input_type: str = 'fixed<16,6>', **types: str
) -> Graph:
    """x (Input) -> fc (Dense); the Dense's types default to 'auto'."""
    graph = Graph()
    n_in, n_out = weights.shape
    build_layer(graph, 'x', 'Input', (), (n_in,), types={'result': input_type}, shape=(n_in,))
    build_layer(
        graph,
        'fc',
        'Dense',
        ['x'],
        (n_out,),
        weights={'weight': weights, 'bias': biases},
        types={**DENSE_AUTO, **types},
        n_in=n_in,
        n_out=n_out,
        trace=False,
    )
    graph.inputs, graph.outputs = ['x'], ['fc']
    return graph


# ---- fuse_batchnorm ---------------------------------------------------------------------------------


def dense_bn_graph(
    build_layer,
    scale: np.ndarray,
    shift: np.ndarray,
    dense_types: dict[str, str] | None = None,
    bn_types: dict[str, str] | None = None,
    input_type: str = 'fixed<16,6>',
    weights: np.ndarray | None = None,
) -> Graph:
    """x -> fc (Dense 4x3) -> bn -> out (relu), with fixed pseudo-random Dense weights."""
    rng = np.random.default_rng(11)
    weights = rng.uniform(-1, 1, (4, 3)) if weights is None else weights
    graph = dense_graph(build_layer, weights, rng.uniform(-1, 1, 3), input_type, **(dense_types or {}))
    build_layer(
        graph,
        'bn',
        'BatchNormalization',
        ['fc'],
        (3,),
        weights={'scale': scale, 'bias': shift},
        types={**BN_AUTO, **(bn_types or {})},
        n_in=3,
        trace=False,
    )
    build_layer(graph, 'out', 'Activation', ['bn'], (3,), types={'result': 'auto'}, activation='relu', n_in=3)
    graph.outputs = ['out']
    return graph


SCALE, SHIFT = np.array([0.5, -2.0, 3.0]), np.array([0.25, 1.0, -0.75])


def test_fold_keeps_the_float_function(build_layer) -> None:
    graph = dense_bn_graph(build_layer, SCALE, SHIFT, bn_types={'result': 'fixed<20,8>'})
    dense = graph.layers['fc']
    weights, biases = dense.weights['weight'].copy(), dense.weights['bias'].copy()
    fuse_batchnorm(graph, context())
    assert list(graph.layers) == ['x', 'fc', 'out']
    assert graph.layers['out'].inputs == ['fc'] and 'bn' not in graph.tensors
    assert dense.types['result'] == FixedPrecisionType(20, 8)
    x = np.random.default_rng(0).uniform(-4, 4, (50, 4))
    np.testing.assert_allclose(
        x @ dense.weights['weight'] + dense.weights['bias'], (x @ weights + biases) * SCALE + SHIFT, rtol=1e-12
    )


def test_fold_of_a_keras_model_matches_keras(tmp_path) -> None:
    inputs = keras.Input((4,), name='x')
    batchnorm = keras.layers.BatchNormalization(name='bn')
    normalised = batchnorm(keras.layers.Dense(3, name='fc')(inputs))
    model = keras.Model(inputs, keras.layers.Dense(2, name='out')(normalised))
    batchnorm.set_weights([np.array([0.5, 1.5, -1.0]), np.array([0.1, 0.0, -0.2]), np.ones(3), np.full(3, 2.0)])
    hls_config = config_from_keras_model(model, granularity='name')  # 'auto' types: the fold is allowed
    hls_model = convert_from_keras_model(
        model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=hls_config
    )
    assert 'bn' not in hls_model.graph.layers
    dense = hls_model.graph.layers['fc']
    x = np.random.default_rng(1).uniform(-2, 2, (20, 4)).astype(np.float32)
    expected = keras.ops.convert_to_numpy(keras.Model(inputs, normalised)(x))
    np.testing.assert_allclose(x @ dense.weights['weight'] + dense.weights['bias'], expected, rtol=1e-5, atol=1e-5)


def test_no_fold_when_the_dense_output_has_two_consumers(build_layer) -> None:
    graph = dense_bn_graph(build_layer, SCALE, SHIFT)
    build_layer(graph, 'side', 'Activation', ['fc'], (3,), types={'result': 'auto'}, activation='relu', n_in=3)
    graph.outputs.append('side')
    fuse_batchnorm(graph, context())
    assert 'bn' in graph.layers


def test_no_fold_when_the_dense_output_is_a_model_output(build_layer) -> None:
    graph = dense_bn_graph(build_layer, SCALE, SHIFT)
    graph.outputs.append('fc')
    fuse_batchnorm(graph, context())
    assert 'bn' in graph.layers


def test_no_fold_when_the_dense_is_traced(build_layer) -> None:
    graph = dense_bn_graph(build_layer, SCALE, SHIFT)
    graph.layers['fc'].attributes['trace'] = True
    fuse_batchnorm(graph, context())
    assert 'bn' in graph.layers


def test_no_fold_when_the_batchnorm_is_traced(build_layer) -> None:
    """Its output was asked for by name (`Trace: True`); folding it away loses that trace."""
    graph = dense_bn_graph(build_layer, SCALE, SHIFT)
    graph.layers['bn'].attributes['trace'] = True
    fuse_batchnorm(graph, context())
    assert 'bn' in graph.layers


@pytest.mark.parametrize(
    'dense_types, fused',
    [
        ({'weight': 'fixed<8,1>'}, False),  # folded weights reach 3 * 0.99
        ({'weight': 'fixed<8,3>'}, True),
        ({'bias': 'fixed<8,1>', 'weight': 'fixed<8,3>'}, False),  # folded biases reach 3 * 0.9 + 0.75
        ({'bias': 'fixed<8,3>', 'weight': 'fixed<8,3>'}, True),
        ({'weight': 'fixed<8,2,RND,SAT>', 'bias': 'fixed<8,3>'}, False),
    ],
)
def test_fold_only_when_explicit_weight_types_hold_the_folded_values(build_layer, dense_types, fused) -> None:
    weights = np.array([[0.99, 0.5, 0.99], [0.5, 0.99, -0.4], [0.1, 0.2, 0.3], [0.0, -0.9, 0.6]])
    graph = dense_bn_graph(build_layer, SCALE, SHIFT, dense_types, weights=weights)
    original = graph.layers['fc'].weights['weight'].copy()
    fuse_batchnorm(graph, context())
    assert ('bn' not in graph.layers) is fused
    if not fused:
        np.testing.assert_array_equal(graph.layers['fc'].weights['weight'], original)


def test_no_fold_into_an_explicit_accumulator_too_narrow_for_the_folded_sums(build_layer) -> None:
    """Unfused, the sums |x @ W| <= 1.5 fit accum fixed<12,3>; folded (scale 8) they reach 12 and wrap."""
    dense_types = {'weight': 'fixed<12,5>', 'bias': 'fixed<12,5>', 'accum': 'fixed<12,3>', 'result': 'fixed<12,3>'}
    graph = dense_bn_graph(
        build_layer,
        np.full(3, 8.0),
        np.zeros(3),
        dense_types,
        bn_types={'result': 'fixed<16,6>'},
        input_type='fixed<8,1>',
        weights=np.full((4, 3), 0.375),
    )
    graph.layers['fc'].weights['bias'] = np.zeros(3)
    fuse_batchnorm(graph, context())
    if 'bn' not in graph.layers:
        dense = graph.layers['fc']
        bound = float(np.abs(dense.weights['weight']).sum(axis=0).max())  # |x| <= 1, no bias
        assert dense.types['accum'].max >= bound


# ---- remove_linear_activation -----------------------------------------------------------------------


def linear_graph(build_layer, linear_type: str, as_output: bool = False) -> Graph:
    graph = dense_graph(build_layer, np.eye(4)[:, :3], np.zeros(3), result='fixed<16,6>')
    build_layer(graph, 'lin', 'Activation', ['fc'], (3,), types={'result': linear_type}, activation='linear', n_in=3)
    build_layer(graph, 'act', 'Activation', ['lin'], (3,), types={'result': 'auto'}, activation='relu', n_in=3)
    graph.outputs = ['act', 'lin'] if as_output else ['act']
    return graph


@pytest.mark.parametrize('linear_type', ['auto', 'fixed<16,6>'])
def test_linear_activation_without_effect_is_removed(build_layer, linear_type: str) -> None:
    graph = linear_graph(build_layer, linear_type)
    remove_linear_activation(graph, context())
    assert list(graph.layers) == ['x', 'fc', 'act']
    assert graph.layers['act'].inputs == ['fc'] and 'lin' not in graph.tensors


def test_linear_activation_with_another_type_is_kept_as_a_requantization(build_layer) -> None:
    graph = linear_graph(build_layer, 'fixed<8,3>')
    remove_linear_activation(graph, context())
    assert 'lin' in graph.layers


def test_linear_activation_that_is_a_model_output_is_kept(build_layer) -> None:
    graph = linear_graph(build_layer, 'auto', as_output=True)
    remove_linear_activation(graph, context())
    assert 'lin' in graph.layers and graph.outputs == ['act', 'lin']


def test_traced_linear_activation_is_kept(build_layer) -> None:
    """Its output was asked for by name (`Trace: True`); removing it loses that trace."""
    graph = linear_graph(build_layer, 'auto')
    graph.layers['lin'].attributes['trace'] = True
    remove_linear_activation(graph, context())
    assert 'lin' in graph.layers


def test_other_activations_stay(build_layer) -> None:
    graph = linear_graph(build_layer, 'auto')
    graph.layers['lin'].attributes['activation'] = 'relu'
    remove_linear_activation(graph, context())
    assert 'lin' in graph.layers


def test_keras_linear_activation_layer_is_gone_after_conversion(tmp_path) -> None:
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.Activation('linear', name='lin')(keras.layers.Dense(3, name='fc')(inputs))
    model = keras.Model(inputs, keras.layers.Dense(2, name='out')(hidden))
    graph = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis').graph
    assert list(graph.layers) == ['x', 'fc', 'out'] and graph.layers['out'].inputs == ['fc']


# ---- infer_precision --------------------------------------------------------------------------------


def as_fraction(raw: int, fractional: int) -> Fraction:
    return Fraction(int(raw)) * Fraction(2) ** -fractional


def type_range(precision: FixedPrecisionType) -> tuple[Fraction, Fraction]:
    return as_fraction(precision.raw_min, precision.fractional), as_fraction(precision.raw_max, precision.fractional)


def partial_sum_ranges(weights: FixedArray, biases: FixedArray, source) -> list[tuple[Fraction, Fraction]]:
    """The exact [min, max] over all inputs of every partial sum bias_j + sum_{i<k} x_i w_ij, in the
    kernel's order (the last one per output is the full sum)."""
    low_x, high_x = type_range(source)
    n_in, n_out = weights.shape
    ranges = []
    for j in range(n_out):
        low = high = as_fraction(biases.raw[j], biases.type.fractional)
        ranges.append((low, high))
        for i in range(n_in):
            weight = as_fraction(weights.raw[i, j], weights.type.fractional)
            products = (weight * low_x, weight * high_x)
            low, high = low + min(products), high + max(products)
            ranges.append((low, high))
    return ranges


def assert_holds(ranges: list[tuple[Fraction, Fraction]], precision: FixedPrecisionType) -> None:
    low_type, high_type = type_range(precision)
    for low, high in ranges:
        assert low_type <= low and high <= high_type, f'[{float(low)}, {float(high)}] does not fit {precision}'


def assert_accumulator_is_exact(weights: FixedArray, biases: FixedArray, source, accum) -> None:
    """Every partial sum of every input fits `accum` without overflow and without rounding."""
    assert accum.fractional >= max(source.fractional + weights.type.fractional, biases.type.fractional)
    assert_holds(partial_sum_ranges(weights, biases, source), accum)


FIXED_TYPES = st.builds(
    lambda width, integer, signed: FixedPrecisionType(width, min(integer, width + 4), signed),
    st.integers(2, 18),
    st.integers(-3, 10),
    st.booleans(),
)
WEIGHT_TYPES = st.one_of(st.just('auto'), FIXED_TYPES.map(str))


@settings(max_examples=60, deadline=None, database=None)
@given(
    n_in=st.integers(1, 12),
    n_out=st.integers(1, 5),
    source=FIXED_TYPES,
    weight_type=WEIGHT_TYPES,
    bias_type=WEIGHT_TYPES,
    magnitude=st.sampled_from([0.01, 0.3, 1.0, 7.0, 100.0]),
    non_negative=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_dense_accumulator_is_overflow_free(
    build_layer, n_in, n_out, source, weight_type, bias_type, magnitude, non_negative, seed
) -> None:
    rng = np.random.default_rng(seed)
    low = 0.0 if non_negative else -magnitude
    weights, biases = rng.uniform(low, magnitude, (n_in, n_out)), rng.uniform(low, magnitude, n_out)
    graph = dense_graph(build_layer, weights, biases, str(source), weight=weight_type, bias=bias_type)
    infer_precision(graph, context())
    types = graph.layers['fc'].types
    weights_q, biases_q = quantize(weights, types['weight']), quantize(biases, types['bias'])
    assert_accumulator_is_exact(weights_q, biases_q, source, types['accum'])
    full_sums = partial_sum_ranges(weights_q, biases_q, source)[n_in :: n_in + 1]
    assert_holds(full_sums, types['result'])


@settings(max_examples=40, deadline=None, database=None)
@given(source=FIXED_TYPES, magnitude=st.sampled_from([0.05, 1.0, 30.0]), seed=st.integers(0, 2**16))
def test_batchnorm_result_is_overflow_free(build_layer, source, magnitude, seed) -> None:
    rng = np.random.default_rng(seed)
    graph = Graph()
    build_layer(graph, 'x', 'Input', (), (5,), types={'result': str(source)}, shape=(5,))
    scales, shifts = rng.uniform(-magnitude, magnitude, 5), rng.uniform(-magnitude, magnitude, 5)
    build_layer(graph, 'bn', 'BatchNormalization', ['x'], (5,), weights={'scale': scales, 'bias': shifts}, n_in=5)
    graph.layers['bn'].types = {var: UnspecifiedPrecisionType() for var in BN_AUTO}
    infer_precision(graph, context())
    types = graph.layers['bn'].types
    # a batch normalization is a dense layer with one input per output
    as_dense = quantize(scales, types['scale']).raw.reshape(1, 5)
    assert_accumulator_is_exact(
        FixedArray(as_dense, types['scale']), quantize(shifts, types['bias']), source, types['result']
    )


def test_unsigned_input_and_non_negative_weights_give_an_unsigned_sum(build_layer) -> None:
    graph = dense_graph(build_layer, np.full((4, 2), 0.5), np.full(2, 0.25), 'ufixed<8,2>')
    infer_precision(graph, context())
    assert graph.layers['fc'].types['accum'].signed is False


def test_explicit_types_are_left_alone(build_layer) -> None:
    graph = dense_graph(
        build_layer, np.full((4, 2), 0.5), np.zeros(2), weight='fixed<8,2>', accum='fixed<20,9>', result='fixed<10,4>'
    )
    infer_precision(graph, context())
    types = graph.layers['fc'].types
    assert (str(types['weight']), str(types['accum']), str(types['result'])) == (
        'fixed<8,2>',
        'fixed<20,9>',
        'fixed<10,4>',
    )


@pytest.mark.parametrize('maximum', ['fixed<20,8>', 'fixed<12,4>', 'fixed<40,2>'])
def test_maximum_clamps_width_and_integer_bits(build_layer, maximum: str) -> None:
    weights = np.random.default_rng(2).uniform(-3, 3, (16, 4))
    graph = dense_graph(build_layer, weights, np.ones(4))
    unclamped = dense_graph(build_layer, weights, np.ones(4))
    infer_precision(graph, context(maximum))
    infer_precision(unclamped, context())
    limit, inferred, free = parse_precision(maximum), graph.layers['fc'].types['accum'], unclamped.layers['fc'].types
    assert inferred.width == min(free['accum'].width, limit.width)
    assert inferred.integer == min(free['accum'].integer, limit.integer)
    assert free['accum'].width > 20 and free['accum'].integer > 2  # so every case above clamps something


def fits(values: np.ndarray, precision: FixedPrecisionType) -> bool:
    return bool(
        np.array_equal(quantize(values, precision.replace(saturation_mode='SAT')).raw, quantize(values, precision).raw)
    )


@pytest.mark.parametrize(
    'values',
    [
        np.array([-0.7, 0.8, 0.1]),
        np.array([0.5, 0.25]),
        np.array([-1.0, 0.3]),
        np.array([0.001, -0.003]),
        np.array([12.5, -100.0, 3.0]),
        np.array([1.0, 2.0, 4.0]),
        np.array([-0.5]),
    ],
)
def test_auto_weights_get_the_default_width_and_just_enough_integer_bits(build_layer, values) -> None:
    graph = dense_graph(build_layer, values.reshape(-1, 1), values[:1])
    default = FixedPrecisionType(12, 4)
    infer_precision(graph, context(default=default))
    weight_type = graph.layers['fc'].types['weight']
    assert weight_type.width == default.width
    assert weight_type.signed == bool((values < 0).any())
    assert fits(values, weight_type)
    assert not fits(values, weight_type.replace(integer=weight_type.integer - 1))


@pytest.mark.parametrize(
    'kind, attributes, weights, variable',
    [
        ('PReLU', {}, {'alpha': np.array([0.25, -3.0, 0.5, 0.1])}, 'param'),
        ('ParametrizedActivation', {'activation': 'leaky_relu', 'activ_param': 0.3}, {}, 'param'),
        ('ParametrizedActivation', {'activation': 'elu', 'activ_param': 1.7}, {}, 'param'),
        ('HardActivation', {'activation': 'hard_sigmoid', 'slope': 1 / 6, 'shift': 0.5}, {}, 'param'),
    ],
)
def test_auto_parameters_hold_their_values(build_layer, kind, attributes, weights, variable) -> None:
    graph = Graph()
    build_layer(graph, 'x', 'Input', (), (4,), types={'result': 'fixed<16,6>'}, shape=(4,))
    build_layer(graph, 'act', kind, ['x'], (4,), weights=weights, n_in=4, **attributes)
    graph.layers['act'].types = {var: UnspecifiedPrecisionType() for var in ('result', 'param', 'table')}
    infer_precision(graph, context())
    values = weights.get('alpha', np.array([attributes.get(key, 0.0) for key in ('activ_param', 'slope', 'shift')]))
    precision = graph.layers['act'].types[variable]
    assert precision.width == DEFAULT.width and fits(values, precision)
    assert not any(isinstance(value, UnspecifiedPrecisionType) for value in graph.layers['act'].types.values())


def test_no_auto_type_survives_and_activations_take_the_default(build_layer) -> None:
    graph = dense_graph(build_layer, np.full((4, 3), 0.5), np.zeros(3))
    build_layer(graph, 'act', 'Activation', ['fc'], (3,), types={'result': 'auto', 'table': 'auto'}, activation='relu')
    graph.outputs = ['act']
    infer_precision(graph, context())
    for layer in graph.layers.values():
        assert all(isinstance(value, FixedPrecisionType) for value in layer.types.values()), layer.name
    assert graph.layers['act'].types['result'] == DEFAULT


@pytest.mark.parametrize('result, expected', [('auto', 'fixed<2,2>'), ('fixed<8,3>', 'fixed<8,3>')])
def test_bipolar_result_is_exactly_plus_or_minus_one(build_layer, result: str, expected: str) -> None:
    graph = dense_graph(build_layer, np.full((4, 3), 0.5), np.zeros(3))
    build_layer(graph, 'act', 'Activation', ['fc'], (3,), types={'result': result}, activation='bipolar', n_in=3)
    graph.outputs = ['act']
    infer_precision(graph, context())
    assert graph.layers['act'].types['result'] == parse_precision(expected)


@pytest.fixture(scope='module')
def dense_softmax() -> keras.Model:
    keras.utils.set_random_seed(3)
    inputs = keras.Input((8,), name='x')
    hidden = keras.layers.Dense(16, activation='relu', name='fc1')(inputs)
    return keras.Model(inputs, keras.layers.Dense(5, activation='softmax', name='fc2')(hidden))


def test_dense_before_softmax_gets_a_wide_type_and_the_softmax_still_works(dense_softmax, tmp_path) -> None:
    config = config_from_keras_model(dense_softmax, granularity='name')
    hls_model = convert_from_keras_model(
        dense_softmax, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config
    )
    logits_type = hls_model.graph.layers['fc2'].types['result']
    assert logits_type.width > DEFAULT.width
    x = np.random.default_rng(6).uniform(-2, 2, (64, 8))
    (outputs,), _ = interpret(hls_model, x)
    expected = keras.ops.convert_to_numpy(dense_softmax(x.astype(np.float32)))
    np.testing.assert_allclose(outputs.value, expected, atol=0.02)
    np.testing.assert_allclose(outputs.value.sum(axis=1), 1.0, atol=0.02)


# ---- validate_reuse_factor --------------------------------------------------------------------------


def spec_rule(n_in: int, n_out: int, reuse: int) -> bool:
    """API spec section 5.4, as written there."""
    total = n_in * n_out
    if total % reuse:
        return False
    if not (reuse < n_in or reuse % n_in == 0):
        return False
    return math.ceil(total / min(n_in, reuse)) % n_out == 0 or reuse >= n_in


@pytest.mark.parametrize('n_in', range(1, 9))
@pytest.mark.parametrize('n_out', range(1, 9))
def test_valid_reuse_factors_follow_the_spec(n_in: int, n_out: int) -> None:
    expected = [reuse for reuse in range(1, n_in * n_out + 1) if spec_rule(n_in, n_out, reuse)]
    assert valid_reuse_factors(n_in, n_out) == expected


def test_valid_reuse_factors_of_a_4x3_dense() -> None:
    assert valid_reuse_factors(4, 3) == [1, 2, 4, 12]


def rf_graph(build_layer, strategy: str, reuse_factor: int) -> Graph:
    graph = dense_graph(build_layer, np.ones((4, 3)), np.zeros(3))
    graph.layers['fc'].attributes.update(strategy=strategy, reuse_factor=reuse_factor)
    return graph


@pytest.mark.parametrize('requested, chosen', [(3, 2), (5, 4), (6, 4), (8, 4), (9, 12), (100, 12)])
def test_resource_reuse_factor_is_snapped_with_a_warning(build_layer, requested: int, chosen: int) -> None:
    graph = rf_graph(build_layer, 'resource', requested)
    with pytest.warns(UserWarning) as records:
        validate_reuse_factor(graph, context())
    assert graph.layers['fc'].attributes['reuse_factor'] == chosen
    (message,) = [str(record.message) for record in records]
    assert f'ReuseFactor {requested} is not valid' in message and f'using {chosen} instead' in message
    assert "'fc'" in message and '4x3' in message


@pytest.mark.parametrize('strategy, reuse_factor', [('resource', 4), ('resource', 12), ('latency', 5), ('latency', 12)])
def test_acceptable_reuse_factors_stay_without_a_warning(build_layer, strategy: str, reuse_factor: int) -> None:
    graph = rf_graph(build_layer, strategy, reuse_factor)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        validate_reuse_factor(graph, context())
    assert graph.layers['fc'].attributes['reuse_factor'] == reuse_factor


def test_latency_reuse_factor_above_the_multiplications_is_lowered(build_layer) -> None:
    graph = rf_graph(build_layer, 'latency', 50)
    with pytest.warns(UserWarning, match='ReuseFactor 50 is not valid.*using 12 instead'):
        validate_reuse_factor(graph, context())
    assert graph.layers['fc'].attributes['reuse_factor'] == 12


def test_reuse_factor_is_snapped_through_the_converter(tmp_path) -> None:
    inputs = keras.Input((4,), name='x')
    model = keras.Model(inputs, keras.layers.Dense(3, name='fc')(inputs))
    hls_config = {'LayerName': {'fc': {'Strategy': 'Resource', 'ReuseFactor': 5}}}
    with pytest.warns(UserWarning, match='using 4 instead'):
        hls_model = convert_from_keras_model(
            model, output_dir=str(tmp_path / 'p'), backend='Vitis', hls_config=hls_config
        )
    assert hls_model.graph.layers['fc'].attributes['reuse_factor'] == 4
    assert any('using 4 instead' in message for message in hls_model.context.warnings)


# ---- the flow ---------------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def tiny_model() -> keras.Model:
    inputs = keras.Input((4,), name='x')
    return keras.Model(inputs, keras.layers.Dense(3, activation='relu', name='fc')(inputs))


@pytest.mark.parametrize('value, sections', [('1', len(CONVERT_FLOW)), ('0', 0), ('', 0)])
def test_dump_switch_prints_one_section_per_pass(tiny_model, tmp_path, monkeypatch, capsys, value, sections) -> None:
    monkeypatch.setenv('HLS4ML_DUMP_PASSES', value)
    convert_from_keras_model(tiny_model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    printed = capsys.readouterr().out
    headers = [line for line in printed.splitlines() if line.startswith('--- after ')]
    assert headers == [f'--- after {name} ---' for name, _ in CONVERT_FLOW][:sections]
    if sections:
        section = printed.split('--- after ')[1]
        assert 'fc_relu' in section and 'Dense' in section


def test_flow_returns_the_applied_pass_names(tiny_model, tmp_path) -> None:
    hls_model = convert_from_keras_model(tiny_model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    assert hls_model.applied_passes == [name for name, _ in CONVERT_FLOW]


def test_a_failing_pass_is_named_in_the_error(build_layer) -> None:
    def refuse(graph: Graph, context: Any) -> None:
        raise ValueError("layer 'fc' (Dense): cannot do it")

    graph = dense_graph(build_layer, np.ones((4, 3)), np.zeros(3))
    with pytest.raises(ValueError, match=r"^pass refuse_it: layer 'fc' \(Dense\): cannot do it"):
        run_flow(graph, context(), flow=(('refuse_it', refuse),), dump=False)


@pytest.mark.parametrize(
    'padding, accum, result',
    [('valid', 'fixed<12,5>', 'fixed<10,3>'), ('same', 'fixed<10,5>', 'fixed<8,3>')],
)
def test_average_of_a_power_of_two_window_is_exact_without_padding(padding, accum, result, tmp_path):
    """2x2 windows of fixed<8,3>: the sum needs 2 more integer bits and, divided by 4, 2 more fraction
    bits; with padding the count varies at the edges, so the result stays the input type."""
    model = keras.Sequential([keras.Input((5, 5, 1)), keras.layers.AveragePooling2D(2, padding=padding, name='pool')])
    config = {'Model': {'Precision': 'fixed<8,3>'}, 'LayerName': {'pool': {'Precision': 'auto'}}}
    hls_model = convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path), backend='Vitis')
    pool = hls_model.graph.layers['pool']
    assert (str(pool.types['accum']), str(pool.types['result'])) == (accum, result)
    x = quantize(np.random.default_rng(2).uniform(-4, 4, (20, 5, 5, 1)), 'fixed<8,3>', 'ap').to_double()
    (out,), _ = interpret(hls_model, x)
    if padding == 'valid':  # exact: the mean of the four quantized inputs
        expected = x[:, :4, :4, 0].reshape(20, 2, 2, 2, 2).mean(axis=(2, 4))
        np.testing.assert_array_equal(out.to_double().reshape(20, 2, 2), expected)
