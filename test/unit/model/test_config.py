"""HLSConfig: which level of the config dictionary wins for each setting, and every refusal.

Order (API spec section 1.4): LayerName > LayerType > Model; within a level, a `<var>_t` key, then
`Precision[var]`, then a `Precision` string. Errors name the key and where it sits.
"""

from __future__ import annotations

from typing import Any

import keras
import pytest

from hls4ml.converters import convert_from_keras_model
from hls4ml.model.config import HLSConfig
from hls4ml.model.types import FixedPrecisionType, parse_precision


def weight_and_bias(hls_config: dict[str, Any]) -> tuple[str, str]:
    """The resolved weight and bias types of a Dense named 'fc'."""
    precisions = HLSConfig(hls_config).resolve('fc', 'Dense', 'Dense').precisions
    return str(precisions['weight']), str(precisions['bias'])


MODEL_DEFAULT = {'Model': {'Precision': 'fixed<16,6>'}}
MODEL_VAR = {'Model': {'Precision': {'default': 'fixed<16,6>', 'weight': 'fixed<15,5>'}}}


@pytest.mark.parametrize(
    'hls_config, expected',
    [
        ({}, ('fixed<16,6>', 'fixed<16,6>')),
        (MODEL_DEFAULT, ('fixed<16,6>', 'fixed<16,6>')),
        (MODEL_VAR, ('fixed<15,5>', 'fixed<16,6>')),
        ({**MODEL_VAR, 'LayerType': {'Dense': {'Precision': 'fixed<14,4>'}}}, ('fixed<14,4>', 'fixed<14,4>')),
        (
            {**MODEL_VAR, 'LayerType': {'Dense': {'Precision': {'weight': 'fixed<13,3>'}}}},
            ('fixed<13,3>', 'fixed<16,6>'),
        ),
        (
            {
                **MODEL_VAR,
                'LayerType': {'Dense': {'Precision': {'weight': 'fixed<13,3>'}}},
                'LayerName': {'fc': {'Precision': 'fixed<12,2>'}},
            },
            ('fixed<12,2>', 'fixed<12,2>'),
        ),
        (
            {
                **MODEL_VAR,
                'LayerType': {'Dense': {'Precision': 'fixed<14,4>'}},
                'LayerName': {'fc': {'Precision': {'weight': 'fixed<11,1>'}}},
            },
            ('fixed<11,1>', 'fixed<14,4>'),
        ),
        (
            {
                'LayerType': {'Dense': {'weight_t': 'fixed<9,1>', 'Precision': {'weight': 'fixed<13,3>'}}},
            },
            ('fixed<9,1>', 'fixed<16,6>'),
        ),
        (
            {
                'LayerType': {'Dense': {'weight_t': 'fixed<9,1>'}},
                'LayerName': {'fc': {'Precision': {'weight': 'fixed<11,1>'}, 'bias_t': 'fixed<10,0>'}},
            },
            ('fixed<11,1>', 'fixed<10,0>'),
        ),
        (
            {'LayerName': {'fc': {'weight_t': 'ap_fixed<10,2,AP_RND,AP_SAT>', 'Precision': {'weight': 'fixed<8,1>'}}}},
            ('fixed<10,2,RND,SAT>', 'fixed<16,6>'),
        ),
    ],
    ids=[
        'empty',
        'model-default',
        'model-var',
        'type-string',
        'type-var',
        'name-string-over-type-var',
        'name-var-over-type-string',
        'type-var_t-over-type-var',
        'name-var-over-type-var_t',
        'name-var_t-over-name-var',
    ],
)
def test_precision_resolution_order(hls_config: dict[str, Any], expected: tuple[str, str]) -> None:
    assert weight_and_bias(hls_config) == expected


def test_layer_type_entry_found_by_the_framework_class_name() -> None:
    config = HLSConfig({'LayerType': {'InputLayer': {'Precision': 'fixed<8,3>'}}})
    assert str(config.resolve('x', 'Input', 'InputLayer').precisions['result']) == 'fixed<8,3>'


def test_layer_name_entry_found_by_the_framework_name() -> None:
    config = HLSConfig({'LayerName': {'my layer': {'Precision': {'weight': 'fixed<8,3>'}}}})
    settings = config.resolve('my_layer', 'Dense', 'Dense', ('my layer',))
    assert str(settings.precisions['weight']) == 'fixed<8,3>'


def test_table_types_keep_their_default_unless_named() -> None:
    defaults = HLSConfig({'Model': {'Precision': 'fixed<10,4>'}}).resolve('act', 'Activation', 'Activation')
    assert str(defaults.precisions['table']) == 'fixed<18,8>'
    assert str(defaults.precisions['result']) == 'fixed<10,4>'
    named = HLSConfig({'LayerName': {'act': {'table_t': 'fixed<12,4>'}}}).resolve('act', 'Activation', 'Activation')
    assert str(named.precisions['table']) == 'fixed<12,4>'
    softmax = HLSConfig({}).resolve('sm', 'Softmax', 'Softmax').precisions
    assert {var: str(softmax[var]) for var in ('exp_table', 'inv_table', 'accum')} == dict.fromkeys(
        ('exp_table', 'inv_table', 'accum'), 'fixed<18,8,RND,SAT>'
    )


def test_maximum_is_kept_apart_from_the_per_variable_types() -> None:
    config = HLSConfig({'Model': {'Precision': {'default': 'fixed<12,4>', 'maximum': 'fixed<24,10>'}}})
    assert config.maximum == FixedPrecisionType(24, 10)
    assert config.default_precision == FixedPrecisionType(12, 4)
    assert 'maximum' not in config.resolve('fc', 'Dense', 'Dense').precisions


def test_auto_is_kept_for_the_inference_pass() -> None:
    settings = HLSConfig({'LayerName': {'fc': {'Precision': {'result': 'auto'}}}}).resolve('fc', 'Dense', 'Dense')
    assert str(settings.precisions['result']) == 'auto'


# ---- scalar settings --------------------------------------------------------------------------------

LEVELS = {
    'Model': {'ReuseFactor': 2, 'Strategy': 'Resource', 'TraceOutput': True},
    'LayerType': {
        'Dense': {'ReuseFactor': 4, 'Trace': False},
        'Softmax': {'TableSize': 256, 'Implementation': 'latency'},
    },
    'LayerName': {'fc': {'ReuseFactor': 8, 'Strategy': 'latency'}, 'sm': {'TableSize': 64, 'Trace': True}},
}


@pytest.mark.parametrize(
    'name, kind, expected',
    [
        ('fc', 'Dense', {'reuse_factor': 8, 'strategy': 'latency', 'trace': False}),
        ('fc2', 'Dense', {'reuse_factor': 4, 'strategy': 'resource', 'trace': False}),
        ('sm', 'Softmax', {'table_size': 64, 'implementation': 'latency', 'trace': True, 'reuse_factor': 2}),
        ('sm2', 'Softmax', {'table_size': 256, 'implementation': 'latency', 'trace': True}),
        ('act', 'Activation', {'table_size': 1024, 'trace': True, 'reuse_factor': 2, 'strategy': 'resource'}),
    ],
)
def test_scalar_settings_resolve_name_over_type_over_model(name: str, kind: str, expected: dict) -> None:
    settings = HLSConfig(LEVELS).resolve(name, kind, kind)
    assert {key: getattr(settings, key) for key in expected} == expected


def test_scalar_defaults() -> None:
    settings = HLSConfig({}).resolve('fc', 'Dense', 'Dense')
    assert (settings.reuse_factor, settings.strategy, settings.trace) == (1, 'latency', False)
    assert (settings.table_size, settings.implementation) == (1024, 'stable')


# ---- errors -----------------------------------------------------------------------------------------


def resolve_all(hls_config: dict[str, Any]) -> None:
    config = HLSConfig(hls_config)
    for name, kind in (('fc', 'Dense'), ('act', 'Activation'), ('sm', 'Softmax')):
        config.resolve(name, kind, kind)


@pytest.mark.parametrize(
    'hls_config, words',
    [
        ({'Modle': {}}, ["'Modle'", 'hls_config']),
        ({'Model': {'ReuseFactr': 1}}, ["'ReuseFactr'", "hls_config['Model']"]),
        ({'LayerName': {'fc': {'Reuse': 2}}}, ["'Reuse'", "hls_config['LayerName']['fc']"]),
        ({'LayerType': {'Dense': {'TableSize': 8}}}, ["'TableSize'", "hls_config['LayerType']['Dense']"]),
        ({'LayerName': {'fc': {'Precision': {'wieght': 'fixed<8,2>'}}}}, ["'wieght'", "['LayerName']['fc']"]),
        ({'LayerName': {'act': {'weight_t': 'fixed<8,2>'}}}, ["'weight_t'", "['LayerName']['act']"]),
        ({'LayerName': {'fc': {'Precision': 16}}}, ['16', "['LayerName']['fc']['Precision']"]),
    ],
    ids=['top', 'model', 'layer-name', 'layer-type', 'precision-var', 'var_t', 'precision-not-a-string'],
)
def test_unknown_keys_are_refused_naming_key_and_path(hls_config: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        resolve_all(hls_config)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(
    'hls_config, words',
    [
        ({'Model': {'ReuseFactor': 0}}, ["['Model']['ReuseFactor']", '0']),
        ({'Model': {'ReuseFactor': 'x'}}, ["['Model']['ReuseFactor']", "'x'"]),
        ({'Model': {'ReuseFactor': -3}}, ["['Model']['ReuseFactor']", '-3']),
        ({'Model': {'ReuseFactor': True}}, ["['Model']['ReuseFactor']", 'True']),
        ({'Model': {'ReuseFactor': 2.0}}, ["['Model']['ReuseFactor']", '2.0']),
        ({'LayerName': {'fc': {'ReuseFactor': 0}}}, ["['LayerName']['fc']['ReuseFactor']", '0']),
        ({'Model': {'Strategy': 'fast'}}, ["['Model']['Strategy']", "'fast'"]),
        ({'LayerType': {'Dense': {'Strategy': 'fast'}}}, ["['LayerType']['Dense']['Strategy']", "'fast'"]),
        ({'LayerName': {'act': {'TableSize': 1000}}}, ["['LayerName']['act']['TableSize']", '1000']),
        ({'LayerName': {'act': {'TableSize': 1}}}, ["['TableSize']", '1']),
        ({'LayerName': {'sm': {'Implementation': 'legacy'}}}, ["['LayerName']['sm']['Implementation']", 'legacy']),
        (
            {'Model': {'Strategy': 'distributed_arithmetic', 'ReuseFactor': 2}},
            ["'fc' (Dense)", 'ReuseFactor must be 1'],
        ),
        ({'LayerName': {'fc': {'Strategy': 'da', 'ReuseFactor': 4}}}, ["'fc' (Dense)", 'fully unrolled']),
        ({'Model': {'BitExact': True}}, ['BitExact', 'not supported']),
    ],
)
def test_bad_values_are_refused(hls_config: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        resolve_all(hls_config)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize('spelling', ['distributed_arithmetic', 'DA', 'Distributed_Arithmetic'])
def test_distributed_arithmetic_reaches_dense_and_convolutions_only(spelling: str) -> None:
    """hls4ml 1.x's spellings; Model-level DA leaves the kinds it does not implement at Latency."""
    config = HLSConfig({'Model': {'Strategy': spelling}})
    assert config.resolve('fc', 'Dense', 'Dense').strategy == 'distributed_arithmetic'
    assert config.resolve('conv', 'Conv2D', 'Conv2D').strategy == 'distributed_arithmetic'
    assert config.resolve('rnn', 'LSTM', 'LSTM').strategy == 'latency'


def test_distributed_arithmetic_on_another_kind_by_name_is_refused() -> None:
    config = HLSConfig({'LayerName': {'rnn': {'Strategy': 'da'}}})
    with pytest.raises(ValueError, match=r"\['LayerName'\]\['rnn'\]\['Strategy'\].*Dense and the convolutions.*LSTM"):
        config.resolve('rnn', 'LSTM', 'LSTM')


@pytest.mark.parametrize('var', ['default', 'maximum'])
def test_model_level_auto_is_refused(var: str) -> None:
    precision = {'default': 'fixed<16,6>', var: 'auto'}
    with pytest.raises(ValueError, match=rf"\['Model'\]\['Precision'\]\['{var}'\].*cannot be 'auto'"):
        HLSConfig({'Model': {'Precision': precision}})


def test_model_level_auto_string_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be 'auto'"):
        HLSConfig({'Model': {'Precision': 'auto'}})


@pytest.mark.parametrize(
    'hls_config, text, where',
    [
        ({'Model': {'Precision': 'fixed<16'}}, 'fixed<16', "hls_config['Model']['Precision']"),
        ({'Model': {'Precision': {'default': 'fixd<16,6>'}}}, 'fixd<16,6>', "['Model']['Precision']['default']"),
        ({'Model': {'Precision': {'maximum': 'fixed<a,6>'}}}, 'fixed<a,6>', "['Model']['Precision']['maximum']"),
        (
            {'LayerName': {'fc': {'Precision': {'weight': 'ap_fixed<8,2,AP_SAT>'}}}},
            'ap_fixed<8,2,AP_SAT>',
            "hls_config['LayerName']['fc']['Precision']['weight']",
        ),
        (
            {'LayerName': {'fc': {'Precision': 'ap_fixed<>'}}},
            'ap_fixed<>',
            "hls_config['LayerName']['fc']['Precision']",
        ),
        ({'LayerType': {'Dense': {'bias_t': 'float'}}}, 'float', "hls_config['LayerType']['Dense']['bias_t']"),
        (
            {'LayerType': {'Dense': {'Precision': {'accum': 'fixed<0,0>'}}}},
            'fixed<0,0>',
            "hls_config['LayerType']['Dense']['Precision']['accum']",
        ),
    ],
)
def test_malformed_precision_strings_are_quoted_with_their_place(hls_config: dict, text: str, where: str) -> None:
    with pytest.raises(ValueError) as caught:
        resolve_all(hls_config)
    message = str(caught.value)
    assert repr(text) in message
    assert where in message


def test_malformed_precision_under_a_framework_class_names_that_class() -> None:
    """The message points at the key the user wrote ('InputLayer'), not at the IR kind ('Input')."""
    config = HLSConfig({'LayerType': {'InputLayer': {'Precision': 'fixed<8'}}})
    with pytest.raises(ValueError) as caught:
        config.resolve('x', 'Input', 'InputLayer')
    assert "hls_config['LayerType']['InputLayer']['Precision']" in str(caught.value)


# ---- through the converter: names matching no layer, split activations ------------------------------


@pytest.fixture(scope='module')
def dense_relu() -> keras.Model:
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.Dense(3, activation='relu', name='fc')(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name='my out')(hidden))


def convert(model: keras.Model, hls_config: dict[str, Any], tmp_path) -> Any:
    return convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=hls_config)


def test_layer_name_matching_no_layer_is_refused_with_the_known_names(dense_relu, tmp_path) -> None:
    with pytest.raises(ValueError) as caught:
        convert(dense_relu, {'LayerName': {'fc_1': {'ReuseFactor': 2}}}, tmp_path)
    message = str(caught.value)
    assert "hls_config['LayerName']['fc_1'] matches no layer" in message
    assert 'fc_relu' in message


def test_layer_type_matching_no_kind_is_refused(dense_relu, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"\['LayerType'\]\['Conv9D'\] matches no layer kind"):
        convert(dense_relu, {'LayerType': {'Conv9D': {'ReuseFactor': 2}}}, tmp_path)


def test_config_reaches_layers_by_ir_and_keras_names(dense_relu, tmp_path) -> None:
    hls_config = {
        'LayerName': {
            'fc': {'ReuseFactor': 2, 'Precision': {'weight': 'fixed<10,2>'}},
            'fc_relu': {'Precision': {'result': 'ufixed<8,3>'}},
            'my out': {'Precision': {'result': 'fixed<12,5>'}},
        }
    }
    layers = convert(dense_relu, hls_config, tmp_path).graph.layers
    assert layers['fc'].attributes['reuse_factor'] == 2
    assert layers['fc'].types['weight'] == parse_precision('fixed<10,2>')
    assert layers['fc_relu'].types['result'] == parse_precision('ufixed<8,3>')
    assert layers['my_out'].types['result'] == parse_precision('fixed<12,5>')


def test_layer_type_dense_does_not_reach_the_split_activation(dense_relu, tmp_path) -> None:
    """`Dense(activation='relu')` gives a Dense and an Activation; LayerType['Dense'] is the Dense's only.

    Dense-only keys (Strategy, weight precision) must not be checked against (or applied to) the
    Activation split off it.
    """
    hls_config = {
        'LayerType': {'Dense': {'Strategy': 'Resource', 'ReuseFactor': 1, 'Precision': {'weight': 'fixed<10,2>'}}}
    }
    layers = convert(dense_relu, hls_config, tmp_path).graph.layers
    assert layers['fc'].attributes['strategy'] == 'resource'
    assert layers['fc'].types['weight'] == parse_precision('fixed<10,2>')


def test_layer_type_dense_precision_string_leaves_the_split_activation_alone(dense_relu, tmp_path) -> None:
    layers = convert(dense_relu, {'LayerType': {'Dense': {'Precision': 'fixed<8,2>'}}}, tmp_path).graph.layers
    assert layers['fc'].types['weight'] == parse_precision('fixed<8,2>')
    assert layers['fc_relu'].types['result'] == parse_precision('fixed<16,6>')
    assert layers['fc_relu'].types['table'] == parse_precision('fixed<18,8>')


def test_unknown_hls_config_key_is_refused_by_the_converter(dense_relu, tmp_path) -> None:
    with pytest.raises(ValueError, match="'LayerNames'"):
        convert(dense_relu, {'LayerNames': {}}, tmp_path)


def test_a_layer_precision_string_leaves_table_types_alone() -> None:
    """As in hls4ml 1.x, a plain-string layer Precision is the layer's default, not its table types."""
    config = HLSConfig({'LayerName': {'sm': {'Precision': 'fixed<12,4>'}}})
    settings = config.resolve('sm', 'Softmax', 'Softmax')
    assert settings.precisions['result'] == parse_precision('fixed<12,4>')
    assert settings.precisions['accum'] == parse_precision('fixed<18,8,RND,SAT>')
    assert settings.precisions['exp_table'] == parse_precision('fixed<18,8,RND,SAT>')


def test_hls4ml_softmax_config_keys_are_accepted() -> None:
    """Configs saved by hls4ml 1.x carry Skip and the 'table'/'inv_inp' precisions of its softmax."""
    entry = {'Skip': False, 'Precision': {'table': 'fixed<18,8>', 'inv_inp': 'fixed<18,8,RND,SAT>'}}
    settings = HLSConfig({'LayerName': {'sm': entry}}).resolve('sm', 'Softmax', 'Softmax')
    assert settings.skip is False
