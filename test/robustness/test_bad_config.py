"""Bad HLSConfig dictionaries: every wrong key, type or value is refused at conversion with a ValueError
naming its key path (`hls_config['LayerName']['fc']['Precision']`) and what is expected; before, some
gave a raw TypeError/AttributeError (`Precision: 16`, `Model: None`) or were silently ignored."""

from __future__ import annotations

import keras
import pytest
import torch
from refusals import refused

import hls4ml

MODEL = "hls_config['Model']"
FC = "hls_config['LayerName']['fc']"

BAD_CONFIGS = [
    # (hls_config, what the message must contain)
    ([1, 2], 'hls_config must be a dict'),
    ({'Model': 5}, f'{MODEL} must be a dict, got 5'),
    ({'Model': 'fixed<16,6>'}, f'{MODEL} must be a dict'),
    ({'LayerName': ['fc']}, "hls_config['LayerName'] must be a dict"),
    ({'LayerType': 'Dense'}, "hls_config['LayerType'] must be a dict"),
    ({'Unknown': {}}, "unknown key 'Unknown'"),
    ({'Flows': ['vivado:x']}, "hls_config['Flows'] is not supported"),
    ({'Model': {'Precision': 16}}, f"{MODEL}['Precision'] must be a precision string"),
    ({'Model': {'Precision': None}}, f"{MODEL}['Precision'] must be a precision string"),
    ({'Model': {'Precision': 16.5}}, f"{MODEL}['Precision'] must be a precision string"),
    ({'Model': {'Precision': [16, 6]}}, f"{MODEL}['Precision'] must be a precision string"),
    ({'Model': {'Precision': True}}, f"{MODEL}['Precision'] must be a precision string"),
    ({'Model': {'Precision': {'weight': 16}}}, f"{MODEL}['Precision']['weight']: invalid precision 16"),
    ({'Model': {'Precision': {'wieght': 'fixed<8,3>'}}}, f"{MODEL}['Precision']: unknown key 'wieght'"),
    ({'Model': {'Precision': 'ap_fixed<0,0>'}}, 'width must be between 1 and'),
    ({'Model': {'Precision': 'ap_fixed<100000,6>'}}, 'width must be between 1 and'),
    ({'Model': {'Precision': 'fixed<16,6,FOO>'}}, "'FOO') is not a rounding mode"),
    ({'Model': {'Precision': 'fixed<nan,6>'}}, 'width must be an integer'),
    ({'Model': {'Precision': ''}}, "invalid precision ''"),
    ({'Model': {'Precision': 'float'}}, "invalid precision 'float'"),
    ({'Model': {'Precision': 'auto'}}, "default precision cannot be 'auto'"),
    ({'Model': {'ReuseFactor': 'x'}}, f"{MODEL}['ReuseFactor'] must be a positive integer, got 'x'"),
    ({'Model': {'ReuseFactor': 0}}, f"{MODEL}['ReuseFactor'] must be a positive integer"),
    ({'Model': {'ReuseFactor': -1}}, f"{MODEL}['ReuseFactor'] must be a positive integer"),
    ({'Model': {'ReuseFactor': 2.5}}, f"{MODEL}['ReuseFactor'] must be a positive integer"),
    ({'Model': {'ReuseFactor': True}}, f"{MODEL}['ReuseFactor'] must be a positive integer"),
    ({'Model': {'ReuseFactor': float('nan')}}, f"{MODEL}['ReuseFactor'] must be a positive integer"),
    ({'Model': {'Strategy': 5}}, f"{MODEL}['Strategy'] must be a string"),
    ({'Model': {'Strategy': 'fast'}}, "'fast' is not one of latency, resource"),
    ({'Model': {'TraceOutput': 'yes'}}, f"{MODEL}['TraceOutput'] must be True or False"),
    ({'Model': {'BitExact': 'no'}}, f"{MODEL}['BitExact'] must be True or False"),
    ({'Model': {'BramFactor': 'x'}}, f"{MODEL}['BramFactor'] must be a positive integer"),
    ({'Model': {'PipelineStyle': 'fast'}}, f"{MODEL}['PipelineStyle']: 'fast' is not one of auto"),
    ({'Model': {'PipelineStyle': 5}}, f"{MODEL}['PipelineStyle'] must be a string"),
    ({'Model': {'PipelineInterval': 0}}, f"{MODEL}['PipelineInterval'] must be a positive integer"),
    ({'Model': {'ChannelsLastConversion': 'yes'}}, f"{MODEL}['ChannelsLastConversion']: 'yes' is not one of"),
    ({'Model': {'TransposeOutputs': 'no'}}, f"{MODEL}['TransposeOutputs'] must be True or False"),
    ({'Model': {'Trace': True}}, f"{MODEL}: unknown key 'Trace'"),
    ({'LayerName': {'fc': 3}}, f'{FC} must be a dict of settings, got 3'),
    ({'LayerName': {'fc': 'fixed<8,3>'}}, f'{FC} must be a dict of settings'),
    ({'LayerName': {'fc': {'Precision': 16}}}, f"{FC}['Precision'] must be a string or a dict"),
    ({'LayerName': {'fc': {'Precision': {'weight': 16}}}}, f"{FC}['Precision']['weight']: invalid precision 16"),
    ({'LayerName': {'fc': {'Precision': {'table': 'fixed<8,3>'}}}}, f"{FC}['Precision'] (Dense): unknown key"),
    ({'LayerType': {'Dense': {'Precision': 16}}}, "hls_config['LayerType']['Dense']['Precision'] must be a string"),
    ({'LayerName': {'fc': {'weight_t': 16}}}, f"{FC}['weight_t']: invalid precision 16"),
    ({'LayerName': {'act': {'Precision': {'table': 16}}}}, "['act']['Precision']['table']: invalid precision 16"),
    ({'LayerName': {'fc': {'Trace': 'maybe'}}}, f"{FC}['Trace'] must be True or False"),
    ({'LayerName': {'fc': {'ReuseFactor': 0}}}, f"{FC}['ReuseFactor'] must be a positive integer"),
    ({'LayerName': {'fc': {'TableSize': 1024}}}, f"{FC} (Dense): unknown key 'TableSize'"),
    ({'LayerName': {'act': {'TableSize': 1000}}}, "['act']['TableSize'] must be a power of two"),
    ({'LayerName': {'act': {'Skip': 'no'}}}, "['act'] (Activation): unknown key 'Skip'"),
    ({'LayerName': {'typo': {}}}, "hls_config['LayerName']['typo'] matches no layer"),
    ({'LayerName': {5: {}}}, "hls_config['LayerName'][5] matches no layer"),
    ({'LayerType': {'Dnese': {}}}, "hls_config['LayerType']['Dnese'] matches no layer kind"),
]


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    return keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, name='fc'), keras.layers.Activation('sigmoid', name='act')]
    )


@pytest.mark.parametrize('hls_config, fragment', BAD_CONFIGS, ids=[repr(case)[:60] for case, _ in BAD_CONFIGS])
def test_a_bad_config_is_refused_naming_its_key(keras_model, hls_config, fragment, tmp_path) -> None:
    def convert():
        return hls4ml.converters.convert_from_keras_model(
            keras_model, hls_config=hls_config, output_dir=str(tmp_path / 'prj')
        )

    refused(convert, fragment)


def test_an_integer_result_of_a_table_activation_is_refused_in_the_ac_family(keras_model, tmp_path) -> None:
    """Found by fuzzing: ap_int results everywhere on Catapult; the sigmoid's fixed-point table cannot be
    written into an ac_int (g++ stopped at a static_assert)."""

    def convert(backend: str):
        config = {'Model': {'Precision': 'ap_int<4>'}}
        return hls4ml.converters.convert_from_keras_model(
            keras_model, hls_config=config, output_dir=str(tmp_path / backend), backend=backend
        )

    refused(lambda: convert('Catapult'), "layer 'act' (Activation", 'sigmoid table', "use 'fixed<4,4>'")
    assert convert('Vitis').graph.layers['act'].types['result'].width == 4  # ap_int takes an ap_fixed


@pytest.mark.parametrize(
    'section, fragment',
    [
        (None, None),  # the config hls4ml writes, unchanged: converts
        ({'ChannelsLastConversion': 'yes'}, f"{MODEL}['ChannelsLastConversion']: 'yes' is not one of"),
        ({'TransposeOutputs': 'yes'}, f"{MODEL}['TransposeOutputs'] must be True or False"),
        ({'Precision': 16}, f"{MODEL}['Precision'] must be a precision string"),
    ],
)
def test_pytorch_layout_options_are_checked_before_the_frontend_reads_them(section, fragment, tmp_path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 3))
    config = hls4ml.utils.config_from_pytorch_model(model, input_shape=(4,))
    config['Model'].update(section or {})

    def convert():
        return hls4ml.converters.convert_from_pytorch_model(model, hls_config=config, output_dir=str(tmp_path / 'p'))

    if fragment is None:
        assert convert().get_layers()[-1].kind == 'Dense'
    else:
        refused(convert, fragment)


def test_empty_sections_are_the_defaults(keras_model, tmp_path) -> None:
    """None for a section or an entry means 'nothing set', as an empty YAML key reads."""
    hls_model = hls4ml.converters.convert_from_keras_model(
        keras_model,
        hls_config={'Model': None, 'LayerType': None, 'LayerName': {'fc': None}},
        output_dir=str(tmp_path / 'prj'),
    )
    assert str(hls_model.graph.layers['fc'].types['weight']) == 'fixed<16,6>'
