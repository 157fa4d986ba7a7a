"""The converter entry points: `convert_from_keras_model` settings and `convert_from_config` (dict, YAML)."""

from __future__ import annotations

import copy

import keras
import numpy as np
import pytest
import yaml

from hls4ml.converters import convert_from_config, convert_from_keras_model, parse_yaml_config


@pytest.fixture(scope='module')
def model() -> keras.Model:
    inputs = keras.Input((4,), name='x')
    return keras.Model(inputs, keras.layers.Dense(3, activation='relu', name='fc')(inputs))


def test_keras_model_settings_reach_the_config(model, tmp_path) -> None:
    hls_model = convert_from_keras_model(
        model,
        output_dir=str(tmp_path / 'prj'),
        project_name='top',
        backend='Vivado',
        part='xc7z020clg400-1',
        clock_period=10,
        input_data_tb='in.npy',
        output_data_tb='out.npy',
    )
    config = hls_model.config
    assert (config['OutputDir'], config['ProjectName'], config['Backend']) == (str(tmp_path / 'prj'), 'top', 'Vivado')
    assert (config['Part'], config['ClockPeriod'], config['ClockUncertainty']) == ('xc7z020clg400-1', 10, '12.5%')
    assert (config['InputData'], config['OutputPredictions']) == ('in.npy', 'out.npy')
    assert config['KerasModel'] is model
    assert not (tmp_path / 'prj').exists()  # converting writes nothing


def test_model_defaults_are_only_filled_in(model, tmp_path) -> None:
    hls_config = {'Model': {'ReuseFactor': 2}, 'LayerName': {'fc': {'Trace': True}}}
    given = copy.deepcopy(hls_config)
    hls_model = convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), hls_config=hls_config)
    assert hls_model.config['HLSConfig']['Model'] == {'ReuseFactor': 2, 'Precision': 'fixed<16,6>'}
    assert hls_model.config['HLSConfig']['LayerName'] == {'fc': {'Trace': True}}
    assert hls_config == given  # the caller's dictionary is not edited
    assert hls_model.graph.layers['fc'].attributes['reuse_factor'] == 2


@pytest.mark.parametrize(
    'hls_config, words',
    [
        ({'Flows': ['vivado:fifo_depth_optimization']}, ["'Flows'", 'not supported']),
        ({'Models': {}}, ["'Models'"]),
    ],
)
def test_bad_hls_config_sections_are_refused(model, tmp_path, hls_config, words) -> None:
    with pytest.raises(ValueError) as caught:
        convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), hls_config=hls_config)
    for word in words:
        assert word in str(caught.value)


def test_empty_optimizer_lists_are_accepted(model, tmp_path) -> None:
    hls_config = {'Flows': [], 'Optimizers': [], 'SkipOptimizers': []}
    convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), hls_config=hls_config)


def test_bit_exact_is_refused_for_now(model, tmp_path) -> None:
    with pytest.raises(ValueError, match='bit_exact'):
        convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), bit_exact=True)


def test_a_catapult_asic_config_keeps_its_backend_and_writer_keys(model, tmp_path) -> None:
    """Technology, ASICLibs and FIFO (Catapult), and WriterConfig, reach the backend as the keywords would."""
    text = f"""
KerasModel: null
OutputDir: {tmp_path / 'prj'}
Backend: Catapult
Technology: asic
ASICLibs: [nangate-45nm_beh]
FIFO: 16
ClockPeriod: 3
WriterConfig:
  TBOutputStream: stdout
  WriteTar: true
"""
    settings = yaml.safe_load(text)
    settings['KerasModel'] = model
    hls_model = convert_from_config(settings)
    config = hls_model.config
    assert config['Technology'] == 'asic' and config['ClockPeriod'] == 3 and 'Part' not in config
    assert config['WriterConfig']['TBOutputStream'] == 'stdout' and config['WriterConfig']['WriteTar'] is True
    assert config['ASICLibs'] == 'nangate-45nm_beh' and config['FIFO'] == 16


def test_convert_from_a_config_dictionary(model, tmp_path) -> None:
    hls_model = convert_from_config(
        {
            'KerasModel': model,
            'OutputDir': str(tmp_path / 'prj'),
            'ProjectName': 'from_dict',
            'Backend': 'Vitis',
            'ClockPeriod': 4,
            'IOType': 'io_parallel',
            'HLSConfig': {'LayerName': {'fc': {'Precision': {'weight': 'fixed<8,2>'}}}},
        }
    )
    assert (hls_model.project_name, hls_model.config['Backend'], hls_model.config['ClockPeriod']) == (
        'from_dict',
        'Vitis',
        4,
    )
    assert str(hls_model.graph.layers['fc'].types['weight']) == 'fixed<8,2>'


def test_convert_from_a_yaml_file_naming_a_saved_model(model, tmp_path) -> None:
    model_path = tmp_path / 'model.keras'
    model.save(model_path)
    config_path = tmp_path / 'config.yml'
    settings = {
        'KerasModel': str(model_path),
        'OutputDir': str(tmp_path / 'prj'),
        'ProjectName': 'from_yaml',
        'Part': 'xcku115-flvb2104-2-i',
        'HLSConfig': {'Model': {'Precision': 'fixed<12,4>', 'ReuseFactor': 3}},
    }
    config_path.write_text(yaml.safe_dump(settings))
    assert parse_yaml_config(config_path) == settings
    hls_model = convert_from_config(str(config_path))
    assert (hls_model.project_name, hls_model.config['Part']) == ('from_yaml', 'xcku115-flvb2104-2-i')
    dense = hls_model.graph.layers['fc']
    assert str(dense.types['weight']) == 'fixed<12,4>' and dense.attributes['reuse_factor'] == 3
    np.testing.assert_array_equal(dense.weights['weight'], keras.ops.convert_to_numpy(model.get_layer('fc').kernel))


def test_a_yaml_file_that_is_not_a_mapping_is_refused(tmp_path) -> None:
    path = tmp_path / 'config.yml'
    path.write_text('- just\n- a list\n')
    with pytest.raises(ValueError, match='mapping'):
        parse_yaml_config(path)


def test_a_config_without_a_model_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match='KerasModel'):
        convert_from_config({'OutputDir': str(tmp_path / 'prj')})


def test_supported_layer_lists_name_each_frontend():
    from hls4ml import converters

    assert {'Dense', 'Conv2D', 'Dropout'} <= set(converters.get_supported_keras_layers())
    assert {'Linear', 'Conv2d', 'relu', 'flatten', 'view'} <= set(converters.get_supported_pytorch_layers())
    assert {'Gemm', 'Conv', 'Quant', 'BipolarQuant', 'Trunc'} <= set(converters.get_supported_onnx_layers())


def test_yaml_config_names_an_onnx_file_or_a_saved_pytorch_module(tmp_path):
    import onnx
    import torch

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    torch.save(module, tmp_path / 'mlp.pt')
    weight, bias = (p.detach().numpy() for p in module[0].parameters())
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node('Gemm', ['x', 'w', 'b'], ['h'], transB=1), onnx.helper.make_node('Relu', ['h'], ['y'])],
        'mlp',
        [onnx.helper.make_tensor_value_info('x', onnx.TensorProto.FLOAT, ['N', 4])],
        [onnx.helper.make_tensor_value_info('y', onnx.TensorProto.FLOAT, ['N', 3])],
        [onnx.numpy_helper.from_array(weight, 'w'), onnx.numpy_helper.from_array(bias, 'b')],
    )
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid('', 13)]), tmp_path / 'mlp.onnx')
    common = {'Backend': 'Vitis', 'HLSConfig': {'Model': {'Precision': 'fixed<16,6>'}}}
    from_torch = {'PytorchModel': str(tmp_path / 'mlp.pt'), 'InputShape': [4], 'OutputDir': str(tmp_path / 'a')}
    from_onnx = {'OnnxModel': str(tmp_path / 'mlp.onnx'), 'OutputDir': str(tmp_path / 'b')}
    paths = []
    for index, settings in enumerate((from_torch, from_onnx)):
        paths.append(tmp_path / f'config{index}.yml')
        paths[-1].write_text(yaml.safe_dump({**common, **settings}))
    models = [convert_from_config(str(path), allow_pickle=True) for path in paths]  # the test made the pickle
    assert [[layer.kind for layer in model.get_layers()] for model in models] == [['Input', 'Dense', 'Activation']] * 2
    assert models[0].graph.layers['layer_0'].source_class == 'Linear'
