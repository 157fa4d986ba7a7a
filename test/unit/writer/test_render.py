"""The generated project, rendered in memory (nothing compiled): files, types, structs, weights.

The whole emitted projects of five models on every backend and IO type are compared file by file with
checked-in trees in test_golden_projects.py (which replaced the three golden files of a Dense + ReLU).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import keras
import numpy as np
import pytest
import yaml

from hls4ml.backends.common.project import lower_project
from hls4ml.converters import convert_from_keras_model
from hls4ml.model.fixed import quantize
from hls4ml.model.layer_tables import layer_tables
from hls4ml.model.tables import table_values
from hls4ml.utils import config_from_keras_model
from hls4ml.writer import render_project

PROJECT = 'mlp_top'
STRUCT = re.compile(r'// (\w+) \((\w+)\)\nstruct (config(\d+)) : (nnet::\w+) \{\n(.*?)\n\};', re.DOTALL)
TYPEDEF = re.compile(r'^typedef (.+) (layer(\d+)_(\w+)_t);$', re.MULTILINE)
ARRAY_VALUES = re.compile(r'#define (\w+)_VALUES \\\n(.*?)\n\n', re.DOTALL)
ARRAY_DECLARATION = re.compile(r'static const (\w+) (\w+)\[(\d+)\] = \{')
WEIGHT_ARRAYS = {  # array name prefix -> (weights key, typed variable)
    'w': ('weight', 'weight'),
    'b': ('bias', 'bias'),
    's': ('scale', 'scale'),
    'a': ('alpha', 'param'),
}
TABLE_ARRAYS = {'t': '', 'exp_table': 'exp_', 'inv_table': 'inv_'}  # array name prefix -> table key


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    keras.utils.set_random_seed(21)
    inputs = keras.Input((4,), name='x')
    hidden = keras.layers.Dense(6, activation='relu', name='fc1')(inputs)
    batchnorm = keras.layers.BatchNormalization(name='bn')
    hidden = keras.layers.PReLU(name='prelu')(batchnorm(hidden))
    hidden = keras.layers.Dense(5, activation='sigmoid', name='fc2')(hidden)
    outputs = keras.layers.Dense(3, activation='softmax', name='fc3')(hidden)
    model = keras.Model(inputs, outputs)
    rng = np.random.default_rng(0)
    batchnorm.set_weights(
        [rng.uniform(0.5, 2, 6), rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6), rng.uniform(0.5, 2, 6)]
    )
    model.get_layer('prelu').set_weights([rng.uniform(-0.5, 0.5, 6)])
    return model


def convert(model: keras.Model, tmp_path: Path, **kwargs: Any) -> Any:
    kwargs.setdefault('project_name', PROJECT)
    return convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), backend='Vitis', **kwargs)


def render(hls_model: Any) -> dict[str, str]:
    return render_project(hls_model.design, lower_project(hls_model.design))


@pytest.fixture(scope='module')
def converted(keras_model, tmp_path_factory) -> Any:
    hls_config = config_from_keras_model(keras_model, granularity='name')
    hls_config['LayerName']['fc1'].update(Strategy='Resource', ReuseFactor=4)
    hls_config['LayerName']['fc3'].update(ReuseFactor=5)
    hls_config['LayerName']['fc2'].update(Strategy='Resource', ReuseFactor=7)
    with pytest.warns(UserWarning, match='ReuseFactor 7'):
        return convert(keras_model, tmp_path_factory.mktemp('render'), hls_config=hls_config)


@pytest.fixture(scope='module')
def files(converted) -> dict[str, str]:
    return render(converted)


def layer_index(hls_model: Any) -> dict[str, int]:
    return {name: index for index, name in enumerate(hls_model.graph.layers, start=1)}


def structs(parameters: str) -> dict[str, dict[str, str]]:
    """Layer name -> its config struct: name, base, kind and body."""
    return {
        match[1]: {'kind': match[2], 'struct': match[3], 'index': match[4], 'base': match[5], 'body': match[6]}
        for match in STRUCT.finditer(parameters)
    }


# ---- the file set -----------------------------------------------------------------------------------


def test_rendered_file_set(converted, files) -> None:
    index = layer_index(converted)
    weights = {f'{prefix}{index[layer]}' for layer in ('fc1', 'fc2', 'fc3') for prefix in 'wb'}
    weights |= {f's{index["bn"]}', f'b{index["bn"]}', f'a{index["prelu"]}', f't{index["fc2_sigmoid"]}'}
    weights |= {f'exp_table{index["fc3_softmax"]}', f'inv_table{index["fc3_softmax"]}'}
    assert set(files) == {
        f'firmware/{PROJECT}.cpp',
        f'firmware/{PROJECT}.h',
        'firmware/defines.h',
        'firmware/parameters.h',
        *(f'firmware/weights/{name}.h' for name in weights),
        f'{PROJECT}_bridge.cpp',
        f'{PROJECT}_test.cpp',
        'build_prj.tcl',
        'project.tcl',
        'vivado_synth.tcl',
        'hls4ml_config.yml',
    }


def test_render_writes_nothing(converted, files) -> None:
    assert not Path(converted.output_dir).exists()


def test_config_yaml_is_the_project_config(files) -> None:
    config = yaml.safe_load(files['hls4ml_config.yml'])
    assert (config['ProjectName'], config['Backend'], config['IOType']) == (PROJECT, 'Vitis', 'io_parallel')
    assert config['HLSConfig']['LayerName']['fc1']['Strategy'] == 'Resource'
    assert isinstance(config['KerasModel'], str)


def test_project_tcl_has_the_part_and_clock(keras_model, tmp_path) -> None:
    hls_model = convert(keras_model, tmp_path, part='xc7z020clg400-1', clock_period=8, clock_uncertainty='20%')
    tcl = render(hls_model)['project.tcl']
    for line in ('variable project_name mlp_top', 'variable part xc7z020clg400-1', 'variable clock_period 8'):
        assert line in tcl
    assert 'variable clock_uncertainty 20%' in tcl


def test_two_conversions_render_byte_identical_files(keras_model, tmp_path) -> None:
    first = render(convert(keras_model, tmp_path, hls_config=config_from_keras_model(keras_model, granularity='name')))
    second = render(convert(keras_model, tmp_path, hls_config=config_from_keras_model(keras_model, granularity='name')))
    assert first.keys() == second.keys()
    assert [path for path in first if first[path] != second[path]] == []


# ---- types and structs ------------------------------------------------------------------------------


def test_defines_has_one_typedef_per_layer_variable_spelled_ap_fixed(converted, files) -> None:
    defines = files['firmware/defines.h']
    found = {match[2]: match[1] for match in TYPEDEF.finditer(defines)}
    expected = {
        f'layer{index}_{var}_t': precision.spelling('ap')
        for index, layer in enumerate(converted.get_layers(), start=1)
        for var, precision in layer.types.items()
    }
    assert found == expected
    assert all(re.fullmatch(r'ap_u?fixed<\d+,-?\d+(,AP_\w+,AP_\w+(,\d+)?)?>', spelling) for spelling in found.values())
    assert 'typedef layer1_result_t input_t;' in defines
    assert f'typedef layer{len(converted.graph.layers)}_result_t result_t;' in defines


def test_one_config_struct_per_layer(converted, files) -> None:
    found = structs(files['firmware/parameters.h'])
    index = layer_index(converted)
    layers = [layer for layer in converted.get_layers() if layer.kind != 'Input']
    assert list(found) == [layer.name for layer in layers]
    assert files['firmware/parameters.h'].count('struct config') == len(layers)
    for layer in layers:
        assert found[layer.name]['kind'] == layer.kind
        assert found[layer.name]['struct'] == f'config{index[layer.name]}'
        assert (
            f'static const unsigned n_in = {converted.graph.input_tensors(layer)[0].size};' in found[layer.name]['body']
        )


@pytest.mark.parametrize(
    'layer, strategy, reuse_factor', [('fc1', 'resource', 4), ('fc2', 'resource', 6), ('fc3', 'latency', 5)]
)
def test_dense_structs_carry_strategy_and_reuse_factor(files, layer: str, strategy: str, reuse_factor: int) -> None:
    body = structs(files['firmware/parameters.h'])[layer]['body']
    assert f'static const unsigned strategy = nnet::{strategy};' in body
    assert f'static const unsigned reuse_factor = {reuse_factor};' in body
    assert structs(files['firmware/parameters.h'])[layer]['base'] == 'nnet::dense_config'


def test_top_function_calls_each_layer_in_order(converted, files) -> None:
    top = files[f'firmware/{PROJECT}.cpp']
    calls = re.findall(r'^    // (\w+) \((\w+)\)\n    (nnet::\w+)<', top, re.MULTILINE)
    assert [name for name, _, _ in calls] == [layer.name for layer in converted.get_layers() if layer.kind != 'Input']
    assert f'void {PROJECT}(' in top and f'void {PROJECT}(' in files[f'firmware/{PROJECT}.h']


# ---- weights ----------------------------------------------------------------------------------------


def printed_arrays(files: dict[str, str]) -> dict[str, tuple[str, list[str]]]:
    """Array name -> (declared type name, printed values) of every weights header."""
    arrays = {}
    for path, text in files.items():
        if path.startswith('firmware/weights/'):
            ((name, body),) = ARRAY_VALUES.findall(text)
            values = [value.strip() for value in body.replace('\\', '').split(',')]
            (declaration,) = [match for match in ARRAY_DECLARATION.findall(text) if match[1] == name.lower()]
            assert int(declaration[2]) == len(values), path
            arrays[name.lower()] = (declaration[0], values)
    return arrays


def expected_array(hls_model: Any, name: str) -> tuple[str, Any]:
    """The type name and the quantized values (a FixedArray) an array must hold."""
    prefix, index = re.fullmatch(r'([a-z_]+?)(\d+)', name).groups()
    layer = hls_model.get_layers()[int(index) - 1]
    if prefix in WEIGHT_ARRAYS:
        weights, var = WEIGHT_ARRAYS[prefix]
        return f'layer{index}_{var}_t', quantize(layer.weights[weights].ravel(), layer.types[var])
    input_type = hls_model.graph.input_type(layer)
    spec = layer_tables(layer, input_type)[TABLE_ARRAYS[prefix]]
    var = 'table' if prefix == 't' else prefix
    return f'layer{index}_{var}_t', table_values(spec)


def test_every_printed_value_converts_back_exactly(converted, files) -> None:
    arrays = printed_arrays(files)
    assert len(arrays) == 12
    for name, (type_name, printed) in arrays.items():
        expected_type, expected = expected_array(converted, name)
        assert type_name == expected_type, name
        doubles = np.array([float(text) for text in printed])
        np.testing.assert_array_equal(doubles, expected.value, err_msg=name)
        back = quantize(doubles, expected.type)
        assert np.array_equal(np.asarray(back.raw, dtype=object), np.asarray(expected.raw, dtype=object)), name


def test_weights_carry_more_fraction_bits_than_the_default(converted, files) -> None:
    """The check above is not vacuous: the auto weights are not values of the default fixed<16,6>."""
    index = layer_index(converted)
    assert converted.graph.layers['fc1'].types['weight'].fractional > 10
    _, printed = printed_arrays(files)[f'w{index["fc1"]}']
    doubles = np.array([float(text) for text in printed])
    assert not np.array_equal(quantize(doubles, 'fixed<16,6>').value, doubles)


# ---- project names ----------------------------------------------------------------------------------


@pytest.mark.parametrize('project_name', ['my-project', '1project', '../evil', 'a b', '', 'int', 'class', 'namespace'])
def test_a_project_name_that_is_not_an_identifier_is_refused_before_writing(
    keras_model, tmp_path, project_name: str
) -> None:
    output_dir = tmp_path / 'prj'
    with pytest.raises(ValueError, match='project_name'):
        convert(keras_model, tmp_path, project_name=project_name).write()
    assert not output_dir.exists()
    assert list(tmp_path.iterdir()) == []


def test_write_puts_the_rendered_files_on_disk(keras_model, tmp_path) -> None:
    hls_model = convert(keras_model, tmp_path)
    rendered = render(hls_model)
    written = Path(hls_model.write())
    for relative, content in rendered.items():
        assert (written / relative).read_text() == content, relative
    assert (written / 'firmware' / 'nnet_utils').is_dir() and (written / 'firmware' / 'ap_types').is_dir()
