"""Issue 13 items 4, 5, 8 and 9 through the Python API: every top-level value that reaches a build script
or the file system is checked when the config is created (create_config, every convert_from_*,
convert_from_config with a YAML file), with an error naming the key, the value and the form allowed;
pickled PyTorch models load only with an explicit opt-in; silently accepted keys are now errors or
warnings by name."""

from __future__ import annotations

import os
import re
import types
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

from hls4ml.converters import convert_from_config, convert_from_keras_model, load_torch_module  # noqa: E402
from hls4ml.utils.config import create_config  # noqa: E402
from hls4ml.writer import check_project_names  # noqa: E402

INJECTED_PART = 'xcvu9p[exec touch hacked]'


@pytest.fixture(scope='module')
def model() -> keras.Model:
    keras.utils.set_random_seed(4)
    inputs = keras.Input((4,), name='x')
    return keras.Model(inputs, keras.layers.Dense(2, name='fc')(inputs))


# ---- item 4: parts and clocks ------------------------------------------------------------------------------


@pytest.mark.parametrize('backend', ['Vitis', 'Vivado', 'Catapult', 'oneAPI'])
@pytest.mark.parametrize(
    'part', [INJECTED_PART, 'xcvu13p\n', 'xcvu13p-flga2577-2-e; rm -rf /', '$part', '"xcvu13p"', '', 'a b', 42]
)
def test_a_malformed_part_is_refused_by_every_backend(backend: str, part: Any) -> None:
    with pytest.raises(ValueError, match=r'part \(config key Part\) must be .*; got ' + re.escape(repr(part))):
        create_config('out', 'prj', backend, part=part)


@pytest.mark.parametrize(
    'backend, part',
    [
        ('Vitis', 'xcvu9p-flga2104-2L-e'),
        ('Vivado', 'xc7z020clg400-1'),
        ('Catapult', 'xcku115-flvb2104-2-i'),
        ('oneAPI', 'Agilex7'),
        ('oneAPI', 'Stratix10'),
        ('oneAPI', 'AGFB014R24B2E2V'),
    ],
)
def test_a_part_of_the_device_table_is_accepted_without_a_warning(backend: str, part: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert create_config('out', 'prj', backend, part=part)['Part'] == part


@pytest.mark.parametrize(
    'backend, part', [('Vitis', 'xc7a35tcpg236-1'), ('Vitis', 'Agilex7'), ('oneAPI', 'de10_agilex:B2E2_8GBx4')]
)
def test_an_unknown_part_warns_that_estimates_have_no_utilisation(backend: str, part: str) -> None:
    with pytest.warns(UserWarning, match=rf"part '{part}' is not in hls4ml's device table.*no utilisation %"):
        assert create_config('out', 'prj', backend, part=part)['Part'] == part


def test_the_default_parts_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for backend in ('Vitis', 'Vivado', 'Catapult', 'oneAPI'):
            create_config('out', 'prj', backend)


@pytest.mark.parametrize('clock_period', [0, -5, float('nan'), float('inf'), '5', '5 [exec ls]', True, None])
def test_a_bad_clock_period_is_refused(clock_period: Any) -> None:
    with pytest.raises(ValueError, match=r'clock_period \(config key ClockPeriod\) must be a positive number'):
        create_config('out', 'prj', 'Vitis', clock_period=clock_period)


@pytest.mark.parametrize('uncertainty', ['12.5%', '27%', '0%', 0.5, 1, '0.25'])
def test_a_clock_uncertainty_in_percent_or_ns_is_accepted(uncertainty: Any) -> None:
    assert create_config('out', 'prj', 'Vivado', clock_uncertainty=uncertainty)['ClockUncertainty'] == uncertainty


@pytest.mark.parametrize('uncertainty', ['12.5%]', '1 [exec ls]', '150%', '-1', -0.5, '%', '', True, float('nan')])
def test_a_bad_clock_uncertainty_is_refused(uncertainty: Any) -> None:
    with pytest.raises(ValueError, match=r'clock_uncertainty \(config key ClockUncertainty\) must be a percentage'):
        create_config('out', 'prj', 'Vitis', clock_uncertainty=uncertainty)


@pytest.mark.parametrize('libraries', ['nan(gate)', ['ok_lib', 'bad{lib}'], 'lib;x', ['$lib'], ['ok_lib\n']])
def test_a_bad_asic_library_is_refused(libraries: Any) -> None:
    with pytest.raises(ValueError, match=r'asiclibs \(config key ASICLibs\) must name Catapult libraries'):
        create_config('out', 'prj', 'Catapult', tech='asic', asiclibs=libraries)


def test_an_injected_part_from_a_yaml_file_is_refused(model, tmp_path: Path) -> None:
    model.save(tmp_path / 'model.keras')
    config = tmp_path / 'config.yml'
    config.write_text(
        f"KerasModel: {tmp_path / 'model.keras'}\nOutputDir: {tmp_path / 'prj'}\nPart: '{INJECTED_PART}'\n"
    )
    with pytest.raises(ValueError, match=r'part \(config key Part\) must be a Xilinx part name'):
        convert_from_config(str(config))
    assert not (tmp_path / 'prj').exists()


# ---- item 8: project names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    'name, problem',
    [
        ('prj\n', 'is not a C\\+\\+ identifier'),
        ('my project', 'is not a C\\+\\+ identifier'),
        ('1st', 'is not a C\\+\\+ identifier'),
        ('prj[exec ls]', 'is not a C\\+\\+ identifier'),
        ('int', 'is a C\\+\\+ keyword'),
        ('nnet', 'would collide with a name the generated C\\+\\+'),
        (None, 'is missing'),
        ('', 'is missing'),
        (3, 'is not a C\\+\\+ identifier'),
    ],
)
def test_a_bad_project_name_is_refused_at_conversion(model, tmp_path: Path, name: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=rf'project_name .*\(config key ProjectName\) {problem}'):
        convert_from_keras_model(model, output_dir=str(tmp_path / 'prj'), project_name=name)


def test_the_writer_checks_the_whole_project_name(tmp_path: Path) -> None:
    """The writer's own check (`re.match` with `$` let 'prj\\n' through)."""
    with pytest.raises(ValueError, match='is not a C\\+\\+ identifier'):
        check_project_names(types.SimpleNamespace(project_name='prj\n', output_dir=str(tmp_path)))


# ---- item 9: output_dir, Namespace, unknown keys -------------------------------------------------------------


@pytest.mark.parametrize('output_dir, message', [('', 'is empty'), ('  ', 'is empty'), (None, 'must be a folder path')])
def test_a_missing_output_dir_is_refused(model, output_dir: Any, message: str) -> None:
    with pytest.raises(ValueError, match=rf'output_dir \(config key OutputDir\) {message}'):
        convert_from_keras_model(model, output_dir=output_dir)


def test_an_empty_output_dir_leaves_the_working_directory_alone(model, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / 'firmware' / 'weights').mkdir(parents=True)
    (tmp_path / 'firmware' / 'weights' / 'mine.txt').write_text('keep me')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match='is empty'):
        convert_from_config({'KerasModel': model, 'OutputDir': ''})
    assert (tmp_path / 'firmware' / 'weights' / 'mine.txt').read_text() == 'keep me'


@pytest.mark.parametrize('backend', ['Vitis', 'Vivado', 'Catapult'])
def test_a_writer_namespace_is_refused(backend: str) -> None:
    with pytest.raises(ValueError, match=r"namespace \(WriterConfig Namespace\) 'my_ns' is not supported"):
        create_config('out', 'prj', backend, namespace='my_ns')


def test_a_writer_namespace_in_a_config_is_refused(model, tmp_path: Path) -> None:
    settings = {'KerasModel': model, 'OutputDir': str(tmp_path / 'prj'), 'WriterConfig': {'Namespace': 'ns'}}
    with pytest.raises(ValueError, match='Namespace.*not supported'):
        convert_from_config(settings)


def test_an_unknown_top_level_key_is_an_error_naming_the_known_keys(model, tmp_path: Path) -> None:
    settings = {'KerasModel': model, 'OutputDir': str(tmp_path / 'prj'), 'ClockPeriode': 3}
    with pytest.raises(ValueError, match=r"unknown top-level key\(s\) 'ClockPeriode'; the keys are .*ClockPeriod"):
        convert_from_config(settings)


def test_a_project_folder_cannot_opt_itself_in_to_pickles(model, tmp_path: Path) -> None:
    settings = {'KerasModel': model, 'OutputDir': str(tmp_path / 'prj'), 'AllowPickle': True}
    with pytest.raises(ValueError, match="unknown top-level key\\(s\\) 'AllowPickle'"):
        convert_from_config(settings)


def test_an_unknown_writer_key_is_an_error(model, tmp_path: Path) -> None:
    settings = {'KerasModel': model, 'OutputDir': str(tmp_path / 'prj'), 'WriterConfig': {'WriteTarball': True}}
    with pytest.raises(ValueError, match=r"unknown WriterConfig key\(s\) 'WriteTarball'; the keys are Namespace"):
        convert_from_config(settings)


def test_hls4ml_1x_keys_that_change_nothing_warn(model, tmp_path: Path) -> None:
    settings = {'KerasModel': model, 'OutputDir': str(tmp_path / 'prj'), 'Stamp': 'a1b2c3d4', 'MaximumSize': 4096}
    with pytest.warns(UserWarning, match='ignoring the hls4ml 1.x key\\(s\\) Stamp, MaximumSize'):
        assert convert_from_config(settings).config['OutputDir'] == str(tmp_path / 'prj')


def test_keras_json_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='KerasJson .* is not supported: save the model as one .keras file'):
        convert_from_config({'KerasJson': 'model.json', 'KerasH5': 'weights.h5', 'OutputDir': str(tmp_path)})


def test_a_written_project_config_converts_again(model, tmp_path: Path) -> None:
    """hls4ml_config.yml, as the writer dumps it, passes the key check (every key it writes is known)."""
    model.save(tmp_path / 'model.keras')
    first = convert_from_config({'KerasModel': str(tmp_path / 'model.keras'), 'OutputDir': str(tmp_path / 'prj')})
    first.write()
    settings = yaml.safe_load((tmp_path / 'prj' / 'hls4ml_config.yml').read_text())
    settings['KerasModel'] = str(tmp_path / 'model.keras')
    with warnings.catch_warnings():
        warnings.simplefilter('error', UserWarning)
        again = convert_from_config(settings).config
    assert {key: value for key, value in again.items() if key != 'KerasModel'} == {
        key: value for key, value in first.config.items() if key != 'KerasModel'
    }


# ---- item 5: pickles -----------------------------------------------------------------------------------------


class RunsWhenUnpickled:
    """A pickle payload: unpickling it creates a folder (what a hostile model file would do, harmlessly)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> Any:
        return (os.mkdir, (str(self.path),))


def torch_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a hostile pickle, a whole saved module, a state_dict)."""
    torch = pytest.importorskip('torch')
    hostile = tmp_path / 'hostile.pt'
    torch.save(RunsWhenUnpickled(tmp_path / 'hacked'), hostile)
    module = torch.nn.Sequential(torch.nn.Linear(4, 2))
    torch.save(module, tmp_path / 'module.pt')
    torch.save(module.state_dict(), tmp_path / 'weights.pt')
    return hostile, tmp_path / 'module.pt', tmp_path / 'weights.pt'


def test_a_pickled_model_is_refused_without_the_opt_in_and_runs_nothing(tmp_path: Path) -> None:
    hostile, module, _ = torch_files(tmp_path)
    for path in (hostile, module):
        with pytest.raises(ValueError, match='is a pickled PyTorch model: loading it runs code.*allow_pickle=True'):
            load_torch_module(path)
    assert not (tmp_path / 'hacked').exists()
    config = {'PytorchModel': str(hostile), 'InputShape': [4], 'OutputDir': str(tmp_path / 'prj')}
    with pytest.raises(ValueError, match='--allow-pickle'):
        convert_from_config(config)
    assert not (tmp_path / 'hacked').exists()


def test_the_opt_in_loads_a_whole_module(tmp_path: Path) -> None:
    hostile, module, weights = torch_files(tmp_path)
    config = {'PytorchModel': str(module), 'InputShape': [4], 'OutputDir': str(tmp_path / 'prj')}
    hls_model = convert_from_config(config, allow_pickle=True)
    assert [layer.kind for layer in hls_model.get_layers()] == ['Input', 'Dense']
    with pytest.raises(
        ValueError, match='holds an object of type OrderedDict, not a torch.nn.Module: save the whole module'
    ):
        load_torch_module(weights)  # weights_only=True reads a state_dict, which has no architecture
    with pytest.raises(ValueError, match='holds an object of type NoneType'):
        load_torch_module(hostile, allow_pickle=True)
    assert (tmp_path / 'hacked').is_dir()  # what the opt-in means: the file's code ran
