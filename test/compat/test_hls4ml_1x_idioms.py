"""hls4ml 1.x idioms that users' scripts, the tutorials and hls4ml's own test suite write, run as they are
written (the patterns, in our own code). Conversion only: nothing here compiles C++ (test_hls4ml_1x_csim.py
does). docs/compatibility.md lists what of the 1.x surface is still missing."""

from __future__ import annotations

import urllib.error
import urllib.request
import warnings
from pathlib import Path

import keras
import numpy as np
import pytest
import torch

import hls4ml

LAYERS = keras.layers


@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential(
        [
            keras.Input((8,), name='inputs'),
            LAYERS.Dense(6, name='fc1'),
            LAYERS.Activation('relu', name='relu1'),
            LAYERS.Dense(4, name='fc2'),
            LAYERS.Softmax(name='softmax'),
        ]
    )


@pytest.fixture(scope='module')
def hls_model(keras_model, tmp_path_factory) -> hls4ml.model.ModelGraph:
    """The model converted once, as the tutorials do ('name' granularity, Vitis, io_parallel)."""
    return convert(keras_model, tmp_path_factory.mktemp('shared'))


def convert(model: keras.Model, tmp_path, config: dict | None = None, **keywords) -> hls4ml.model.ModelGraph:
    config = config or hls4ml.utils.config_from_keras_model(model, granularity='name', backend='Vitis')
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis', **keywords
    )


# ---- the config dictionary ---------------------------------------------------------------------------
@pytest.mark.parametrize('granularity', ['Model', 'Type', 'Name', 'NAME'])
def test_granularity_is_read_in_any_case(keras_model, granularity: str) -> None:
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity=granularity)
    assert config == hls4ml.utils.config_from_keras_model(keras_model, granularity=granularity.lower())


def test_softmax_takes_the_1x_strategy_and_snake_case_keys(keras_model, tmp_path) -> None:
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name', backend='Vitis')
    softmax = config['LayerName']['softmax']
    softmax['Strategy'] = 'Stable'  # hls4ml's own softmax tests write this
    softmax['table_size'] = 512  # written after the generated 'TableSize': it wins, as in 1.x
    softmax['skip'] = False
    softmax['exp_table_t'] = 'ap_fixed<18,8,AP_RND,AP_SAT>'
    softmax['inv_table_t'] = 'ap_fixed<18,8,AP_RND,AP_SAT>'
    softmax['table_t'] = 'ap_fixed<18,8>'  # 1.x lists it; this softmax kernel has no such table
    config['LayerName']['relu1']['reuse_factor'] = 1
    layer = convert(keras_model, tmp_path, config).graph['softmax']
    assert layer.get_attr('table_size') == 512
    assert layer.get_attr('implementation') == 'stable'
    assert layer.get_attr('exp_table_t').precision.width == 18


def test_a_strategy_that_is_no_strategy_is_still_refused(keras_model, tmp_path) -> None:
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='name')
    config['LayerName']['softmax']['Strategy'] = 'Fastest'
    with pytest.raises(ValueError, match=r"\['softmax'\]\['Strategy'\].*'Fastest'"):
        convert(keras_model, tmp_path, config)


def test_a_top_level_strategy_is_the_models(keras_model, tmp_path) -> None:
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='model')
    del config['Model']['Strategy']
    config['Strategy'] = 'Resource'
    hls_model = convert(keras_model, tmp_path, config)
    assert [layer.get_attr('strategy') for layer in hls_model.get_layers() if layer.class_name == 'Dense'] == [
        'resource',
        'resource',
    ]


@pytest.mark.parametrize('spelling', ['ResourceUnrolled', 'resource_unrolled'])
def test_resource_unrolled_is_accepted_and_said_to_run_as_resource(keras_model, tmp_path, spelling: str) -> None:
    config = hls4ml.utils.config_from_keras_model(keras_model, granularity='model')
    config['Model']['Strategy'] = spelling
    config['Model']['ReuseFactor'] = 2
    with pytest.warns(UserWarning, match='implemented as .resource.'):
        hls_model = convert(keras_model, tmp_path, config)
    assert hls_model.graph['fc1'].get_attr('strategy') == 'resource'


def test_pytorch_input_shape_may_be_an_integer(tmp_path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 4), torch.nn.ReLU())
    config = hls4ml.utils.config_from_pytorch_model(model, 16)
    assert config['InputShape'] == (16,)
    hls_model = hls4ml.converters.convert_from_pytorch_model(
        model, hls_config=config, output_dir=str(tmp_path / 'prj'), backend='Vitis'
    )
    assert hls_model.get_input_variables()[0].shape == [16]


# ---- the graph and layer API ---------------------------------------------------------------------------
def test_the_graph_is_an_ordered_mapping_of_layers(hls_model) -> None:
    names = ['inputs', 'fc1', 'relu1', 'fc2', 'softmax']
    assert list(hls_model.graph) == list(hls_model.graph.keys()) == names
    assert [layer.name for layer in hls_model.graph.values()] == names
    assert [name for name, layer in hls_model.graph.items() if layer.name == name] == names
    assert 'fc1' in hls_model.graph and 'fc3' not in hls_model.graph and len(hls_model.graph) == 5
    assert hls_model.graph['fc2'] is hls_model.get_layers()[3]
    assert hls_model.graph.get('fc3') is None
    assert [layer.class_name for layer in hls_model.get_layers()] == [
        'Input',
        'Dense',
        'Activation',
        'Dense',
        'Softmax',
    ]


def test_layers_answer_the_1x_accessors(keras_model, hls_model) -> None:
    dense = hls_model.graph['fc1']
    assert dense.attributes['class_name'] == 'Dense' and dense.attributes['name'] == 'fc1'
    assert dense.get_attr('n_in') == 8 and dense.get_attr('n_out') == 6
    assert dense.get_attr('reuse_factor') == 1 and dense.get_attr('strategy') == 'latency'
    assert dense.get_attr('no_such_attribute', 'fallback') == 'fallback'
    output = dense.get_output_variable()
    assert output.shape == [6] and output.size() == 6
    assert output.type.precision == dense.get_attr('result_t').precision == dense.types['result']
    assert dense.get_input_variable().shape == [8]
    assert dense.get_input_node() is hls_model.graph['inputs']
    assert dense.get_output_nodes() == [hls_model.graph['relu1']]
    kernel, bias = keras_model.get_layer('fc1').get_weights()
    weights = {weight.name: weight for weight in dense.get_weights()}
    np.testing.assert_array_equal(weights['weight'].data, kernel)
    np.testing.assert_array_equal(weights['bias'].data, bias)
    assert weights['weight'].type.precision == dense.get_attr('weight_t').precision
    np.testing.assert_array_equal(dense.attributes['weight'].data, kernel)
    np.testing.assert_array_equal(dense.get_attr('weight_data'), kernel)
    assert hls_model.graph['inputs'].get_input_variable() is None


def test_set_attr_is_read_back(hls_model) -> None:
    layer = hls_model.graph['relu1']
    layer.set_attr('my_note', 'hello')
    assert layer.get_attr('my_note') == 'hello' and layer.attributes['my_note'] == 'hello'


def test_model_variables_and_config_values(keras_model, tmp_path) -> None:
    hls_model = convert(keras_model, tmp_path, io_type='io_stream')
    (inputs,) = hls_model.get_input_variables()
    (outputs,) = hls_model.get_output_variables()
    assert (inputs.shape, outputs.shape) == ([8], [4])
    assert hls_model.inputs == ['inputs'] and hls_model.outputs == ['softmax']
    assert hls_model.get_layer_output_variable('fc2').shape == [4]
    assert hls_model.config.get_config_value('IOType') == 'io_stream'
    assert hls_model.config.get_config_value('Backend') == 'Vitis'
    assert hls_model.config.get_config_value('NoSuchKey', 7) == 7
    assert hls_model.config.config['ProjectName'] == 'myproject'


def test_build_refuses_an_unknown_keyword_listing_the_accepted_ones(hls_model) -> None:
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'bogus' for the Vitis backend; it accepts reset, csim"):
        hls_model.build(bogus=True)
    assert not (Path(hls_model.config['OutputDir']) / 'build_opt.tcl').exists()  # refused before anything ran


# ---- module paths and helpers --------------------------------------------------------------------------
def test_the_1x_module_paths_resolve(keras_model, tmp_path) -> None:
    from hls4ml.converters.keras_to_hls import keras_to_hls
    from hls4ml.converters.keras_v3_to_hls import parse_keras_model  # noqa: F401
    from hls4ml.converters.onnx_to_hls import onnx_to_hls  # noqa: F401
    from hls4ml.converters.pytorch_to_hls import pytorch_to_hls  # noqa: F401
    from hls4ml.converters.utils import compute_padding_1d, compute_padding_2d, parse_data_format
    from hls4ml.model.graph import ModelGraph
    from hls4ml.model.layers import Layer
    from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType, NamedType  # noqa: F401
    from hls4ml.utils.config import config_from_keras_model
    from hls4ml.utils.string_utils import convert_to_pascal_case, convert_to_snake_case

    assert compute_padding_2d('same', 7, 7, 2, 2, 3, 3) == (4, 4, 1, 1, 1, 1)
    assert compute_padding_1d('valid', 10, 1, 3) == (8, 0, 0)
    assert compute_padding_1d('causal', 10, 1, 3) == (10, 2, 0)
    assert parse_data_format([None, 3, 8, 8], 'channels_first') == (8, 8, 3)
    assert (
        convert_to_snake_case('ReuseFactor') == 'reuse_factor' and convert_to_pascal_case('table_size') == 'TableSize'
    )
    config = {
        'OutputDir': str(tmp_path / 'prj'),
        'ProjectName': 'myproject',
        'Backend': 'Vitis',
        'KerasModel': keras_model,
        'HLSConfig': config_from_keras_model(keras_model),
    }
    hls_model = keras_to_hls(config)
    assert isinstance(hls_model, ModelGraph) and all(isinstance(layer, Layer) for layer in hls_model.graph.values())


def test_fetch_example_helpers_say_they_need_the_network(monkeypatch, tmp_path) -> None:
    def offline(url, timeout=None):
        raise urllib.error.URLError('[Errno -3] Temporary failure in name resolution')

    monkeypatch.setattr(urllib.request, 'urlopen', offline)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConnectionError, match=r'fetch_example_list\(\) needs the network'):
        hls4ml.utils.fetch_example_list()
    with pytest.raises(ConnectionError, match=r"fetch_example_model\('KERAS_3layer.json'\) needs the network"):
        hls4ml.utils.fetch_example_model('KERAS_3layer.json')
    with pytest.raises(ValueError, match='not an example model file name'):
        hls4ml.utils.fetch_example_model('../KERAS_3layer.exe')
    assert not list(tmp_path.iterdir())


def test_keras_conversion_makes_numpy_warn_nothing(tmp_path) -> None:
    keras.utils.set_random_seed(4)
    model = keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            LAYERS.Conv2D(3, 3, activation='relu'),
            LAYERS.BatchNormalization(),
            LAYERS.Flatten(),
            LAYERS.Dense(2),
        ]
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        convert(model, tmp_path, hls4ml.utils.config_from_keras_model(model, granularity='name'))
    assert not [warning for warning in caught if issubclass(warning.category, DeprecationWarning)], [
        str(warning.message)[:120] for warning in caught
    ]


# ---- the generated firmware ----------------------------------------------------------------------------
@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
def test_the_vitis_top_function_has_hls_pragma_lines(keras_model, tmp_path, io_type: str) -> None:
    project = convert(keras_model, tmp_path, io_type=io_type).write()
    top = (tmp_path / 'prj' / 'firmware' / 'myproject.cpp').read_text()
    assert project and 'HLS4ML_TOP_PRAGMA' not in top
    pragmas = [line.strip() for line in top.splitlines() if line.strip().startswith('#pragma HLS')]
    if io_type == 'io_stream':
        assert '#pragma HLS INTERFACE axis port=layer1_out' in pragmas and '#pragma HLS DATAFLOW' in pragmas
        assert any(pragma.startswith('#pragma HLS STREAM variable=layer2_out depth=') for pragma in pragmas)
    else:
        assert '#pragma HLS INTERFACE ap_vld port=layer1_out' in pragmas
        assert '#pragma HLS ARRAY_PARTITION variable=layer2_out complete' in pragmas
