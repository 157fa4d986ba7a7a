"""Hand-checked estimates of the clipped relu and the hard swish (docs/estimator.md, activations)."""

from __future__ import annotations

from estimate_models import convert

from hls4ml.converters.builder import GraphBuilder, Origin
from hls4ml.estimate.primitives import Range
from hls4ml.model.graph import ModelGraph


def activation_model(activation: str, **parameters: float) -> ModelGraph:
    """x (4 values of fixed<8,3>) -> the activation (param fixed<8,1>, result fixed<16,6>)."""
    builder = GraphBuilder('full')
    x = builder.input(Origin('x', 'input'), (4,))
    y = builder.activation(Origin('act', 'Activation'), x, activation, **parameters)
    builder.output(y, Origin('y', 'output'))
    types = {'result': 'fixed<16,6>'} | ({'param': 'fixed<8,1>'} if parameters else {})
    return convert(builder, {'act': {'Precision': types}}, precision='fixed<8,3>')


def act_row(model: ModelGraph):
    (row,) = [layer for layer in model.estimate().layers if layer.name == 'act']
    return row


def test_clipped_relu_is_relu_plus_one_comparison_with_the_ceiling_per_value() -> None:
    """relu: 4 x 16 result bits of sign test and multiplexer, 2 LUTs a bit (calibrated) = 128 LUTs; the
    ceiling adds a comparison of the 8 input bits per value: 4 x 8 = 32 more, no multiplier."""
    relu = act_row(activation_model('relu'))
    clipped = act_row(activation_model('clipped_relu', ceiling=6.0))
    assert relu.resources['LUT'] == Range(128, 128)
    assert clipped.resources['LUT'] == Range(160, 160)
    assert clipped.resources['DSP'] == Range(0, 0)


def test_hard_swish_is_the_hard_sigmoid_and_one_variable_product_per_value() -> None:
    """The gate x * slope + shift is 8 + 8 + 1 = 17 bits wide; x * gate is an 8 x 17 product per value,
    one DSP48E2 (27 x 18) each at most, or 8 * 17 / 2 to 8 * 17 = 68 to 136 LUTs each in fabric."""
    sigmoid = act_row(activation_model('hard_sigmoid', slope=1 / 6, shift=0.5))
    swish = act_row(activation_model('hard_swish', slope=1 / 6, shift=0.5))
    assert sigmoid.resources['DSP'] == Range(0, 0)
    assert swish.resources['DSP'] == Range(0, 4)
    assert swish.resources['LUT'].high - sigmoid.resources['LUT'].high == 4 * 136
