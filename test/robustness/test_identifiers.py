"""Layer names cannot collide with the identifiers of the generated C++, and neither can the project name.

Every identifier the lowering generates is index-based (config3, w3, layer3_out, layer3_result_t); layer
and tensor names appear in comments only. So a model whose layers are named like generated identifiers,
vendor types, namespaces or the project's own functions writes the same C++ as one with plain names
(comments aside) and predicts the same, on Vitis and Catapult, in both IO types. The one user-chosen
identifier is the project name: names the generated code always defines are refused at conversion, names
of this model's generated identifiers when the project is written (both in `model/names.py`)."""

from __future__ import annotations

import re
from pathlib import Path

import keras
import numpy as np
import pytest
from refusals import refused

import hls4ml
from hls4ml.backends.common.project import lower_project
from hls4ml.model.interpreter import interpret
from hls4ml.model.names import project_name_clash, project_name_problem

TEMPLATES = Path(hls4ml.__file__).parent / 'templates'
HOSTILE = (
    'input_t',
    'config2',
    'w2',
    'b4',
    'ap_fixed',
    'ac_int',
    'result_t',
    'layer2_t',
    'nnet',
    'std',
    'hls',
    'myproject',
    'myproject_predict',
    'myproject_trace_buffers',
    'layer3_out',
)
PLAIN = tuple(f'plain{index}' for index in range(len(HOSTILE)))
LIBRARY_FOLDERS = ('ap_types', 'ac_types', 'nnet_utils')  # copied headers, the same for every model


def build(names: tuple[str, ...]) -> keras.Model:
    """Dense, activations (lossless and table), batch normalization, a skip connection (a clone in
    io_stream) and softmax, each layer named by `names` in order."""
    layers, name = keras.layers, iter(names)
    inputs = keras.Input((6,), name=next(name))
    x = layers.Dense(8, name=next(name))(inputs)
    x = layers.Activation('relu', name=next(name))(x)
    skip = layers.Dense(8, name=next(name))(x)
    x = layers.BatchNormalization(name=next(name))(skip)
    x = layers.Activation('tanh', name=next(name))(x)
    x = layers.Dense(8, name=next(name))(x)
    x = layers.Add(name=next(name))([x, skip])
    x = layers.Dense(8, activation='relu', name=next(name))(x)
    x = layers.Dense(8, name=next(name))(x)
    x = layers.Activation('sigmoid', name=next(name))(x)
    x = layers.Dense(5, name=next(name))(x)
    x = layers.Softmax(name=next(name))(x)
    return keras.Model(inputs, layers.Activation('linear', name=next(name))(x))


@pytest.fixture(scope='module')
def models() -> tuple[keras.Model, keras.Model]:
    """The hostile-named model and its plain-named twin, with the same (random, non-trivial) weights."""
    hostile, plain = build(HOSTILE), build(PLAIN)
    rng = np.random.default_rng(5)
    for ours, twin in zip(hostile.layers, plain.layers, strict=True):
        weights = [rng.uniform(0.5, 1.5, w.shape) if 'variance' in v.path else rng.uniform(-1, 1, w.shape)
                   for w, v in zip(ours.get_weights(), ours.weights, strict=True)]  # fmt: skip
        ours.set_weights(weights)
        twin.set_weights(weights)
    return hostile, plain


def convert(model: keras.Model, folder: Path, backend: str, io_type: str, project_name: str = 'myproject'):
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='fixed<18,8>')
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend=backend, io_type=io_type, project_name=project_name
    )


def sources_without_comments(folder: Path) -> dict[str, str]:
    """Every C++ file written for the model (not the copied library), comments removed."""
    texts = {}
    for path in sorted(folder.rglob('*')):
        if path.suffix in ('.h', '.hpp', '.cpp') and not set(LIBRARY_FOLDERS) & set(path.parts):
            text = re.sub(r'/\*.*?\*/', '', path.read_text(), flags=re.DOTALL)
            texts[str(path.relative_to(folder))] = re.sub(r'//[^\n]*', '', text)
    return texts


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_layer_names_reach_only_comments(models, backend, io_type, tmp_path) -> None:
    hostile = convert(models[0], tmp_path / 'hostile', backend, io_type)
    plain = convert(models[1], tmp_path / 'plain', backend, io_type)
    assert [layer.name for layer in hostile.get_layers()][:3] == list(HOSTILE[:3])
    hostile.write()
    plain.write()
    written = sources_without_comments(tmp_path / 'hostile')
    assert written and written == sources_without_comments(tmp_path / 'plain')


@pytest.mark.csim
@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'Catapult'])
def test_hostile_names_compile_and_predict_like_plain_names(models, backend, io_type, tmp_path) -> None:
    x = np.random.default_rng(1).uniform(-3, 3, (64, 6))
    hostile = convert(models[0], tmp_path / 'hostile', backend, io_type)
    plain = convert(models[1], tmp_path / 'plain', backend, io_type)
    predicted = hostile.predict(x)
    np.testing.assert_array_equal(predicted, plain.predict(x))
    (interpreted,), _ = interpret(hostile, x)
    np.testing.assert_array_equal(predicted, interpreted.to_double())
    assert np.ptp(predicted) > 0  # the model computes something that varies with the input


# ---- the project name ----------------------------------------------------------------------------------------
ALWAYS_RESERVED = [
    'nnet', 'NNET_DENSE_H_', 'hls', 'hls4ml_fixed', 'HLS4ML_EXPORT', 'ap_fixed', 'ap_int', 'AP_INT_MAX_W',
    'ac_fixed', 'ac_int', 'std', 'sycl', 'ccs_main', 'mc_scverify', 'input_t', 'result_t', 'size_t', 'uint8_t',
    'defines', 'parameters', 'main', 'run', 'read_line', 'stdout', 'errno', 'my__name', '_Upper',
]  # fmt: skip


@pytest.mark.parametrize('name', ALWAYS_RESERVED)
def test_a_project_name_problem_is_refused_at_conversion(models, name, tmp_path) -> None:
    refused(lambda: convert(models[1], tmp_path, 'Vitis', 'io_parallel', name), f'project_name {name!r}')


@pytest.mark.parametrize('name', ['w2', 'W2', 'config2', 'b4', 'w2_values', 'w2_loaded', 'layer3_out', 'config5_task'])
def test_a_project_name_equal_to_a_generated_name_is_refused_before_writing(models, name, tmp_path) -> None:
    hls_model = convert(models[1], tmp_path / 'prj', 'Vitis', 'io_parallel', name)
    refused(hls_model.write, f'project_name {name!r} collides with the generated identifier')
    assert not (tmp_path / 'prj').exists()


def test_every_macro_of_the_shipped_headers_is_a_project_name_problem() -> None:
    """Header guards are upper-cased project names: no macro of the library may be one."""
    macros = {
        match
        for path in TEMPLATES.rglob('*')
        if path.is_file() and '__pycache__' not in path.parts  # compiled templates (writer/templates.py)
        for match in re.findall(r'^\s*#\s*define\s+(\w+)', path.read_text(errors='replace'), flags=re.MULTILINE)
    }
    assert len(macros) > 50
    assert [macro for macro in sorted(macros) if not project_name_problem(macro)] == []


GLOBAL_DEFINITION = re.compile(
    r'^\s*#\s*define\s+(\w+)|^(?:typedef\s[^;]*?(\w+)\s*;|(?:struct|class|namespace)\s+(\w+)'
    r'|using\s+(\w+)\s*=|static\s[^;(=]*?(\w+)\s*(?:\[|=))',  # at the start of a line: global scope
    flags=re.MULTILINE,
)


@pytest.mark.parametrize('io_type', ['io_parallel', 'io_stream'])
@pytest.mark.parametrize('backend', ['Vitis', 'oneAPI', 'Catapult'])
def test_every_name_the_project_defines_is_refused_as_project_name(models, backend, io_type, tmp_path) -> None:
    """Each name the written C++ defines outside functions (typedefs, structs, arrays, macros, pipes)
    is refused as a project name, by the fixed rules or as one of this model's generated names."""
    hls_model = convert(models[1], tmp_path, backend, io_type)
    hls_model.write()
    generated = lower_project(hls_model.design).global_identifiers
    defined = {
        name
        for text in sources_without_comments(tmp_path).values()
        for groups in GLOBAL_DEFINITION.findall(text)
        for name in groups
        if name and not name.lower().startswith('myproject')
    }
    assert len(defined) > 20
    accepted = sorted(name for name in defined if not project_name_problem(name))
    accepted = [name for name in accepted if not project_name_clash(name, generated)]
    assert accepted == []


@pytest.mark.csim
def test_unusual_but_free_project_names_compile(models, tmp_path) -> None:
    x = np.random.default_rng(2).uniform(-3, 3, (8, 6))
    reference = None
    for name in ('nnetwork', 'model_v2'):
        predicted = convert(models[1], tmp_path / name, 'Vitis', 'io_parallel', name).predict(x)
        reference = predicted if reference is None else reference
        np.testing.assert_array_equal(predicted, reference)
