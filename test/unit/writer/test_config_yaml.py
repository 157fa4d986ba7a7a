"""hls4ml_config.yml is written without PyYAML (hls4ml/writer/config_yaml.py): PyYAML reads back exactly the
configuration, and the text is what PyYAML's own block style gives for what configurations hold."""

from __future__ import annotations

import math

import pytest
import yaml

from hls4ml.writer.config_yaml import config_yaml

TRICKY_STRINGS = [
    'yes',
    'No',
    'ON',
    'off',
    'True',
    'null',
    'Null',
    '~',
    '',
    ' ',
    ' lead',
    'trail ',
    '1e3',
    '1.5',
    '.5',
    '+1',
    '-1',
    '0x1F',
    '0o17',
    '1_000',
    '190:20:30',
    '.inf',
    '-.inf',
    '.nan',
    '12abc',
    "it's",
    'a: b',
    'a #b',
    '#x',
    '- x',
    '-x',
    '[x]',
    '{x}',
    '*x',
    '&x',
    '!x',
    '|x',
    '>x',
    '%x',
    '@x',
    '`x',
    '"x"',
    "'x'",
    'x,y',
    'multi\nline',
    'tab\there',
    'é',
    'ap_fixed<16,6>',
    'fixed<18,8,TRN,WRAP,0>',
    '27%',
    '/tmp/a b/prj',
    './prj',
    '<KerasModel Sequential seq>',
    'xcvu13p-flga2577-2-e',
    'io_stream',
    'a  b',
    'e5',
    'y',
    'n',
    '=',
    '<<',
    'key:',
    'x\x00y',
    'back\\slash',
]


def test_tricky_strings_read_back_as_the_same_strings() -> None:
    config = {'values': TRICKY_STRINGS, **{f'key {index}': text for index, text in enumerate(TRICKY_STRINGS)}}
    config.update({text or 'empty': index for index, text in enumerate(TRICKY_STRINGS)})
    assert yaml.safe_load(config_yaml(config)) == config


def test_numbers_booleans_none_and_nesting_read_back() -> None:
    config = {
        'ints': [0, -3, 10**20],
        'floats': [0.1, -2.5, 1e-05, 1e22, 3.0, -0.0, float('inf'), float('-inf')],
        'flags': [True, False, None],
        'nested': {'a': {'b': {'c': [1, [2, [3, {}]], {'d': [], 'e': {}}]}}, 'empty': {}, 'none': []},
        'rows': [[1, 2], [3, 4]],
        'records': [{'name': 'x', 'shape': [1, 2]}, {'name': 'y', 'shape': []}],
    }
    assert yaml.safe_load(config_yaml(config)) == config
    assert math.isnan(yaml.safe_load(config_yaml({'x': float('nan')}))['x'])


def test_the_text_is_pyyaml_block_style() -> None:
    """Sorted keys, two-space mappings, sequences at their key's indent, quotes only where needed."""
    config = {
        'OutputDir': '/tmp/out dir/prj',
        'ClockUncertainty': '27%',
        'InputShape': [16],
        'HLSConfig': {
            'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1, 'Strategy': 'Latency', 'BramFactor': 1000000000},
            'LayerName': {'fc1': {'Trace': False, 'Precision': {'result': 'auto'}}, 'on': {'TableSize': 1024}},
        },
        'KerasModel': '<KerasModel Sequential seq>',
        'Stamps': [[1, 2], {'a': 1.5, 'b': 1e-05}],
        'Empty': {},
        'Nothing': None,
        'Version': '1.0',
    }
    assert config_yaml(config) == yaml.safe_dump(config, sort_keys=True, default_flow_style=False)


def test_a_value_yaml_cannot_hold_is_refused_naming_where() -> None:
    with pytest.raises(ValueError, match=r"the configuration\['HLSConfig'\]\['Model'\]\['Precision'\] = .*object"):
        config_yaml({'HLSConfig': {'Model': {'Precision': object()}}})
    with pytest.raises(ValueError, match='the key 3 is not a string'):
        config_yaml({'LayerName': {3: 'x'}})
