"""QONNX quantizers with float scales, zero points, per-channel scales and every rounding mode, without
compiling: the IR the integer domain builds (rescales, integer weights, exact types), the bound of
`rescale.py`, the emulator against qonnx's execution, and the refusals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from onnx_graphs import OnnxGraph, channels_last, run_qonnx

import hls4ml
from hls4ml.converters.builder import ConversionError
from hls4ml.converters.onnx import parse_onnx_model
from hls4ml.converters.onnx import rescale as math_of
from hls4ml.converters.onnx.integer_domain import BOUND_ATTRIBUTE
from hls4ml.model.interpreter import interpret
from hls4ml.model.types import FixedPrecisionType

INPUT_TYPE = 'fixed<16,6>'  # holds the 2^-6 grid below exactly
COUNT = 256  # samples per unit test (the models are exported with this batch)
# qonnx 1.0 executes these (Brevitas' ROUND_TO_ZERO, converted as DOWN, is not among them)
ROUNDING_MODES = ('ROUND', 'HALF_EVEN', 'FLOOR', 'CEIL', 'DOWN', 'HALF_UP', 'HALF_DOWN')


def convert(model, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        config = hls4ml.utils.config_from_onnx_model(model, granularity='name', default_precision=INPUT_TYPE)
        return hls4ml.converters.convert_from_onnx_model(
            model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
        )


def emulated(model, tmp_path, x: np.ndarray) -> np.ndarray:
    (result,), _ = interpret(convert(model, tmp_path), x)
    return result.to_double()


def expected(model, x: np.ndarray) -> np.ndarray:
    (values,) = run_qonnx(model, {'x': x.astype(np.float32)})
    return channels_last(values)


def grid(shape: tuple[int, ...], count: int = COUNT, seed: int = 0, spread: float = 4.0) -> np.ndarray:
    """Multiples of 2^-6: exact in the input type, and many ties for power-of-two scales."""
    return np.round(np.random.default_rng(seed).uniform(-spread, spread, (count, *shape)) * 64) / 64


def layers(model) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        graph, _ = parse_onnx_model(model)
    return graph.layers


def assert_within_one_lsb(result: np.ndarray, reference: np.ndarray, scale: float) -> None:
    """The integers (value / scale) at most 1 apart and almost all equal (qonnx rounds in float32)."""
    difference = np.abs(np.round(result / scale) - np.round(reference / scale))
    assert difference.max() <= 1
    assert np.mean(difference == 0) >= 0.99


# ---- the bound (rescale.py) ------------------------------------------------------------------------
def test_multiplier_has_enough_significant_bits_for_its_reach() -> None:
    factor = math_of.multiplier(np.array([0.3]), np.array([0.7]), reach=129.0, carried_error=0.0)
    significant = math.ceil(math.log2(129)) + math_of.GUARD_BITS + 1
    assert factor.constant.relative_error <= 2.0**-significant
    assert not factor.exact
    assert factor.bound == pytest.approx(129 * factor.constant.relative_error)
    assert factor.bound <= 2.0 ** -(math_of.GUARD_BITS + 1)
    assert abs(float(factor.constant.values[0]) - 3 / 7) <= 3 / 7 * 2.0**-significant


def test_a_dyadic_ratio_is_exact_and_has_no_bound() -> None:
    factor = math_of.multiplier(np.array([0.375, 0.75]), np.array([0.5, 0.5]), reach=129.0, carried_error=0.0)
    assert factor.exact and factor.bound == 0
    assert list(factor.constant.values) == [0.75, 1.5]
    assert factor.constant.precision == FixedPrecisionType(3, 1, False)


def test_the_carried_error_of_a_float_bias_adds_to_the_bound() -> None:
    factor = math_of.multiplier(np.array([0.5]), np.array([0.25]), reach=129.0, carried_error=1e-4)
    assert not factor.exact
    assert factor.bound == pytest.approx(2 * 1e-4)


def test_reach_counts_from_the_zero_point() -> None:
    assert math_of.quantizer_reach(0, 255, np.array(0.0)) == 256
    assert math_of.quantizer_reach(0, 255, np.array([10.0, 200.0])) == 246
    assert math_of.quantizer_reach(-128, 127, np.array(0.0)) == 129


# ---- the IR -----------------------------------------------------------------------------------------
def _relu_quant(scale, bits: int = 8, **quant) -> object:
    g = OnnxGraph()
    y = g.node('Gemm', [g.quant('x', 0.05, 8), g.quant(g.weights(4, 6), 0.02, 8, narrow=1)], name='fc', transB=1)
    return g.model({'x': (6,)}, [g.quant(g.node('Relu', [y], name='relu'), scale, bits, name='act', **quant)], COUNT)


def test_float_scales_make_integer_weights_and_one_rescale(tmp_path) -> None:
    model = _relu_quant(0.07, signed=0)
    with pytest.warns(UserWarning, match=r"'act' \(Quant.*fixed-point multiplier.*LSB of the exact value"):
        parsed = parse_onnx_model(model)[0].layers
    assert parsed['fc'].types['weight'].fractional == 0  # the integers, exactly
    rescale = parsed['act']
    assert rescale.kind == 'BatchNormalization' and rescale.attributes['rescale']
    assert rescale.types['result'] == FixedPrecisionType(8, 8, False, 'RND_CONV', 'SAT')
    assert 0 < rescale.attributes[BOUND_ATTRIBUTE] <= 2.0 ** -(math_of.GUARD_BITS + 1)
    assert parsed['relu'].kind == 'Activation'  # after the quantizer, on its integers
    assert [layer.kind for layer in parsed.values()][-1] == 'BatchNormalization'  # the output dequantized
    x = grid((6,))
    assert_within_one_lsb(emulated(model, tmp_path, x), expected(model, x), 0.07)


def test_a_rescale_is_never_folded_into_the_integer_weights(tmp_path) -> None:
    g = OnnxGraph()
    y = g.node('MatMul', [g.quant('x', 0.05, 8), g.quant(g.weights(6, 4), 0.02, 8)], name='fc')
    model = g.model({'x': (6,)}, [g.quant(y, 0.3, 8, name='act')], COUNT)
    hls_model = convert(model, tmp_path)
    assert hls_model.graph.layers['act'].kind == 'BatchNormalization'
    assert hls_model.graph.layers['fc'].types['weight'].fractional == 0


def test_float_scaled_weights_on_a_plain_input_are_exact(tmp_path) -> None:
    """A float32 scale times integers is exact in 24 significant bits: no rescale, no warning."""
    g = OnnxGraph()
    model = g.model({'x': (5,)}, [g.node('MatMul', ['x', g.quant(g.weights(5, 3), 0.3, 4)], name='fc')], COUNT)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        hls_model = convert(model, tmp_path)
    assert hls_model.graph.layers['fc'].types['weight'].fractional == 0
    x = grid((5,))
    np.testing.assert_allclose(emulated(model, tmp_path, x), expected(model, x), rtol=1e-6, atol=1e-6)


def test_an_exact_ratio_of_float_scales_is_silent_and_exact(tmp_path) -> None:
    """0.6f is exactly 2 * 0.3f: the second rescale multiplies by 1/2, silently, with no bound; the
    Relu between the quantizers is applied after the second, on its integers."""
    g = OnnxGraph()
    y = g.quant(g.node('Relu', [g.quant('x', 0.3, 8, name='first')], name='relu'), 0.6, 6, signed=0, name='second')
    model = g.model({'x': (8,)}, [y], COUNT)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        parsed = parse_onnx_model(model)[0].layers
    assert [str(warning.message)[:7] for warning in caught] == ["'first'"]  # 1 / 0.3f is bounded
    assert parsed['second'].attributes[BOUND_ATTRIBUTE] == 0
    assert list(parsed)[-2:] == ['relu', 'second_dequantize']
    x = grid((8,), spread=30)
    (result,), per_layer = interpret(convert(model, tmp_path), x)
    first = per_layer['first'].to_double()
    np.testing.assert_array_equal(per_layer['relu'].to_double(), np.clip(np.round(np.maximum(first, 0) / 2), 0, 63))
    # qonnx computes q * 0.3f / 0.6f in float32, which misses some exact ties q / 2 = k + 1/2 by an ulp
    assert np.abs(np.round(result.to_double() / 0.6) - np.round(expected(model, x) / 0.6)).max() <= 1


# ---- rounding, zero points, ranges -------------------------------------------------------------------
@pytest.mark.parametrize('mode', ROUNDING_MODES)
def test_every_rounding_mode_with_a_zero_point_is_exact(mode: str, tmp_path) -> None:
    """A power-of-two scale with a zero point (integer domain, exact): ties on every grid point."""
    g = OnnxGraph()
    model = g.model({'x': (8,)}, [g.quant('x', 0.25, 5, signed=0, zero_point=7.0, rounding=mode, name='q')], COUNT)
    x = grid((8,), spread=6)
    np.testing.assert_array_equal(emulated(model, tmp_path, x), expected(model, x))


@pytest.mark.parametrize('mode', ROUNDING_MODES)
def test_every_rounding_mode_with_a_float_scale(mode: str, tmp_path) -> None:
    g = OnnxGraph()
    model = g.model({'x': (8,)}, [g.quant('x', 0.0714, 6, narrow=1, rounding=mode, name='q')], COUNT)
    x = grid((8,), spread=3)
    assert_within_one_lsb(emulated(model, tmp_path, x), expected(model, x), 0.0714)


def test_per_channel_zero_points_and_scales_of_weights_and_activations(tmp_path) -> None:
    g = OnnxGraph(seed=4)
    weight_scale = np.array([[0.011], [0.02], [0.013], [0.03]], dtype=np.float32)
    weight_zero = np.array([[0.0], [3.0], [-2.0], [1.0]], dtype=np.float32)
    weights = g.quant(
        g.weights(4, 3, 3, 3), weight_scale.reshape(4, 1, 1, 1), 8, zero_point=weight_zero.reshape(4, 1, 1, 1)
    )
    x = g.quant('x', 0.043, 8, signed=0, zero_point=np.float32(100))
    y = g.node('Conv', [x, weights, g.weights(4)], pads=[1] * 4, name='conv')
    act_scale = np.array([0.1, 0.2, 0.15, 0.05], dtype=np.float32).reshape(1, 4, 1, 1)
    act_zero = np.array([10, 20, 30, 40], dtype=np.float32).reshape(1, 4, 1, 1)
    y = g.quant(y, act_scale, 8, signed=0, zero_point=act_zero, name='act')
    model = g.model({'x': (3, 5, 5)}, [g.node('MaxPool', [y], kernel_shape=[2, 2], strides=[1, 1])], COUNT)
    parsed = layers(model)
    assert parsed['act_zero_point'].kind == 'BatchNormalization'  # q - z, exactly
    values = grid((3, 5, 5), spread=5)
    result, reference = emulated(model, tmp_path, values), expected(model, values)
    per_channel = np.broadcast_to(act_scale.reshape(-1), result.reshape(COUNT, -1, 4).shape).reshape(
        COUNT, -1
    )  # (4, 4, C)
    difference = np.abs(np.round(result / per_channel) - np.round(reference / per_channel))
    assert difference.max() <= 1 and np.mean(difference == 0) >= 0.99


def test_round_to_zero_is_down() -> None:
    """Brevitas' name for qonnx's DOWN (qonnx 1.0 itself cannot execute it)."""
    g = OnnxGraph()
    model = g.model({'x': (4,)}, [g.quant(g.quant('x', 0.3, 8), 0.7, 5, rounding='ROUND_TO_ZERO', name='q')], COUNT)
    assert layers(model)['q'].types['result'] == FixedPrecisionType(5, 5, True, 'TRN_ZERO', 'SAT')


@pytest.mark.parametrize('second_scale', [0.05, 0.11])
def test_adding_tensors_of_equal_and_of_different_scales(second_scale: float, tmp_path) -> None:
    """Equal scales add their integers; different ones are dequantized first (exact for float32 scales)."""
    g = OnnxGraph()
    total = g.node(
        'Add', [g.quant('x', 0.05, 8), g.quant(g.node('Relu', ['x']), second_scale, 6, signed=0)], name='add'
    )
    model = g.model({'x': (8,)}, [g.quant(total, 0.13, 8, name='q')], COUNT)
    parsed = layers(model)
    assert ('add_dequantize' in parsed) == (second_scale != 0.05)
    x = grid((8,))
    assert_within_one_lsb(emulated(model, tmp_path, x), expected(model, x), 0.13)


def test_a_bipolar_quantizer_with_a_float_scale(tmp_path) -> None:
    g = OnnxGraph()
    y = g.bipolar(g.node('MatMul', [g.quant('x', 0.05, 8), g.quant(g.weights(6, 5), 0.021, 8)]), scale=0.37, name='b')
    model = g.model({'x': (6,)}, [y], COUNT)
    assert layers(model)['b'].attributes['activation'] == 'bipolar'
    x = grid((6,))
    np.testing.assert_array_equal(emulated(model, tmp_path, x), expected(model, x))  # sign(integers) * 0.37f


def test_trunc_of_an_input_scale_that_is_no_power_of_two_of_its_tensor(tmp_path) -> None:
    """The Trunc's input scale (0.07) differs from its tensor's (0.05): a rescale rounds to it first."""
    g = OnnxGraph()
    y = g.trunc(g.quant('x', 0.05, 8), 0.07, 8, 0.28, 6, rounding='FLOOR')
    model = g.model({'x': (8,)}, [y], COUNT)
    x = grid((8,), spread=6)
    assert_within_one_lsb(emulated(model, tmp_path, x), expected(model, x), 0.28)


def test_unquantized_weights_read_their_input_dequantized() -> None:
    """Float weights are rounded by their configured type, outside the integer domain's bound."""
    g = OnnxGraph()
    model = g.model({'x': (4,)}, [g.node('MatMul', [g.quant('x', 0.3, 8), g.weights(4, 3)], name='fc')], COUNT)
    parsed = layers(model)
    assert parsed['fc_dequantize'].kind == 'BatchNormalization' and 'weight' not in parsed['fc'].types


def test_an_op_without_integer_form_reads_its_input_dequantized() -> None:
    """A scale of float32 scales' product (more than 24 significant bits) is applied with a warning."""
    g = OnnxGraph()
    y = g.node('MatMul', [g.quant('x', 0.3, 8), g.quant(g.weights(4, 4), 0.07, 8)], name='fc')
    model = g.model({'x': (4,)}, [g.node('Sigmoid', [y], name='sigmoid')], COUNT)
    with pytest.warns(UserWarning, match=r"'sigmoid' \(Sigmoid.*no integer-domain form.*relative error"):
        parsed = parse_onnx_model(model)[0].layers
    assert parsed['sigmoid_dequantize'].kind == 'BatchNormalization'


# ---- refusals ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    'quant, message',
    [
        ({'scale': 0.3, 'bits': 4, 'rounding': 'UP'}, "'UP' has no fixed-point equivalent"),
        ({'scale': 0.3, 'bits': 4, 'signed': 0, 'narrow': 1}, 'narrow unsigned'),
        ({'scale': -0.3, 'bits': 4}, 'must be positive'),
        ({'scale': np.linspace(0.1, 0.4, 16).reshape(4, 4).astype(np.float32), 'bits': 4}, 'other than the channels'),
    ],
)
def test_quantizers_without_an_integer_form_are_refused(quant: dict, message: str) -> None:
    g = OnnxGraph()
    model = g.model({'x': (4, 4)}, [g.quant(g.node('Relu', ['x'], name='relu'), name='q', **quant)], COUNT)
    with pytest.raises(ConversionError, match=rf"'q' \(Quant.*{message}"):
        layers(model)


def test_a_bipolar_quantizer_after_a_relu_is_refused() -> None:
    g = OnnxGraph()
    y = g.node('Relu', [g.node('MatMul', [g.quant('x', 0.05, 8), g.quant(g.weights(4, 4), 0.03, 8)])])
    model = g.model({'x': (4,)}, [g.quant(y, 1.0, 1, name='sign')], COUNT)
    with pytest.raises(ConversionError, match="'sign'.*bipolar quantizer after a Relu"):
        layers(model)


def test_a_trunc_of_per_channel_scales_is_refused() -> None:
    g = OnnxGraph()
    x = g.quant('x', np.array([0.1, 0.2], dtype=np.float32).reshape(1, 2, 1, 1), 8)
    model = g.model({'x': (2, 4, 4)}, [g.trunc(x, 0.1, 8, 0.4, 6)], COUNT)
    with pytest.raises(ConversionError, match='Trunc of a tensor with per-channel'):
        layers(model)


def test_a_float_scaled_constant_without_integer_form_is_refused() -> None:
    """Weight scales along the input axis leave no integer product; no type holds q * s exactly."""
    g = OnnxGraph()
    per_input = np.linspace(0.1, 0.5, 6, dtype=np.float32).reshape(6, 1)
    model = g.model({'x': (6,)}, [g.node('MatMul', ['x', g.quant(g.weights(6, 3), per_input, 8)], name='fc')], COUNT)
    with pytest.raises(ConversionError, match=r"'fc' \(MatMul.*quantized with a float scale"):
        layers(model)
