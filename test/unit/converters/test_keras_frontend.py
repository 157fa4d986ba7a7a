"""The Keras 3 frontend: one handler per Keras class, the graph walk, its errors, and layer names.

Handlers are checked by meaning, not by echoing their code: the float function an IR layer stands
for (`float_semantics`) must reproduce what Keras computes on the same inputs.
"""

from __future__ import annotations

import math
import re

import keras
import numpy as np
import pytest

from hls4ml.converters import convert_from_keras_model
from hls4ml.converters.keras import KerasConversionError, parse_keras_model
from hls4ml.model.interpreter import interpret
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.names import CPP_KEYWORDS, MAX_LENGTH, NameTable, sanitize
from hls4ml.model.verify import verify

IDENTIFIER = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
SAMPLES = np.random.default_rng(7).uniform(-3, 3, (64, 4)).astype(np.float32)
SUPPORTED_ACTIVATIONS = {  # Keras activation name -> (IR kind, IR attributes it must carry)
    'linear': ('Activation', {'activation': 'linear'}),
    'relu': ('Activation', {'activation': 'relu'}),
    'sigmoid': ('Activation', {'activation': 'sigmoid'}),
    'tanh': ('Activation', {'activation': 'tanh'}),
    'softplus': ('Activation', {'activation': 'softplus'}),
    'softsign': ('Activation', {'activation': 'softsign'}),
    'elu': ('ParametrizedActivation', {'activation': 'elu', 'activ_param': 1.0}),  # alpha 1 for the kernel
    'selu': ('Activation', {'activation': 'selu'}),
    'softmax': ('Softmax', {'axis': -1}),
    'leaky_relu': ('ParametrizedActivation', {'activation': 'leaky_relu'}),
    'hard_sigmoid': ('HardActivation', {'activation': 'hard_sigmoid'}),
    'gelu': ('Activation', {'activation': 'gelu'}),  # Keras' default: the exact (erf) form
    'silu': ('Activation', {'activation': 'silu'}),
}
UNSUPPORTED_ACTIVATIONS = ('relu6', 'exponential', 'mish', 'log_softmax', 'hard_silu')


# ---- helpers ---------------------------------------------------------------------------------------


def float_semantics(layer: Layer, x: np.ndarray) -> np.ndarray:
    """What an IR layer computes in float64 on a batch `x` of shape (n, *shape)."""
    flat = x.reshape(len(x), -1).astype(np.float64)
    kind, attributes, weights = layer.kind, layer.attributes, layer.weights
    if kind == 'BatchNormalization':
        return flat * weights['scale'] + weights['bias']
    if kind == 'PReLU':
        return np.where(flat > 0, flat, weights['alpha'] * flat)
    if kind == 'Softmax':
        exponentials = np.exp(flat - flat.max(axis=1, keepdims=True))
        return exponentials / exponentials.sum(axis=1, keepdims=True)
    if kind == 'HardActivation':
        return np.clip(attributes['slope'] * flat + attributes['shift'], 0, 1)
    if kind == 'ParametrizedActivation':
        parameter = attributes['activ_param']
        return {
            'leaky_relu': lambda: np.where(flat >= 0, flat, parameter * flat),
            'thresholded_relu': lambda: np.where(flat > parameter, flat, 0.0),
            'elu': lambda: np.where(flat > 0, flat, parameter * np.expm1(flat)),
        }[attributes['activation']]()
    assert kind == 'Activation', kind
    selu_alpha, selu_scale = 1.6732632423543772, 1.0507009873554805
    return {
        'linear': lambda: flat,
        'relu': lambda: np.maximum(flat, 0),
        'sigmoid': lambda: 1 / (1 + np.exp(-flat)),
        'tanh': lambda: np.tanh(flat),
        'softplus': lambda: np.logaddexp(0, flat),
        'softsign': lambda: flat / (1 + np.abs(flat)),
        'elu': lambda: np.where(flat > 0, flat, np.expm1(flat)),
        'selu': lambda: selu_scale * np.where(flat > 0, flat, selu_alpha * np.expm1(flat)),
        'gelu': lambda: flat * 0.5 * (1 + np.vectorize(math.erf)(flat / math.sqrt(2))),
        'silu': lambda: flat / (1 + np.exp(-flat)),
    }[attributes['activation']]()


def one_layer_model(layer: keras.layers.Layer, shape: tuple[int, ...] = (4,)) -> keras.Model:
    inputs = keras.Input(shape, name='x')
    return keras.Model(inputs, layer(inputs))


def parse(model: keras.Model) -> Graph:
    graph, _ = parse_keras_model(model)
    return graph


def only_layer(model: keras.Model) -> Layer:
    """The single non-Input IR layer of a one-layer model."""
    (layer,) = [layer for layer in parse(model).layers.values() if layer.kind != 'Input']
    return layer


def assert_same_function(model: keras.Model, layer: Layer, x: np.ndarray = SAMPLES) -> None:
    expected = keras.ops.convert_to_numpy(model(x)).reshape(len(x), -1)
    np.testing.assert_allclose(float_semantics(layer, x), expected, rtol=1e-5, atol=1e-5)


# ---- Dense ------------------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def dense_weights() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=3).astype(np.float32)


def test_dense_keeps_kernel_bias_and_sizes(dense_weights) -> None:
    kernel, bias = dense_weights
    model = one_layer_model(keras.layers.Dense(3, name='fc'))
    model.get_layer('fc').set_weights([kernel, bias])
    graph = parse(model)
    dense = graph.layers['fc']
    assert (dense.kind, dense.inputs, dense.outputs) == ('Dense', ['x'], ['fc'])
    assert (dense.attributes['n_in'], dense.attributes['n_out']) == (4, 3)
    np.testing.assert_array_equal(dense.weights['weight'], kernel)
    np.testing.assert_array_equal(dense.weights['bias'], bias)
    assert graph.tensors['fc'].shape == (3,)
    assert (dense.source_name, dense.source_class) == ('fc', 'Dense')


def test_dense_without_bias_gets_a_zero_bias(dense_weights) -> None:
    kernel, _ = dense_weights
    model = one_layer_model(keras.layers.Dense(3, use_bias=False, name='fc'))
    model.get_layer('fc').set_weights([kernel])
    dense = only_layer(model)
    np.testing.assert_array_equal(dense.weights['weight'], kernel)
    np.testing.assert_array_equal(dense.weights['bias'], np.zeros(3))
    assert dense.weights['bias'].shape == (3,)


@pytest.mark.parametrize('activation', sorted(set(SUPPORTED_ACTIVATIONS) - {'linear'}))
def test_dense_fused_activation_is_split_into_its_own_layer(activation: str) -> None:
    model = one_layer_model(keras.layers.Dense(3, activation=activation, name='fc'))
    graph = parse(model)
    split_name = f'fc_{activation}'
    assert list(graph.layers) == ['x', 'fc', split_name]
    split = graph.layers[split_name]
    kind, attributes = SUPPORTED_ACTIVATIONS[activation]
    assert split.kind == kind
    assert attributes.items() <= split.attributes.items()
    assert split.inputs == ['fc'] and graph.outputs == [split_name]
    assert graph.layers['fc'].kind == 'Dense'
    dense = graph.layers['fc']
    pre_activation = SAMPLES @ dense.weights['weight'] + dense.weights['bias']
    np.testing.assert_allclose(
        float_semantics(split, pre_activation), keras.ops.convert_to_numpy(model(SAMPLES)), rtol=1e-5, atol=1e-5
    )


def test_dense_linear_activation_adds_no_layer() -> None:
    graph = parse(one_layer_model(keras.layers.Dense(3, activation='linear', name='fc')))
    assert list(graph.layers) == ['x', 'fc'] and graph.outputs == ['fc']


def test_dense_with_an_unsupported_activation_is_refused_naming_it() -> None:
    with pytest.raises(KerasConversionError, match=r"'fc' \(Dense\).*'mish'"):
        parse(one_layer_model(keras.layers.Dense(3, activation='mish', name='fc')))


def test_dense_on_a_two_dimensional_input_is_a_pointwise_convolution() -> None:
    model = one_layer_model(keras.layers.Dense(3, name='fc'), shape=(2, 4))
    layer = only_layer(model)
    assert layer.kind == Kind.CONV1D and layer.name == 'fc' and layer.source_class == 'Dense'
    assert (layer.attributes['in_width'], layer.attributes['n_chan'], layer.attributes['n_filt']) == (2, 4, 3)
    np.testing.assert_array_equal(layer.weights['weight'][0], model.get_layer('fc').get_weights()[0])


def test_dense_on_a_four_dimensional_input_flattens_the_rows_around_the_product() -> None:
    graph = parse(one_layer_model(keras.layers.Dense(3, name='fc'), shape=(2, 2, 2, 4)))
    kinds = [(layer.kind, graph.tensors[layer.outputs[0]].shape) for layer in graph.layers.values()][1:]
    assert kinds == [(Kind.RESHAPE, (8, 4)), (Kind.CONV1D, (8, 3)), (Kind.RESHAPE, (2, 2, 2, 3))]


# ---- activations ------------------------------------------------------------------------------------


@pytest.mark.parametrize('activation', sorted(SUPPORTED_ACTIVATIONS))
def test_activation_layer_for_every_supported_name(activation: str) -> None:
    model = one_layer_model(keras.layers.Activation(activation, name='act'))
    layer = only_layer(model)
    kind, attributes = SUPPORTED_ACTIVATIONS[activation]
    assert (layer.name, layer.kind) == ('act', kind)
    assert attributes.items() <= layer.attributes.items()
    assert layer.attributes['n_in'] == 4
    assert_same_function(model, layer)


@pytest.mark.parametrize('activation', UNSUPPORTED_ACTIVATIONS)
def test_activation_layer_with_an_unsupported_name_is_refused(activation: str) -> None:
    model = one_layer_model(keras.layers.Activation(activation, name='act'))
    with pytest.raises(KerasConversionError, match=rf"'act' \(Activation\): activation '{activation}'"):
        parse(model)


@pytest.mark.parametrize(
    'keras_layer, kind, activation, parameter',
    [
        (keras.layers.ReLU(), 'Activation', 'relu', None),
        (keras.layers.ReLU(negative_slope=0.25), 'ParametrizedActivation', 'leaky_relu', 0.25),
        (keras.layers.ReLU(threshold=0.5), 'ParametrizedActivation', 'thresholded_relu', 0.5),
        (keras.layers.LeakyReLU(negative_slope=0.1), 'ParametrizedActivation', 'leaky_relu', 0.1),
        (keras.layers.ELU(alpha=0.7), 'ParametrizedActivation', 'elu', 0.7),
    ],
    ids=['relu', 'relu-negative-slope', 'relu-threshold', 'leaky-relu', 'elu'],
)
def test_relu_family_layers(keras_layer, kind: str, activation: str, parameter: float | None) -> None:
    model = one_layer_model(keras_layer)
    layer = only_layer(model)
    assert (layer.kind, layer.attributes['activation']) == (kind, activation)
    if parameter is not None:
        assert layer.attributes['activ_param'] == pytest.approx(parameter)
    # values on the threshold itself included: Keras passes x only when x > threshold
    assert_same_function(model, layer, np.concatenate([SAMPLES, np.full((1, 4), 0.5, np.float32)]))


@pytest.mark.parametrize(
    'keras_layer, problem',
    [
        (keras.layers.ReLU(max_value=6.0, name='act'), 'max_value'),
        (keras.layers.ReLU(negative_slope=0.1, threshold=0.5, name='act'), 'negative_slope and threshold'),
    ],
)
def test_relu_settings_without_a_kernel_are_refused(keras_layer, problem: str) -> None:
    with pytest.raises(KerasConversionError, match=rf"'act' \(ReLU\).*{problem}"):
        parse(one_layer_model(keras_layer))


def test_prelu_alpha_is_broadcast_over_shared_axes() -> None:
    prelu = keras.layers.PReLU(shared_axes=[1], name='prelu')
    model = one_layer_model(prelu, shape=(2, 3))
    alpha = np.array([[0.1, -0.2, 0.3]], dtype=np.float32)
    prelu.set_weights([alpha])
    layer = only_layer(model)
    assert (layer.kind, layer.attributes['n_in']) == ('PReLU', 6)
    np.testing.assert_allclose(layer.weights['alpha'], np.tile(alpha.ravel(), 2))
    x = np.random.default_rng(3).normal(size=(16, 2, 3)).astype(np.float32)
    assert_same_function(model, layer, x)


@pytest.mark.parametrize('axis', [-1, 1])
def test_softmax_over_the_last_axis(axis: int) -> None:
    model = one_layer_model(keras.layers.Softmax(axis=axis, name='sm'))
    layer = only_layer(model)
    assert (layer.kind, layer.attributes['n_in']) == ('Softmax', 4)
    assert_same_function(model, layer)


@pytest.mark.parametrize('axis', [-2, 1])
def test_softmax_over_another_axis_moves_it_last_and_back(axis: int) -> None:
    graph = parse(one_layer_model(keras.layers.Softmax(axis=axis, name='sm'), shape=(2, 3)))
    layers = list(graph.layers.values())[1:]
    assert [layer.kind for layer in layers] == [Kind.TRANSPOSE, Kind.SOFTMAX, Kind.TRANSPOSE]
    assert layers[1].attributes['n_slice'] == 2 and layers[1].name == 'sm'


def test_softmax_over_an_axis_of_a_four_dimensional_tensor_is_refused() -> None:
    with pytest.raises(KerasConversionError, match=r"'sm' \(Softmax\).*axis 1 of a 4-D tensor"):
        parse(one_layer_model(keras.layers.Softmax(axis=1, name='sm'), shape=(2, 3, 2, 2)))


def test_softmax_of_a_matrix_normalises_each_row_or_is_refused(tmp_path) -> None:
    """Keras normalises each row of a (2, 3) input; a flat softmax over all 6 values is wrong."""
    model = one_layer_model(keras.layers.Softmax(name='sm'), shape=(2, 3))
    try:
        hls_model = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    except KerasConversionError as error:
        assert 'sm' in str(error)
        return
    x = np.random.default_rng(5).uniform(-2, 2, (32, 2, 3))
    (outputs,), _ = interpret(hls_model, x)
    expected = keras.ops.convert_to_numpy(model(x.astype(np.float32))).reshape(32, 6)
    np.testing.assert_allclose(outputs.value, expected, atol=0.02)


# ---- batch normalization and removed layers ---------------------------------------------------------


@pytest.mark.parametrize('center, scale', [(True, True), (False, True), (True, False), (False, False)])
def test_batchnorm_becomes_scale_and_bias(center: bool, scale: bool) -> None:
    batchnorm = keras.layers.BatchNormalization(center=center, scale=scale, epsilon=0.01, name='bn')
    model = one_layer_model(batchnorm)
    gamma, beta = np.array([0.5, 2.0, -1.0, 3.0]), np.array([0.1, -0.2, 0.3, 0.0])
    mean, variance = np.array([1.0, -1.0, 0.5, 0.0]), np.array([0.25, 4.0, 1.0, 9.0])
    batchnorm.set_weights([*([gamma] if scale else []), *([beta] if center else []), mean, variance])
    layer = only_layer(model)
    expected_scale = (gamma if scale else 1.0) / np.sqrt(variance + 0.01)
    expected_bias = (beta if center else 0.0) - mean * expected_scale
    assert layer.kind == 'BatchNormalization'
    np.testing.assert_allclose(layer.weights['scale'], expected_scale, rtol=1e-6)
    np.testing.assert_allclose(layer.weights['bias'], expected_bias, rtol=1e-6, atol=1e-7)
    assert_same_function(model, layer)


def test_batchnorm_of_a_matrix_repeats_the_per_channel_values() -> None:
    batchnorm = keras.layers.BatchNormalization(name='bn')
    model = one_layer_model(batchnorm, shape=(2, 3))
    batchnorm.set_weights([np.array([1.0, 2.0, 3.0])] * 2 + [np.zeros(3), np.ones(3)])
    layer = only_layer(model)
    assert layer.weights['scale'].shape == (6,)
    assert_same_function(model, layer, np.random.default_rng(2).normal(size=(8, 2, 3)).astype(np.float32))


@pytest.mark.parametrize(
    'dropout', [keras.layers.Dropout(0.5), keras.layers.GaussianNoise(0.1), keras.layers.AlphaDropout(0.2)]
)
def test_dropout_like_layers_are_removed(dropout) -> None:
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.Dense(3, name='fc1')(inputs)
    outputs = keras.layers.Dense(2, name='fc2')(dropout(hidden))
    graph = parse(keras.Model(inputs, outputs))
    assert list(graph.layers) == ['x', 'fc1', 'fc2']
    assert graph.layers['fc2'].inputs == ['fc1']


def test_dropout_as_the_last_layer_leaves_the_previous_tensor_as_output() -> None:
    inputs = keras.Input((4,), name='x')
    outputs = keras.layers.Dropout(0.5)(keras.layers.Dense(3, name='fc')(inputs))
    graph = parse(keras.Model(inputs, outputs))
    assert graph.outputs == ['fc']
    verify(graph, resolved=False)


# ---- whole models -----------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def two_in_two_out() -> keras.Model:
    first, second = keras.Input((3,), name='a'), keras.Input((5,), name='b')
    branch = keras.layers.Dense(4, activation='tanh', name='da')(first)
    out_first = keras.layers.Dense(1, name='o1')(branch)
    out_second = keras.layers.Activation('sigmoid', name='o2')(keras.layers.Dense(2, name='db')(second))
    return keras.Model([second, first], [out_first, out_second, branch])


def test_two_inputs_and_outputs_keep_the_keras_order(two_in_two_out) -> None:
    graph = parse(two_in_two_out)
    assert graph.inputs == ['b', 'a']
    assert graph.outputs == ['o1', 'o2', 'da_tanh']
    assert [layer.name for layer in graph.consumers('da_tanh')] == ['o1']
    assert graph.layers['db'].inputs == ['b'] and graph.layers['da'].inputs == ['a']
    assert {name: graph.tensors[name].shape for name in graph.outputs} == {
        'o1': (1,),
        'o2': (2,),
        'da_tanh': (4,),
    }
    verify(graph, resolved=False)


def test_two_inputs_and_outputs_convert_and_match_keras(two_in_two_out, tmp_path) -> None:
    hls_model = convert_from_keras_model(two_in_two_out, output_dir=str(tmp_path / 'prj'), backend='Vitis')
    assert [tensor.name for tensor in hls_model.get_input_variables()] == ['b', 'a']
    assert [tensor.name for tensor in hls_model.get_output_variables()] == ['o1', 'o2', 'da_tanh']
    rng = np.random.default_rng(4)
    x = [rng.uniform(-1, 1, (16, 5)), rng.uniform(-1, 1, (16, 3))]
    outputs, _ = interpret(hls_model, x)
    expected = two_in_two_out([array.astype(np.float32) for array in x])
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got.value, keras.ops.convert_to_numpy(want), atol=0.05)


def test_sequential_without_input_is_refused_with_a_hint() -> None:
    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(KerasConversionError, match=r'keras\.Input'):
        parse(model)


def test_sequential_with_input_converts() -> None:
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(2, name='fc'), keras.layers.Activation('relu', name='act')]
    )
    graph = parse(model)
    assert [layer.kind for layer in graph.layers.values()] == ['Input', 'Dense', 'Activation']
    assert graph.outputs == ['act']


def test_subclassed_models_and_other_objects_are_refused() -> None:
    with pytest.raises(KerasConversionError, match='Keras 3 model'):
        parse_keras_model(object())


def test_every_unsupported_layer_is_named_in_one_error() -> None:
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.Dense(4, name='fc')(inputs)
    normed = keras.layers.GroupNormalization(groups=2, name='norm 1')(hidden)
    repeated = keras.layers.RepeatVector(2, name='shape.it')(normed)
    flat = keras.layers.Flatten(name='flat')(keras.layers.UnitNormalization(name='unit')(repeated))
    outputs = keras.layers.Add(name='add')([keras.layers.Dense(8)(hidden), flat])
    with pytest.raises(KerasConversionError) as caught:
        parse(keras.Model(inputs, outputs))
    message = str(caught.value)
    for name, class_name in [
        ('norm 1', 'GroupNormalization'),
        ('shape.it', 'RepeatVector'),
        ('unit', 'UnitNormalization'),
    ]:
        assert f'{name} ({class_name})' in message
    assert 'add (Add)' not in message and 'flat (Flatten)' not in message
    assert message.startswith('3 unsupported')
    assert 'fc (Dense)' not in message


def test_every_unconvertible_setting_is_named_in_one_error() -> None:
    """Layers after a refused one are still visited; their own problems join the same error."""
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.ReLU(max_value=6.0, name='first')(inputs)
    hidden = keras.layers.Dense(3, name='fine')(hidden)
    outputs = keras.layers.ReLU(max_value=1.0, name='second')(hidden)
    with pytest.raises(KerasConversionError) as caught:
        parse(keras.Model(inputs, outputs))
    message = str(caught.value)
    assert "'first' (ReLU)" in message and "'second' (ReLU)" in message


def test_a_layer_used_twice_is_refused() -> None:
    inputs = keras.Input((4,), name='x')
    shared = keras.layers.Dense(4, name='shared')
    with pytest.raises(KerasConversionError, match='shared .Dense. is called 2 times in the model'):
        parse(keras.Model(inputs, shared(shared(inputs))))


# ---- names ------------------------------------------------------------------------------------------

ODD_NAMES = ['my layer', 'my.layer', 'my-layer', '1st', 'int', 'class', 'main', 'x', 'X', 'ünï', '__init__', 'a' * 80]


@pytest.fixture(scope='module')
def odd_names_graph() -> tuple[Graph, dict[str, str]]:
    inputs = keras.Input((4,), name='in put')
    hidden = inputs
    for name in ODD_NAMES:
        hidden = keras.layers.Dense(4, name=name)(hidden)
    # split activations against Keras names: 'fc_relu' is taken first, then wanted by fc's activation
    hidden = keras.layers.Dense(4, name='fc_relu')(hidden)
    hidden = keras.layers.Dense(4, activation='relu', name='fc')(hidden)
    hidden = keras.layers.Dense(4, activation='relu', name='fc2')(hidden)
    hidden = keras.layers.Dense(4, name='fc2_relu')(hidden)
    return parse_keras_model(keras.Model(inputs, hidden))


def test_odd_layer_names_become_unique_identifiers(odd_names_graph) -> None:
    graph, origin = odd_names_graph
    names = list(graph.layers)
    assert len(set(names)) == len(names) == len(ODD_NAMES) + 7
    for name in names:
        assert IDENTIFIER.match(name), name
        assert name not in CPP_KEYWORDS, name
        assert len(name) <= MAX_LENGTH + 4, name
    assert set(graph.tensors) == set(names)
    assert set(origin.values()) == {'in put', *ODD_NAMES, 'fc_relu', 'fc', 'fc2', 'fc2_relu'}
    verify(graph, resolved=False)


def test_valid_names_are_kept_and_clashes_get_a_suffix(odd_names_graph) -> None:
    graph, origin = odd_names_graph
    assert 'x' in graph.layers and 'X' in graph.layers
    assert origin['layer_int'] == 'int' and origin['my_layer'] == 'my layer'
    assert origin['fc_relu'] == 'fc_relu' and graph.layers['fc_relu_2'].inputs == ['fc']
    assert origin['fc2_relu_2'] == 'fc2_relu' and graph.layers['fc2_relu'].inputs == ['fc2']


@pytest.mark.parametrize(
    'raw, expected',
    [
        ('my layer', 'my_layer'),
        ('dense.1', 'dense_1'),
        ('1st', 'layer_1st'),
        ('int', 'layer_int'),
        ('main', 'layer_main'),
        ('', 'layer'),
        ('...', 'layer'),
        ('__x__', 'x'),
        ('fc1', 'fc1'),
    ],
)
def test_sanitize(raw: str, expected: str) -> None:
    assert sanitize(raw) == expected


@pytest.mark.parametrize(
    'raw',
    ['../../etc/passwd', '/abs/path', '..', 'a/../../b', '..\\..\\windows', 'x' * 500, ' ', '\n', 'ñ', '0', 'return'],
)
def test_sanitize_never_produces_paths_or_invalid_identifiers(raw: str) -> None:
    name = sanitize(raw)
    assert IDENTIFIER.match(name), name
    assert '/' not in name and '\\' not in name and '..' not in name
    assert name not in CPP_KEYWORDS
    assert 0 < len(name) <= MAX_LENGTH


def test_name_table_deduplicates_and_remembers_origins() -> None:
    table = NameTable(reserved=('input_t',))
    given = [table.add(raw) for raw in ('a b', 'a.b', 'a_b', 'a b', 'input_t', 'a_b_2')]
    assert given == ['a_b', 'a_b_2', 'a_b_3', 'a_b_4', 'input_t_2', 'a_b_2_2']
    assert len(set(given)) == len(given)
    assert table.origin['a_b_2'] == 'a.b' and table.origin['input_t_2'] == 'input_t'


def test_name_table_keeps_long_names_unique() -> None:
    table = NameTable()
    given = [table.add('x' * 100 + suffix) for suffix in ('a', 'b', 'c')]
    assert len(set(given)) == 3
    assert all(IDENTIFIER.match(name) for name in given)


# ---- layer normalization ----------------------------------------------------------------------------


def test_layer_normalization_over_the_last_axis_carries_gamma_beta_and_epsilon() -> None:
    model = one_layer_model(keras.layers.LayerNormalization(epsilon=1e-4, center=False, name='ln'), shape=(3, 4))
    layer = only_layer(model)
    assert layer.kind == Kind.LAYER_NORMALIZATION
    assert (layer.attributes['n_in'], layer.attributes['n_slice'], layer.attributes['epsilon']) == (12, 4, 1e-4)
    np.testing.assert_array_equal(layer.weights['bias'], np.zeros(4))


@pytest.mark.parametrize(
    ('options', 'message'),
    [({'axis': 1}, r'.*axis \[1\] .*only the last axis'), ({'rms_scaling': True}, 'rms_scaling=True')],
)
def test_layer_normalization_settings_it_cannot_compute_are_refused(options: dict, message: str) -> None:
    model = one_layer_model(keras.layers.LayerNormalization(name='ln', **options), shape=(3, 4))
    with pytest.raises(KerasConversionError, match=rf"'ln' \(LayerNormalization\): {message}"):
        parse(model)


# ---- embedding --------------------------------------------------------------------------------------


def test_embedding_of_an_integer_input_keeps_the_input_integer() -> None:
    inputs = keras.Input((5,), dtype='int32', name='x')
    graph = parse(keras.Model(inputs, keras.layers.Embedding(10, 3, name='emb')(inputs)))
    assert str(graph.layers['x'].types['result']) == 'int<32>'
    emb = graph.layers['emb']
    assert emb.kind == Kind.EMBEDDING and graph.tensors['emb'].shape == (5, 3)
    assert (emb.attributes['n_vocab'], emb.attributes['n_dim'], emb.weights['embeddings'].shape) == (10, 3, (10, 3))


def test_embedding_with_mask_zero_is_refused() -> None:
    inputs = keras.Input((5,), dtype='int32', name='x')
    model = keras.Model(inputs, keras.layers.Embedding(10, 3, mask_zero=True, name='emb')(inputs))
    with pytest.raises(KerasConversionError, match=r"'emb' \(Embedding\): mask_zero=True"):
        parse(model)


def test_embedding_of_fractional_indices_is_refused_naming_the_fix(tmp_path) -> None:
    inputs = keras.Input((5,), dtype='int32', name='x')
    model = keras.Model(inputs, keras.layers.Embedding(10, 3, name='emb')(inputs))
    config = {'Model': {'Precision': 'fixed<16,6>'}, 'LayerName': {'x': {'Precision': {'result': 'fixed<16,6>'}}}}
    with pytest.raises(ValueError, match=r'emb.*integer indices.*fixed<16,6>.*Precision'):
        convert_from_keras_model(model, hls_config=config, output_dir=str(tmp_path / 'prj'))
