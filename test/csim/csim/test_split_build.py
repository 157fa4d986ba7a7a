"""The split C-simulation build (hls4ml/writer/csim_units.py, hls4ml/csim/units.py) computes exactly what
the one-translation-unit build computes, rebuilds what a change touches and never reuses a stale object."""

from __future__ import annotations

import os
import shutil
import subprocess

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.csim.compiler import CompilationError, SourceTree, compile_library  # noqa: E402
from hls4ml.csim.units import UnitCacheWarning  # noqa: E402
from hls4ml.writer import write_project  # noqa: E402

pytestmark = [pytest.mark.csim, pytest.mark.filterwarnings('error::hls4ml.csim.units.UnitCacheWarning')]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path / 'cache'))


def _mlp() -> keras.Model:
    keras.utils.set_random_seed(11)
    return keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation='relu', name='fc1'),
            keras.layers.Dense(5, activation='relu', name='fc2'),
            keras.layers.Dense(3, name='fc3'),
        ]
    )


def _cnn() -> keras.Model:
    keras.utils.set_random_seed(12)
    return keras.Sequential(
        [
            keras.Input((6, 6, 2)),
            keras.layers.Conv2D(3, 3, padding='same', activation='relu', name='conv1'),
            keras.layers.MaxPooling2D(2, name='pool'),
            keras.layers.Conv2D(4, 2, activation='relu', name='conv2'),
            keras.layers.Flatten(name='flat'),
            keras.layers.Dense(3, name='fc'),
        ]
    )


def _merges() -> keras.Model:
    """Add and Concatenate of two branches, and two outputs."""
    keras.utils.set_random_seed(13)
    inputs = keras.Input((5,))
    left = keras.layers.Dense(4, activation='relu', name='left')(inputs)
    right = keras.layers.Dense(4, name='right')(inputs)
    added = keras.layers.Add(name='add')([left, right])
    joined = keras.layers.Concatenate(name='concat')([left, right])
    first = keras.layers.Dense(2, name='out_a')(added)
    second = keras.layers.Dense(3, name='out_b')(joined)
    return keras.Model(inputs, [first, second])


def _convert(model: keras.Model, io_type: str, folder, changes: dict | None = None):
    """Fixed types for the whole model (no 'auto' type follows a change downstream), then `changes` per layer."""
    config = hls4ml.utils.config_from_keras_model(model, granularity='model', default_precision='ap_fixed<16,6>')
    config['LayerName'] = {layer: dict(settings) for layer, settings in (changes or {}).items()}
    return hls4ml.converters.convert_from_keras_model(
        model, hls_config=config, output_dir=str(folder), backend='Vitis', io_type=io_type
    )


def _run(hls_model, x: np.ndarray, split: bool, monkeypatch) -> tuple:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1' if split else '0')
    hls_model._simulation = None
    hls_model.compile()
    units = hls_model._simulation.interface.sources.units
    assert bool(units) == split
    predictions, traces = hls_model.trace(x)
    return predictions, traces


def _assert_same(first: tuple, second: tuple) -> None:
    for one, other in zip(_as_list(first[0]), _as_list(second[0]), strict=True):
        np.testing.assert_array_equal(one, other)
    assert first[1].keys() == second[1].keys()
    for name in first[1]:
        np.testing.assert_array_equal(first[1][name], second[1][name], err_msg=name)


def _as_list(predictions) -> list:
    return list(predictions) if isinstance(predictions, list) else [predictions]


@pytest.mark.parametrize(
    ('build', 'io_type', 'shape'),
    [(_mlp, 'io_parallel', (6,)), (_cnn, 'io_stream', (6, 6, 2)), (_merges, 'io_parallel', (5,))],
    ids=['mlp', 'cnn-stream', 'merges-two-outputs'],
)
@pytest.mark.filterwarnings("ignore:'auto' precision is capped")
def test_split_build_equals_single_unit(build, io_type: str, shape: tuple, tmp_path, monkeypatch) -> None:
    hls_model = _convert(build(), io_type, tmp_path / 'prj')
    x = np.random.default_rng(1).uniform(-3, 3, (40, *shape))
    split = _run(hls_model, x, True, monkeypatch)
    assert len(hls_model._simulation.interface.sources.units) >= 3  # at least two layer units and the bridge
    _assert_same(split, _run(hls_model, x, False, monkeypatch))


def _objects(tmp_path) -> set[str]:
    return {path.name for path in (tmp_path / 'cache' / 'csim' / 'obj').glob('*.o')}


@pytest.mark.parametrize(
    'change',
    ['precision', 'weights', 'reuse'],
)
def test_a_changed_layer_is_rebuilt_and_equals_a_cold_single_build(change: str, tmp_path, monkeypatch) -> None:
    model = _cnn()
    x = np.random.default_rng(2).uniform(-3, 3, (30, 6, 6, 2))
    _run(_convert(model, 'io_stream', tmp_path / 'before'), x, True, monkeypatch)
    before = _objects(tmp_path)
    changes = {}  # conv1 and its ReLU share the first unit, fc is in the last: one unit changes (and the bridge not)
    if change == 'precision':
        changes = {'conv1': {'Precision': {'result': 'ap_fixed<12,5>'}}}
    elif change == 'reuse':
        changes = {'fc': {'ReuseFactor': 4}}
    else:
        kernel, bias = model.get_layer('conv1').get_weights()
        model.get_layer('conv1').set_weights([kernel * 0.5, bias])
    changed = _convert(model, 'io_stream', tmp_path / 'after', changes)
    split = _run(changed, x, True, monkeypatch)
    rebuilt = _objects(tmp_path) - before
    assert 1 <= len(rebuilt) < len(changed._simulation.interface.sources.units)  # not everything, not nothing
    _assert_same(split, _run(changed, x, False, monkeypatch))


def test_a_new_output_type_leaves_the_other_unit_and_its_shared_helpers_alone(tmp_path, monkeypatch) -> None:
    """The units declare the trace copy and the constants' load of the model's most common type `extern
    template` and the top compiles them once. A new result type of the last layer leaves the first unit's
    file, and so its cached object, as it was: only the last unit and the bridge (whose output type
    changed) compile again."""
    keras.utils.set_random_seed(14)
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(8, activation='relu', name='fc1'), keras.layers.Dense(3, name='fc2')]
    )
    x = np.random.default_rng(3).uniform(-3, 3, (30, 6))
    before = _convert(model, 'io_parallel', tmp_path / 'before')
    _run(before, x, True, monkeypatch)
    files = before._simulation.interface.sources.files
    top = next(text for path, text in files.items() if path.endswith('firmware/myproject.cpp')).decode()
    assert 'template void nnet::trace_values<' in top and 'template void nnet::load_constants<' in top
    first = next(text for path, text in files.items() if path.endswith('myproject_unit0.cpp')).decode()
    assert 'extern template void nnet::trace_values<' in first
    objects = _objects(tmp_path)
    changed = _convert(model, 'io_parallel', tmp_path / 'after', {'fc2': {'Precision': {'result': 'ap_fixed<12,5>'}}})
    split = _run(changed, x, True, monkeypatch)
    assert len(_objects(tmp_path) - objects) == 2  # the unit of fc2 and the bridge
    _assert_same(split, _run(changed, x, False, monkeypatch))


def test_a_failing_unit_names_its_layers(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('HLS4ML_CSIM_SPLIT', '1')
    sources = write_project(_convert(_mlp(), 'io_parallel', tmp_path / 'prj').design).csim.sources
    broken = sources.units[0]
    files = dict(sources.files)
    files[broken.source] = b'#error this unit does not compile\n' + files[broken.source]
    tree = SourceTree(**{**sources.__dict__, 'files': files})
    with pytest.raises(CompilationError, match=f'(?s)unit of the layers {broken.layers[0]}.*does not compile'):
        compile_library(tree, 'myproject')


def test_a_damaged_cached_object_is_compiled_again(tmp_path, monkeypatch) -> None:
    """An object that still links but is not what was published (a damaged disk, a partial copy) is never
    used: its checksum says so, it is compiled again with a warning, and the library computes as before."""
    x = np.random.default_rng(3).uniform(-3, 3, (20, 6))
    first = _run(_convert(_mlp(), 'io_parallel', tmp_path / 'one'), x, True, monkeypatch)
    objects = sorted((tmp_path / 'cache' / 'csim' / 'obj').glob('*.o'))
    assert objects
    damaged = bytearray(objects[0].read_bytes())
    damaged[-1] ^= 0xFF  # the last byte of the section table's padding or strings: links, differs
    objects[0].write_bytes(bytes(damaged))
    for entry in (tmp_path / 'cache' / 'csim' / 'index').glob('*.json'):
        entry.unlink()  # the library too: the next compile must go through the objects
    with pytest.warns(UnitCacheWarning, match='does not match its checksum'):
        again = _run(_convert(_mlp(), 'io_parallel', tmp_path / 'two'), x, True, monkeypatch)
    _assert_same(first, again)
    assert objects[0].read_bytes() != bytes(damaged)


@pytest.mark.parametrize('split', [True, False], ids=['split', 'one-unit'])
def test_a_linker_that_fails_gives_way_to_the_default_one(split: bool, tmp_path, monkeypatch) -> None:
    """The faster linker (toolchain.linker_flags) is only a speed-up: when it fails, the library is linked again
    with the compiler's default linker and computes the same."""
    x = np.random.default_rng(4).uniform(-3, 3, (20, 6))
    hls_model = _convert(_mlp(), 'io_parallel', tmp_path / 'prj')
    expected = _run(hls_model, x, split, monkeypatch)
    monkeypatch.setattr('hls4ml.csim.compiler.linker_flags', lambda: ('-fuse-ld=no-such-linker',))
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path / 'other-cache'))
    _assert_same(expected, _run(_convert(_mlp(), 'io_parallel', tmp_path / 'again'), x, split, monkeypatch))


@pytest.mark.skipif(shutil.which('ld.gold') is None, reason='GNU gold (ld.gold) is not installed')
@pytest.mark.parametrize('split', [True, False], ids=['split', 'one-unit'])
def test_the_library_is_linked_by_gold_where_it_is_installed(split: bool, tmp_path, monkeypatch) -> None:
    hls_model = _convert(_mlp(), 'io_parallel', tmp_path / 'prj')
    _run(hls_model, np.zeros((2, 6)), split, monkeypatch)
    library = hls_model._simulation.library_path
    notes = subprocess.run(['readelf', '-n', str(library)], capture_output=True, text=True, check=True).stdout
    assert 'NT_GNU_GOLD_VERSION' in notes  # gold's mark; the default linker writes none
