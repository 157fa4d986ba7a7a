"""The written project as a whole: warning-free C++, the testbench, YAML configs, the example's accuracy."""

from __future__ import annotations

import os
import shutil
import subprocess

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402

import hls4ml  # noqa: E402

pytestmark = pytest.mark.csim
# as the bridge is compiled (csim/compiler.py) and the testbench in build_prj.tcl: the firmware's `#pragma HLS`
# lines are for the HLS tool
WARNINGS_AS_ERRORS = [
    'g++',
    '-std=c++17',
    '-fsyntax-only',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-Wno-unknown-pragmas',
    '-Ifirmware/ap_types',
]


def assert_warning_free(project, sources: tuple[str, ...]) -> None:
    for source in sources:
        result = subprocess.run([*WARNINGS_AS_ERRORS, source], cwd=project, capture_output=True, text=True)
        assert result.returncode == 0 and not result.stderr, result.stderr[:3000]


def run_testbench(project, binary, project_name: str = 'myproject') -> str:
    """Build the project's testbench with g++, run it in the project folder; returns what it printed."""
    sources = [f'{project_name}_test.cpp', f'firmware/{project_name}.cpp']
    build = subprocess.run(
        ['g++', '-std=c++17', '-O1', '-Ifirmware/ap_types', *sources, '-o', str(binary)],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[:3000]
    return subprocess.run([str(binary)], cwd=project, capture_output=True, text=True, check=True).stdout


def every_kind_model() -> keras.Model:
    """One model with every supported layer kind, so one compile checks them all."""
    keras.utils.set_random_seed(7)
    layers = keras.layers
    return keras.Sequential(
        [
            keras.Input((10,), name='features'),
            layers.Dense(12, activation='relu', name='fc1'),
            layers.BatchNormalization(name='bn'),
            layers.Dense(12, activation='tanh', name='fc2'),
            layers.Activation('sigmoid'),
            layers.Dense(10, name='fc3'),
            layers.LeakyReLU(negative_slope=0.2),
            layers.ELU(),
            layers.PReLU(),
            layers.Activation('softplus'),
            layers.Activation('softsign'),
            layers.Activation('selu'),
            layers.Activation('hard_sigmoid'),
            layers.ReLU(threshold=0.1),
            layers.Dense(4, activation='softmax', name='out'),
        ]
    )


@pytest.fixture(scope='module')
def written_project(tmp_path_factory):
    model = every_kind_model()
    directory = tmp_path_factory.mktemp('every_kind')
    x = np.random.default_rng(0).normal(0, 1, (25, 10))
    np.save(directory / 'x.npy', x)
    config = hls4ml.utils.config_from_keras_model(model, granularity='name')
    config['LayerName']['fc2']['Strategy'] = 'Resource'
    config['LayerName']['fc2']['ReuseFactor'] = 4
    hls_model = hls4ml.converters.convert_from_keras_model(
        model,
        hls_config=config,
        output_dir=str(directory / 'prj'),
        backend='Vitis',
        input_data_tb=str(directory / 'x.npy'),
    )
    hls_model.write()
    return model, hls_model, x, directory / 'prj'


def test_generated_code_is_warning_free_with_wall_wextra(written_project) -> None:
    _, hls_model, _, project = written_project
    assert_warning_free(project, (f'{hls_model.project_name}_bridge.cpp', f'{hls_model.project_name}_test.cpp'))


def test_testbench_reads_tb_data_and_matches_predict(written_project, tmp_path) -> None:
    model, hls_model, x, project = written_project
    assert '25 samples written' in run_testbench(project, tmp_path / 'testbench')
    logged = np.loadtxt(project / 'tb_data' / 'csim_results.log')
    np.testing.assert_allclose(logged, hls_model.predict(x), rtol=1e-5, atol=1e-6)
    assert np.mean(logged.argmax(axis=1) == model.predict(x, verbose=0).argmax(axis=1)) > 0.8


def test_build_script_runs_the_requested_steps_under_tclsh(written_project, tmp_path) -> None:
    """build_prj.tcl under tclsh with stub Vitis commands that record what they were called with."""
    if shutil.which('tclsh') is None:
        pytest.skip('tclsh is not installed')
    _, hls_model, _, project = written_project
    stubs = tmp_path / 'stubs.tcl'
    stubs.write_text(
        'set calls {}\n'
        'foreach name {open_project set_top add_files open_solution set_part create_clock set_clock_uncertainty '
        'csim_design csynth_design cosim_design export_design} {\n'
        '  proc $name {args} "lappend ::calls \\"$name \\$args\\""\n'
        '}\n'
        'proc exec {args} { lappend ::calls "exec $args" }\n'
        'proc exit {} { foreach call $::calls { puts $call } }\n'
    )
    (project / 'build_opt.tcl').write_text('array set opt {reset 0 csim 0 synth 1 cosim 1 export 0 vsynth 0}\n')
    try:
        result = subprocess.run(
            ['tclsh'], input=f'source {stubs}\nsource build_prj.tcl\n', cwd=project, capture_output=True, text=True
        )
    finally:
        (project / 'build_opt.tcl').unlink()
    calls = [line.split()[0] for line in result.stdout.splitlines() if line and not line.startswith('*')]
    assert calls[:2] == ['open_project', 'set_top']
    assert 'csynth_design' in calls and 'cosim_design' in calls and 'csim_design' not in calls
    assert f'set_top {hls_model.project_name}' in result.stdout
    assert 'set_part xcvu13p-flga2577-2-e' in result.stdout and 'create_clock -period 5 -name default' in result.stdout


def test_yaml_config_converts_the_same_model(written_project, tmp_path) -> None:
    model, hls_model, x, _ = written_project
    model_path = tmp_path / 'model.keras'
    model.save(model_path)
    config = {
        'KerasModel': str(model_path),
        'OutputDir': str(tmp_path / 'from_yaml'),
        'ProjectName': 'myproject',
        'Backend': 'Vitis',
        'IOType': 'io_parallel',
        'HLSConfig': hls4ml.utils.config_from_keras_model(model, granularity='name'),
    }
    config['HLSConfig']['LayerName']['fc2'].update(Strategy='Resource', ReuseFactor=4)
    path = tmp_path / 'config.yml'
    path.write_text(yaml.safe_dump(config))
    from_yaml = hls4ml.converters.convert_from_config(str(path))
    np.testing.assert_array_equal(from_yaml.predict(x), hls_model.predict(x))


def test_example_mlp_meets_the_accuracy_contract(tmp_path) -> None:
    """A trained 16-64-32-32-5 MLP: >= 99% argmax agreement at ap_fixed<16,6>, auto precision at least as good."""
    rng = np.random.default_rng(1)
    centers = rng.normal(0, 1.5, (5, 16))
    labels = rng.integers(0, 5, 6000)
    x = (centers[labels] + rng.normal(0, 1, (6000, 16))).astype(np.float32)
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [keras.Input((16,))]
        + [keras.layers.Dense(units, activation='relu') for units in (64, 32, 32)]
        + [keras.layers.Dense(5, activation='softmax')]
    )
    model.compile(optimizer='adam', loss='sparse_categorical_crossentropy')
    model.fit(x[:4000], labels[:4000], epochs=3, batch_size=128, verbose=0)
    reference = model.predict(x[4000:], verbose=0).argmax(axis=1)
    agreement = {}
    for granularity in ('model', 'name'):
        config = hls4ml.utils.config_from_keras_model(
            model, granularity=granularity, default_precision='ap_fixed<16,6>'
        )
        hls_model = hls4ml.converters.convert_from_keras_model(
            model, hls_config=config, output_dir=str(tmp_path / granularity), backend='Vitis'
        )
        agreement[granularity] = np.mean(hls_model.predict(x[4000:]).argmax(axis=1) == reference)
    assert agreement['model'] >= 0.99
    assert agreement['name'] >= agreement['model']


def test_generated_code_computes_the_same_bits_with_the_vendor_headers(written_project, monkeypatch) -> None:
    """The project compiled against the real Xilinx ap_types (when this machine has them) == ours."""
    from vendor import vendor_headers, why_missing

    folder = vendor_headers('ap')
    if folder is None:
        pytest.skip(f'the vendor ap_types are not on this machine: {why_missing()}')
    _, hls_model, x, _ = written_project
    ours = hls_model.predict(x)
    monkeypatch.setenv('HLS4ML_AP_TYPES', str(folder))
    hls_model.compile()
    assert str(folder) in [str(path) for path in hls_model._simulation.interface.sources.external_includes]
    np.testing.assert_array_equal(hls_model.predict(x), ours)


def test_streaming_project_is_warning_free_and_its_testbench_matches_predict(tmp_path) -> None:
    """io_stream: the example CNN's bridge and testbench compile with -Wall -Wextra -Werror; the testbench
    (reading tb_data through hls::stream) prints what predict() returns."""
    keras.utils.set_random_seed(3)
    layers = keras.layers
    model = keras.Sequential(
        [
            keras.Input((10, 10, 1)),
            layers.Conv2D(3, 3, activation='relu'),
            layers.MaxPooling2D(2),
            layers.Flatten(),
            layers.Dense(4, activation='softmax'),
        ]
    )
    x = np.random.default_rng(1).uniform(0, 1, (6, 10, 10, 1))
    np.save(tmp_path / 'x.npy', x)
    hls_model = hls4ml.converters.convert_from_keras_model(
        model,
        output_dir=str(tmp_path / 'prj'),
        backend='Vitis',
        io_type='io_stream',
        input_data_tb=str(tmp_path / 'x.npy'),
    )
    hls_model.write()
    project = tmp_path / 'prj'
    assert_warning_free(project, ('myproject_bridge.cpp', 'myproject_test.cpp'))
    run_testbench(project, tmp_path / 'testbench')
    logged = np.loadtxt(project / 'tb_data' / 'csim_results.log')
    np.testing.assert_allclose(logged, hls_model.predict(x), rtol=1e-5, atol=1e-6)
    top = (project / 'firmware' / 'myproject.cpp').read_text()
    assert '#pragma HLS INTERFACE axis port=layer1_out' in top and '#pragma HLS DATAFLOW' in top
    assert '#pragma HLS STREAM variable=layer2_out depth=' in top
