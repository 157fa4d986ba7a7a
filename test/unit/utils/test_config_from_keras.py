"""`config_from_keras_model` and `create_config`: the hls4ml 1.x dictionaries (API spec 1.2, 1.3)."""

from __future__ import annotations

import warnings
from typing import Any

import keras
import pytest

from hls4ml.converters import convert_from_keras_model
from hls4ml.model.types import FixedPrecisionType
from hls4ml.utils import config_from_keras_model, create_config

DENSE_ENTRY = {
    'Trace': False,
    'Precision': {'result': 'auto', 'accum': 'auto', 'weight': 'auto', 'bias': 'auto'},
    'ReuseFactor': 1,
}
ACTIVATION_ENTRY = {
    'Trace': False,
    'Precision': {'result': 'auto', 'table': 'fixed<18,8,TRN,WRAP,0>'},
    'ReuseFactor': 1,
    'TableSize': 1024,
}
SOFTMAX_ENTRY = {
    'Trace': False,
    'Precision': {
        'result': 'auto',
        'exp_table': 'fixed<18,8,RND,SAT,0>',
        'inv_table': 'fixed<18,8,RND,SAT,0>',
        'accum': 'fixed<18,8,RND,SAT,0>',
    },
    'ReuseFactor': 1,
    'TableSize': 1024,
    'Implementation': 'stable',
    'Skip': False,
}
INPUT_ENTRY = {'Trace': False, 'Precision': {'result': 'auto'}}
BN_ENTRY = {'Trace': False, 'Precision': {'result': 'auto', 'scale': 'auto', 'bias': 'auto'}, 'ReuseFactor': 1}


@pytest.fixture(scope='module')
def model() -> keras.Model:
    inputs = keras.Input((6,), name='x')
    hidden = keras.layers.Dense(8, activation='relu', name='fc1')(inputs)
    hidden = keras.layers.BatchNormalization(name='bn')(hidden)
    return keras.Model(inputs, keras.layers.Dense(3, activation='softmax', name='fc 2')(hidden))


def model_entry(default: str = 'fixed<16,6>', reuse_factor: int = 1, **precision: str) -> dict[str, Any]:
    return {
        'Precision': {'default': default, **precision},
        'ReuseFactor': reuse_factor,
        'Strategy': 'Latency',
        'BramFactor': 1_000_000_000,
        'TraceOutput': False,
    }


def test_granularity_model(model) -> None:
    assert config_from_keras_model(model) == {'Model': model_entry()}
    assert config_from_keras_model(model, granularity='model') == {'Model': model_entry()}


def test_granularity_type_lists_every_ir_kind_once(model) -> None:
    config = config_from_keras_model(model, granularity='type')
    assert config == {
        'Model': model_entry(),
        'LayerType': {
            'Input': INPUT_ENTRY,
            'Dense': DENSE_ENTRY,
            'Activation': ACTIVATION_ENTRY,
            'BatchNormalization': BN_ENTRY,
            'Softmax': SOFTMAX_ENTRY,
        },
    }


def test_granularity_name_lists_every_layer_by_its_converted_name(model) -> None:
    config = config_from_keras_model(model, granularity='name')
    assert list(config) == ['Model', 'LayerName']
    assert config['LayerName'] == {
        'x': INPUT_ENTRY,
        'fc1': DENSE_ENTRY,
        'fc1_relu': ACTIVATION_ENTRY,
        'bn': BN_ENTRY,
        'fc_2': DENSE_ENTRY,
        'fc_2_softmax': SOFTMAX_ENTRY,
    }


def test_entries_are_independent_copies(model) -> None:
    config = config_from_keras_model(model, granularity='name')
    config['LayerName']['fc1']['Precision']['weight'] = 'fixed<8,2>'
    assert config['LayerName']['fc_2']['Precision']['weight'] == 'auto'


def test_defaults_propagate(model) -> None:
    config = config_from_keras_model(
        model, granularity='name', default_precision='fixed<12,4>', default_reuse_factor=3, max_precision='fixed<24,10>'
    )
    assert config['Model'] == model_entry('fixed<12,4>', 3, maximum='fixed<24,10>')
    assert {name: entry.get('ReuseFactor') for name, entry in config['LayerName'].items()} == {
        'x': None,
        'fc1': 3,
        'fc1_relu': 3,
        'bn': 3,
        'fc_2': 3,
        'fc_2_softmax': 3,
    }


@pytest.mark.parametrize('granularity', ['model', 'type', 'name'])
def test_the_dictionary_converts_back(model, granularity: str, tmp_path) -> None:
    config = config_from_keras_model(model, granularity=granularity, default_precision='fixed<14,5>')
    hls_model = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config)
    for layer in hls_model.get_layers():
        assert all(isinstance(precision, FixedPrecisionType) for precision in layer.types.values()), layer.name
    assert hls_model.graph.layers['x'].types['result'] == FixedPrecisionType(14, 5)


def test_max_precision_reaches_the_inferred_types(model, tmp_path) -> None:
    config = config_from_keras_model(model, granularity='name', max_precision='fixed<20,7>')
    hls_model = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis', hls_config=config)
    accum = hls_model.graph.layers['fc1'].types['accum']
    assert accum.width <= 20 and accum.integer <= 7


@pytest.mark.parametrize(
    'kwargs, words',
    [
        ({'granularity': 'layer'}, ['granularity', "'layer'"]),
        ({'backend': 'Quartus2'}, ['Unknown backend', 'Quartus2']),
        ({'backend': 'Quartus'}, ['Quartus', 'not supported yet']),
        ({'default_precision': 'fixed<16'}, ['default_precision', "'fixed<16'"]),
        ({'max_precision': 'fxd<16,6>'}, ['max_precision', "'fxd<16,6>'"]),
    ],
)
def test_bad_arguments_are_refused(model, kwargs: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        config_from_keras_model(model, **kwargs)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize('backend', ['Vitis', 'vivado', 'VITIS'])
def test_backend_names_are_case_insensitive(model, backend: str) -> None:
    assert config_from_keras_model(model, backend=backend) == {'Model': model_entry()}


# ---- create_config ----------------------------------------------------------------------------------


@pytest.mark.parametrize('backend, uncertainty', [('Vitis', '27%'), ('Vivado', '12.5%'), ('vitis', '27%')])
def test_create_config_keys(backend: str, uncertainty: str) -> None:
    config = create_config('out', 'proj', backend)
    assert (
        config['WriterConfig'].items()
        >= {
            'Namespace': None,
            'WriteWeightsTxt': True,
            'WriteTar': False,
            'TBOutputStream': 'both',
        }.items()
    )
    del config['WriterConfig']
    assert config == {
        'OutputDir': 'out',
        'ProjectName': 'proj',
        'Backend': backend.capitalize(),
        'Version': '1.0.0',
        'Part': 'xcvu13p-flga2577-2-e',
        'ClockPeriod': 5,
        'ClockUncertainty': uncertainty,
        'IOType': 'io_parallel',
        'HLSConfig': {},
    }


def test_create_config_defaults() -> None:
    config = create_config()
    assert (config['OutputDir'], config['ProjectName'], config['Backend']) == ('my-hls-test', 'myproject', 'Vivado')


def test_create_config_keyword_arguments() -> None:
    config = create_config(
        'out',
        'proj',
        'Vitis',
        part='xc7z020clg400-1',
        clock_period=10,
        clock_uncertainty='10%',
        write_weights_txt=False,
        write_tar=True,
        tb_output_stream='stdout',
    )
    assert (config['Part'], config['ClockPeriod'], config['ClockUncertainty']) == ('xc7z020clg400-1', 10, '10%')
    assert (
        config['WriterConfig'].items()
        >= {
            'Namespace': None,
            'WriteWeightsTxt': False,
            'WriteTar': True,
            'TBOutputStream': 'stdout',
        }.items()
    )


def test_vitis_accepts_write_emulation_constants() -> None:
    config = create_config('out', 'proj', 'Vitis', write_emulation_constants=True)
    assert config['WriterConfig']['WriteEmulationConstants'] is True


def test_unknown_keyword_arguments_warn_naming_them() -> None:
    with pytest.warns(UserWarning, match='board.*interface|interface.*board') as records:
        config = create_config('out', 'proj', 'Vitis', board='pynq-z2', interface='axi_stream')
    assert 'board' not in config and 'interface' not in config
    assert 'Vitis' in str(records[0].message)


def test_known_keyword_arguments_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        create_config('out', 'proj', 'Vivado', part='xc7z020clg400-1', io_type='io_parallel')


def test_io_stream_is_accepted() -> None:
    assert create_config('out', 'proj', 'Vitis', io_type='io_stream')['IOType'] == 'io_stream'


def test_io_stream_conversion_gives_every_stream_a_fifo_depth(model, tmp_path) -> None:
    hls_model = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis', io_type='io_stream')
    assert all(tensor.fifo_depth >= 2 for tensor in hls_model.graph.tensors.values())
    assert 'fifo_depth=' in str(hls_model)


@pytest.mark.parametrize(
    'kwargs, words',
    [
        ({'io_type': 'io_serial'}, ['io_type', "'io_serial'"]),
        ({'clock_period': 0}, ['clock_period', '0']),
        ({'clock_period': '5ns'}, ['clock_period', "'5ns'"]),
        ({'tb_output_stream': 'screen'}, ['tb_output_stream', "'screen'"]),
    ],
)
def test_bad_backend_settings_are_refused(kwargs: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as caught:
        create_config('out', 'proj', 'Vitis', **kwargs)
    for word in words:
        assert word in str(caught.value)


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown backend: 'Vivid'"):
        create_config('out', 'proj', 'Vivid')
