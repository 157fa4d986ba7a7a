"""`hls4ml.explore` in this process (client='serial', the emulator): results, cache, failures, configs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

keras = pytest.importorskip('keras')
pytest.importorskip('pandas')

import hls4ml  # noqa: E402
from hls4ml.exploration import Space  # noqa: E402
from hls4ml.model.interpreter import interpret  # noqa: E402

SPACE = Space(precision={'fc1': [(10, 4), (6, 3)], 'out': [(10, 4), (5, 2)]}, reuse_factor=[1, 4])


@pytest.fixture(scope='module')
def model_and_data() -> tuple[Any, np.ndarray, np.ndarray]:
    keras.utils.set_random_seed(7)
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(8, activation='relu', name='fc1'), keras.layers.Dense(3, name='out')]
    )
    x = np.random.default_rng(1).standard_normal((300, 6)).astype(np.float32)
    return model, x, model.predict(x, verbose=0).argmax(axis=1)


def _explore(model_and_data: tuple, **keywords: Any) -> Any:
    model, x, y = model_and_data
    keywords.setdefault('space', SPACE)
    return hls4ml.explore(model, data=(x, y), client='serial', progress=False, chunk_size=128, **keywords)


def test_every_point_is_evaluated_and_the_front_is_non_dominated(model_and_data: tuple) -> None:
    result = _explore(model_and_data, cache_dir=None)
    points = result.points
    assert len(points) == 8 and points['error'].isna().all() and not points['cached'].any()
    assert points['accuracy'].between(0, 1).all() and (points['lut'] >= points['lut_low']).all()
    wide = (points['precision:fc1'] == 'fixed<10,4>') & (points['precision:out'] == 'fixed<10,4>')
    assert (points.loc[wide, 'accuracy'] > 0.95).all()
    front = result.front
    assert 0 < len(front) < len(points)
    for _, row in points[~points['pareto']].iterrows():  # each point off the front is dominated by one on it
        better = (front['accuracy'] >= row['accuracy']) & (front['lut'] <= row['lut'])
        better &= front['latency'] <= row['latency']
        assert better.any()
    assert 'Pareto front of accuracy, lut, latency' in str(result)


def test_a_rerun_reads_the_cache_and_computes_only_new_points(model_and_data: tuple, tmp_path: Path) -> None:
    first = _explore(model_and_data, cache_dir=tmp_path)
    again = _explore(model_and_data, cache_dir=tmp_path)
    assert again.points['cached'].all()
    columns = ['accuracy', 'lut', 'latency', 'dsp', 'pareto']
    assert again.points[columns].equals(first.points[columns])
    wider = Space(precision={'fc1': [(10, 4), (6, 3)], 'out': [(10, 4), (5, 2)]}, reuse_factor=[1, 4, 2])
    grown = _explore(model_and_data, cache_dir=tmp_path, space=wider)
    assert grown.points['cached'].sum() == 8 and (~grown.points['cached']).sum() == 4
    changed_data = _explore((model_and_data[0], model_and_data[1][:200], model_and_data[2][:200]), cache_dir=tmp_path)
    assert not changed_data.points['cached'].any()  # the data is part of the key


def test_a_point_that_fails_to_convert_is_recorded_not_fatal(model_and_data: tuple) -> None:
    model = model_and_data[0]

    def factory(hls_config: dict, io_type: str) -> Any:
        if hls_config['Model']['ReuseFactor'] == 4:
            raise ValueError('reuse factor 4 is refused by this factory')
        return hls4ml.converters.convert_from_keras_model(
            model, hls_config=hls_config, io_type=io_type, backend='Vitis'
        )

    result = _explore((factory, *model_and_data[1:]), cache_dir=None)
    failed = result.points[result.points['reuse_factor'] == 4]
    assert len(failed) == 4 and failed['accuracy'].isna().all() and not failed['pareto'].any()
    assert failed['error'].str.startswith('convert: ValueError: reuse factor 4 is refused').all()
    assert result.points.loc[result.points['reuse_factor'] == 1, 'error'].isna().all()


def test_the_chosen_config_converts_to_the_same_model(model_and_data: tuple, tmp_path: Path) -> None:
    model, x, y = model_and_data
    result = _explore(model_and_data, cache_dir=None)
    row = int(result.front.index[-1])
    hls_model = hls4ml.converters.convert_from_keras_model(model, output_dir=str(tmp_path), **result.keywords(row))
    outputs = interpret(hls_model, x)[0][0].to_double()
    assert float(np.mean(outputs.argmax(axis=1) == y)) == result.points.loc[row, 'accuracy']
    assert result.config(row)['LayerName']['fc1']['Precision']['weight'] == result.points.loc[row, 'precision:fc1']


def test_greedy_keeps_the_accuracy_bound(model_and_data: tuple) -> None:
    widths = [(12, 4), (10, 4), (8, 4), (6, 3), (4, 2)]
    space = Space(precision={'fc1': widths, 'out': widths})
    result = _explore(model_and_data, space=space, strategy='greedy', tolerance=0.02, cache_dir=None)
    start, chosen = result.points.iloc[0], result.points.loc[result.selected]
    assert chosen['accuracy'] >= start['accuracy'] - 0.02
    assert (chosen['precision:fc1'], chosen['precision:out']) != (start['precision:fc1'], start['precision:out'])


def test_the_plot_is_saved(model_and_data: tuple, tmp_path: Path) -> None:
    pytest.importorskip('matplotlib')
    result = _explore(model_and_data, cache_dir=None)
    figure = result.plot(str(tmp_path / 'front.png'))
    assert (tmp_path / 'front.png').read_bytes()[:4] == b'\x89PNG'
    assert figure.axes[0].get_xlabel() == 'lut' and figure.axes[0].get_ylabel() == 'accuracy'


@pytest.mark.parametrize(
    ('keywords', 'words'),
    [
        ({'objectives': ['accuracy', 'speed']}, "unknown objective 'speed'.*latency"),
        ({'space': Space(precision={'fc9': [(8, 3)]})}, "no layer 'fc9'.*fc1"),
        ({'strategy': 'annealing'}, 'annealing'),
        ({'accuracy_by': 'fpga'}, 'fpga'),
    ],
)
def test_bad_arguments_are_refused_by_name(model_and_data: tuple, keywords: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        _explore(model_and_data, cache_dir=None, **keywords)


def test_import_hls4ml_loads_no_dask_and_explore_is_there_on_first_use() -> None:
    code = (
        'import sys, hls4ml; heavy = {"dask", "distributed", "pandas"} & set(sys.modules); '
        'from hls4ml.exploration import explore; assert hls4ml.explore is explore; print(sorted(heavy))'
    )
    environment = {**os.environ, 'PYTHONPATH': str(Path(hls4ml.__file__).parents[1])}
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=environment, check=True)
    assert done.stdout.strip() == '[]'
