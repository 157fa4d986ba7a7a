"""The cap of 'auto' precision (config.DEFAULT_MAXIMUM_PRECISION unless `Precision: {maximum: ...}`):
inferred types never exceed it, and one warning names every layer where it costs exactness."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from hls4ml.converters import convert_from_keras_model  # noqa: E402
from hls4ml.model.config import DEFAULT_MAXIMUM_PRECISION, HLSConfig  # noqa: E402
from hls4ml.model.fixed import quantize  # noqa: E402
from hls4ml.model.ir import Graph  # noqa: E402
from hls4ml.model.passes import PassContext  # noqa: E402
from hls4ml.model.passes.infer_precision import infer_precision  # noqa: E402
from hls4ml.model.types import FixedPrecisionType  # noqa: E402
from hls4ml.utils import config_from_keras_model  # noqa: E402

CAP_WARNING = "'auto' precision is capped"


def linear_mlp() -> keras.Model:
    """The issue's case: four Dense layers without activations, whose exact types grow at every layer."""
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((16,))] + [keras.layers.Dense(n, name=f'fc{n}') for n in (32, 31, 30, 5)])


def convert(model: keras.Model, **options) -> tuple[object, list[str]]:
    config = config_from_keras_model(model, granularity='name', **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        hls_model = convert_from_keras_model(model, hls_config=config, backend='Vitis', check_conversion=False)
    return hls_model, [str(warning.message) for warning in caught if CAP_WARNING in str(warning.message)]


def test_the_default_cap_is_used_when_the_config_names_none() -> None:
    assert HLSConfig({}).maximum == DEFAULT_MAXIMUM_PRECISION == FixedPrecisionType(48, 24)
    assert HLSConfig({'Model': {'Precision': {'maximum': 'fixed<48,20>'}}}).maximum == FixedPrecisionType(48, 20)


def test_auto_types_of_a_linear_mlp_stay_under_the_default_cap_with_one_warning_naming_the_layers() -> None:
    hls_model, messages = convert(linear_mlp())
    for layer in hls_model.get_layers():
        for precision in layer.types.values():
            if isinstance(precision, FixedPrecisionType):
                assert precision.width <= 48 and precision.integer <= 24, f'{layer.name}: {precision}'
    assert len(messages) == 1
    assert all(f"layer '{name}'" in messages[0] for name in ('fc30', 'fc5'))
    assert "layer 'fc32'" not in messages[0]  # its exact accumulator fits
    assert 'needs fixed<' in messages[0] and 'fraction bit(s) fewer' in messages[0]


def test_a_wider_maximum_keeps_every_type_exact_and_silent() -> None:
    hls_model, messages = convert(linear_mlp(), max_precision='fixed<128,64>')
    assert messages == []
    assert max(layer.types['accum'].width for layer in hls_model.get_layers() if layer.kind == 'Dense') > 48


def test_a_cap_that_costs_integer_bits_says_values_may_overflow(build_layer) -> None:
    graph = dense_graph(build_layer, np.full((64, 2), 3.0), 'fixed<16,10>')
    context = PassContext(FixedPrecisionType(16, 6), FixedPrecisionType(32, 12))
    with pytest.warns(UserWarning, match='integer bit') as caught:
        infer_precision(graph, context)
    assert "layer 'fc' (Dense) needs fixed<" in str(caught[0].message)
    assert graph.layers['fc'].types['accum'].integer == 12


def test_a_typical_quantized_layer_fits_under_the_default_cap_exactly(build_layer) -> None:
    """8-bit inputs times 8-bit preset weights over 64 inputs: 16 fraction bits and 11 integer bits."""
    weights = quantize(np.random.default_rng(3).uniform(-1, 1, (64, 8)), 'fixed<8,1>').value
    graph = dense_graph(build_layer, weights, 'fixed<8,3>', weight='fixed<8,1>', bias='fixed<8,1>')
    context = PassContext(FixedPrecisionType(16, 6), DEFAULT_MAXIMUM_PRECISION)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        infer_precision(graph, context)
    accum = graph.layers['fc'].types['accum']
    assert context.capped == [] and accum.fractional == 5 + 7 and accum.width <= 48


def dense_graph(build_layer, weights: np.ndarray, input_type: str, **types: str) -> Graph:
    graph = Graph()
    n_in, n_out = weights.shape
    build_layer(graph, 'x', 'Input', (), (n_in,), types={'result': input_type}, shape=(n_in,))
    auto = {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'}
    build_layer(
        graph,
        'fc',
        'Dense',
        ['x'],
        (n_out,),
        weights={'weight': weights, 'bias': np.zeros(n_out)},
        types={**auto, **types},
        n_in=n_in,
        n_out=n_out,
        trace=False,
    )
    graph.inputs, graph.outputs = ['x'], ['fc']
    return graph


def test_the_default_cap_leaves_a_quantized_layer_exact_and_a_named_maximum_does_not(build_layer) -> None:
    """A quantized layer (types from its frontend's quantizers) whose exact accumulator needs more than
    the default cap: 9-bit integers times 8-bit integer weights over 256 inputs need 24 integer bits, and
    a bias with 26 fraction bits makes 50 bits in all."""
    weights = np.random.default_rng(5).integers(-128, 128, (256, 4)).astype(float)
    graph = dense_graph(build_layer, weights, 'fixed<9,9>', weight='fixed<8,8>', bias='fixed<32,6>')
    graph.layers['fc'].quantized = True
    context = PassContext(FixedPrecisionType(16, 6), DEFAULT_MAXIMUM_PRECISION, maximum_is_default=True)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        infer_precision(graph, context)
    accum = graph.layers['fc'].types['accum']
    assert accum.width > 48 and context.capped == []
    named = dense_graph(build_layer, weights, 'fixed<9,9>', weight='fixed<8,8>', bias='fixed<32,6>')
    named.layers['fc'].quantized = True
    with pytest.warns(UserWarning, match=CAP_WARNING):
        infer_precision(named, PassContext(FixedPrecisionType(16, 6), DEFAULT_MAXIMUM_PRECISION))
    assert named.layers['fc'].types['accum'].width <= 48
