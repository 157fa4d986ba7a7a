"""The numpy reference kernels (hls4ml/model/reference) against float math, within their precision."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hls4ml.model import reference, tables
from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference.arrays import take
from hls4ml.model.types import parse_precision

RNG = np.random.default_rng(7)
T16 = 'fixed<16,6>'
FINE = 'fixed<32,10>'  # a result type fine enough not to matter in tolerances


def _random(precision: str, shape: tuple[int, ...], family: str = 'ap') -> FixedArray:
    kind = parse_precision(precision)
    return FixedArray.from_raw(RNG.integers(kind.raw_min, kind.raw_max, size=shape, endpoint=True), kind, family)


def _lsb(precision: str) -> float:
    return 2.0 ** -parse_precision(precision).fractional


# ---- dense ------------------------------------------------------------------------------------------


def test_dense_with_a_wide_accumulator_is_exact() -> None:
    x, weights, biases = _random(T16, (20, 7)), _random('fixed<8,2>', (7, 5)), _random('fixed<8,2>', (5,))
    got = reference.dense(x, weights, biases, 'fixed<40,16>', 'fixed<40,16>')
    assert np.array_equal(got.value, x.value @ weights.value + biases.value)
    truncated = reference.dense(x, weights, biases, 'fixed<40,16>', 'fixed<20,12>').value
    difference = (x.value @ weights.value + biases.value) - truncated
    assert np.all((difference >= 0) & (difference < _lsb('fixed<20,12>')))


def _resource_order_dense(x, weights, biases, accum, result, reuse_factor):
    """The C++ Resource loop, element by element: step s handles weights s*block .. s*block+block-1."""
    n_in, n_out = weights.shape
    block = math.ceil(n_in * n_out / reuse_factor)
    acc = [take(biases, j).cast(accum) for j in range(n_out)]
    for step in range(reuse_factor):
        for k in range(step * block, min((step + 1) * block, n_in * n_out)):
            i, j = divmod(k, n_out)
            acc[j] = (acc[j] + take(x, (slice(None), i)) * take(weights, (i, j))).cast(accum)
    raw = np.stack([column.cast(result).raw for column in acc], axis=1)
    return FixedArray.from_raw(raw, result, x.family)


@pytest.mark.parametrize('accum', ['fixed<10,4,RND,SAT>', 'fixed<14,5,RND_CONV,SAT>', 'fixed<12,3>'])
def test_reuse_factor_does_not_change_results(accum: str) -> None:
    """Every reuse factor visits each output's inputs in increasing order, as the Latency strategy."""
    x, weights, biases = _random('ufixed<6,2>', (30, 6)), _random('fixed<4,1>', (6, 4)), _random('fixed<6,2>', (4,))
    expected = reference.dense(x, weights, biases, accum, 'fixed<8,3,RND,SAT>')
    for reuse_factor in range(1, 6 * 4 + 1):
        got = _resource_order_dense(x, weights, biases, accum, 'fixed<8,3,RND,SAT>', reuse_factor)
        assert np.array_equal(got.raw, expected.raw), reuse_factor


def test_dense_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match='do not match'):
        reference.dense(_random(T16, (2, 3)), _random(T16, (4, 2)), _random(T16, (2,)), FINE, T16)


# ---- activations without tables ---------------------------------------------------------------------


def test_piecewise_linear_activations() -> None:
    x = _random(T16, (50, 8))
    value, param = x.value, 'fixed<18,2,RND,SAT>'
    alpha = quantize(0.3, param).value
    assert np.array_equal(reference.linear(x, FINE).value, value)
    assert np.array_equal(reference.relu(x, FINE).value, np.maximum(value, 0))
    assert np.array_equal(
        reference.leaky_relu(x, 0.3, param, 'fixed<40,12>').value, np.where(value > 0, value, alpha * value)
    )
    assert np.array_equal(reference.thresholded_relu(x, 0.3, param, FINE).value, np.where(value > alpha, value, 0))
    slopes = _random(param, (8,))
    assert np.array_equal(
        reference.prelu(x, slopes, 'fixed<40,12>').value, np.where(value > 0, value, slopes.value * value)
    )


def test_hard_sigmoid_keras3() -> None:
    x = quantize(np.array([[-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 4.0]]), T16)
    got = reference.hard_sigmoid(x, 1 / 6, 0.5, 'fixed<18,2,RND>', 'fixed<18,2>').value
    expected = np.clip(x.value / 6 + 0.5, 0, 1)
    assert np.all(np.abs(got - expected) <= 4 * 2.0**-16) and got[0, 0] == 0 and got[0, -1] == 1


def test_hard_swish_is_x_times_the_hard_sigmoid_gate_at_full_precision() -> None:
    x = quantize(np.array([[-4.0, -3.0, -1.5, 0.0, 0.75, 3.0, 4.0]]), T16)
    got = reference.hard_swish(x, 1 / 6, 0.5, 'fixed<18,2,RND>', 'fixed<40,12>').value
    gate = quantize(np.float64(1 / 6), 'fixed<18,2,RND>').value * x.value + 0.5
    assert np.array_equal(got, x.value * np.clip(gate, 0, 1))  # every product fits fixed<40,12> exactly
    assert got[0, 0] == 0 and got[0, -1] == 4.0


def test_clipped_relu_caps_at_the_ceiling_written_into_param() -> None:
    x = quantize(np.array([[-2.0, 0.0, 1.5, 5.99, 6.0, 7.25]]), T16)
    got = reference.clipped_relu(x, 6.0, 'fixed<8,4>', T16).value
    assert got.tolist() == [[0.0, 0.0, 1.5, x.value[0, 3], 6.0, 6.0]]
    narrow = reference.clipped_relu(x, 1.3, 'fixed<4,2>', T16).value  # the ceiling as fixed<4,2> holds it: 1.25
    assert narrow.tolist() == [[0.0, 0.0, 1.25, 1.25, 1.25, 1.25]]


def test_relu_of_an_unsigned_narrow_type_into_a_saturating_result() -> None:
    x = quantize(np.array([[0.0, 1.75, 3.75]]), 'ufixed<4,2>')
    assert reference.relu(x, 'fixed<4,2,RND,SAT>').value.tolist() == [[0.0, 1.75, 1.75]]


@pytest.mark.parametrize('family', ['ap', 'ac'])
def test_bipolar_is_the_sign_with_zero_positive(family: str) -> None:
    x = _random(T16, (50, 8), family)
    assert np.array_equal(reference.bipolar(x, 'fixed<2,2>').value, np.where(x.value >= 0, 1.0, -1.0))
    edges = FixedArray.from_raw(np.array([[-2, -1, 0, 1, 2]]), T16, family)  # around 0 by one LSB
    assert reference.bipolar(edges, 'fixed<2,2>').value.tolist() == [[-1, -1, 1, 1, 1]]


@pytest.mark.parametrize(
    'result, expected',
    [('ufixed<3,2>', [3.0, 1.0]), ('ufixed<3,2,RND,SAT>', [0.0, 1.0]), ('fixed<4,-1,RND,SAT>', [-0.25, 0.21875])],
)
def test_bipolar_writes_its_constants_like_any_write(result: str, expected: list[float]) -> None:
    """-1 into an unsigned type wraps or saturates, +1 into a too-narrow type saturates."""
    x = quantize(np.array([[-0.5, 0.5]]), T16)
    assert reference.bipolar(x, result).value.tolist() == [expected]


def test_batch_normalization_per_channel() -> None:
    x, scale, bias = _random(T16, (10, 8)), _random('fixed<10,3>', (4,)), _random('fixed<8,2>', (4,))
    got = reference.normalize(x, scale, bias, 'fixed<40,16>').value
    assert np.array_equal(got, x.value * np.tile(scale.value, 2) + np.tile(bias.value, 2))


# ---- table activations ------------------------------------------------------------------------------

SLOPES = {'sigmoid': 0.25, 'tanh': 1.0, 'softsign': 1.0, 'softplus': 1.0, 'elu': 1.0, 'selu': 1.76}
FLOAT = {
    'sigmoid': lambda v: 1 / (1 + np.exp(-v)),
    'tanh': np.tanh,
    'softsign': lambda v: v / (1 + np.abs(v)),
    'softplus': lambda v: np.logaddexp(0, v),
    'elu': lambda v: np.where(v > 0, v, np.expm1(v)),
    'selu': lambda v: tables.SELU_SCALE * np.where(v > 0, v, tables.SELU_ALPHA * np.expm1(v)),
}


def _apply(function: str, x: FixedArray, spec: tables.TableSpec, result: str) -> FixedArray:
    if function == 'elu':
        return reference.elu(x, 1.0, 'fixed<18,2>', spec, result)
    if function == 'selu':
        return reference.selu(x, 'fixed<24,2,RND>', spec, result)
    return getattr(reference, function)(x, spec, result)


@pytest.mark.parametrize('function', list(FLOAT))
@pytest.mark.parametrize('input_type', [T16, 'fixed<38,18>', 'fixed<8,3>'])
def test_table_activations_follow_the_function(function: str, input_type: str) -> None:
    table_type = 'fixed<18,5,RND,SAT>'
    spec = tables.activation_table(function, input_type, table_type, 1024)
    x = _random(input_type, (40, 25))
    if input_type == 'fixed<38,18>':
        x = x >> 14  # keep most values where the function is interesting
    got = _apply(function, x, spec, FINE).value
    tolerance = spec.step * SLOPES[function] + 2 * _lsb(table_type) + 2 * _lsb(FINE) + 2.0**-20
    if function == 'softsign':
        tolerance += 1 / (1 + spec.hi)  # the limit +-1 is used beyond the table
    error = np.abs(got - FLOAT[function](x.value))
    assert error.max() <= tolerance, (error.max(), tolerance)


def test_inputs_on_the_table_grid_read_exact_entries() -> None:
    spec = tables.activation_table('tanh', 'fixed<8,3>', 'fixed<18,2,RND,SAT>', 1024)
    x = _random('fixed<8,3>', (10, 10))
    inside = (x.value >= spec.lo) & (x.value < spec.hi)
    got = reference.tanh(x, spec, 'fixed<18,2>').value
    assert np.array_equal(got[inside], quantize(np.tanh(x.value[inside]), 'fixed<18,2,RND,SAT>').value)


# ---- softmax ----------------------------------------------------------------------------------------

SOFTMAX_TABLE = 'fixed<18,8,RND,SAT>'


@pytest.mark.parametrize('implementation', ['stable', 'latency'])
@pytest.mark.parametrize('input_type', [T16, 'fixed<38,18>', 'ufixed<8,4>'])
def test_softmax_is_a_distribution(implementation: str, input_type: str) -> None:
    accum, n_in = 'fixed<24,12,RND,SAT>', 6
    exp_spec, inv_spec = tables.softmax_tables(
        input_type, SOFTMAX_TABLE, SOFTMAX_TABLE, accum, n_in, 1024, implementation
    )
    x = quantize(np.random.default_rng(17).uniform(-3, 3, size=(60, n_in)), input_type)  # its own seed: any order
    kernel = getattr(reference, f'softmax_{implementation}')
    got = kernel(x, exp_spec, inv_spec, accum, 'ufixed<18,0,RND,SAT>').value
    expected = np.exp(x.value - x.value.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    if implementation == 'stable':
        assert np.array_equal(np.argmax(got, axis=1), np.argmax(expected, axis=1))
        assert np.abs(got.sum(axis=1) - 1).max() < 0.06
        assert np.abs(got - expected).max() < 0.05
    else:  # exp saturates above log(max entry), the reciprocal step is coarse (docs/kernels.md)
        assert np.abs(got.sum(axis=1) - 1).max() < 0.75


def test_wide_input_softmax_is_not_uniform() -> None:
    """The hls4ml 1.3.0 bug: a wide input type indexed the table with its top bits, giving 1/N."""
    exp_spec, inv_spec = tables.softmax_tables('fixed<38,18>', SOFTMAX_TABLE, SOFTMAX_TABLE, 'fixed<24,12>', 4)
    x = quantize(np.array([[0.0, 1.0, 2.0, 3.0]]), 'fixed<38,18>')
    got = reference.softmax_stable(x, exp_spec, inv_spec, 'fixed<24,12>', 'ufixed<16,0,RND,SAT>').value[0]
    expected = np.exp([0.0, 1.0, 2.0, 3.0]) / np.exp([0.0, 1.0, 2.0, 3.0]).sum()
    assert np.abs(got - expected).max() < 0.01


def test_argmax_picks_the_first_maximum() -> None:
    x = quantize(np.array([[1.0, 3.0, 3.0, 2.0], [-1.0, -1.0, -1.0, -1.0], [0.0, 0.5, -2.0, 0.5]]), T16)
    got = reference.softmax_argmax(x, 'fixed<8,2>').value
    assert got.tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]


@pytest.mark.parametrize('kernel', ['relu', 'sigmoid', 'softmax'])
def test_both_families_agree_on_fixed_types(kernel: str) -> None:
    results = []
    for family in ('ap', 'ac'):
        x = FixedArray.from_raw(np.arange(-40, 40).reshape(8, 10) * 97, T16, family)
        if kernel == 'relu':
            results.append(reference.relu(x, 'fixed<8,3,RND,SAT>').raw)
        elif kernel == 'sigmoid':
            spec = tables.activation_table('sigmoid', T16, 'ufixed<10,1,RND,SAT>')
            results.append(reference.sigmoid(x, spec, 'fixed<10,1,RND,SAT>').raw)
        else:
            exp_spec, inv_spec = tables.softmax_tables(T16, SOFTMAX_TABLE, SOFTMAX_TABLE, 'fixed<24,12>', 10)
            results.append(reference.softmax_stable(x, exp_spec, inv_spec, 'fixed<24,12>', T16).raw)
    assert np.array_equal(results[0], results[1])


def test_softmax_normalizes_each_row_of_n_slice_values() -> None:
    exp_spec, inv_spec = tables.softmax_tables(T16, SOFTMAX_TABLE, SOFTMAX_TABLE, 'fixed<24,12>', 3)
    x = quantize(RNG.uniform(-2, 2, size=(16, 6)), T16)
    got = reference.softmax_stable(x, exp_spec, inv_spec, 'fixed<24,12>', 'ufixed<18,0,RND,SAT>', n_slice=3).value
    rows = np.exp(x.value.reshape(16, 2, 3))
    assert np.abs(got - (rows / rows.sum(axis=2, keepdims=True)).reshape(16, 6)).max() < 0.02
    hot = reference.softmax_argmax(x, 'fixed<4,2>', n_slice=3).value
    assert hot.reshape(16, 2, 3).sum(axis=2).tolist() == [[1, 1]] * 16
    with pytest.raises(ValueError, match='not rows of n_slice=4'):
        reference.softmax_latency(x, exp_spec, inv_spec, 'fixed<24,12>', T16, n_slice=4)
