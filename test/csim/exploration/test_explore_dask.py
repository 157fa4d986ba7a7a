"""`hls4ml.explore` on a Dask LocalCluster of 2 worker processes: the same records and front as a serial
run (bit-identical accuracies), the C-simulation's accuracy equal to the emulator's, a compile failure
recorded, and a run that survives a worker killed in the middle."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

keras = pytest.importorskip('keras')
pytest.importorskip('pandas')
distributed = pytest.importorskip('distributed', reason='dask.distributed is missing: pip install -e .[explore]')

import cloudpickle  # noqa: E402
import worker_faults  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.exploration import Space  # noqa: E402
from hls4ml.exploration.running import local_cluster  # noqa: E402

pytestmark = pytest.mark.csim
SPACE = Space(precision={'fc1': [(10, 4), (6, 3)], 'out': [(10, 4), (5, 2)]}, strategy=['Latency', 'Resource'])
COLUMNS = ['accuracy', 'latency', 'ii', 'dsp', 'lut', 'ff', 'bram', 'pareto', 'error', 'key']


@pytest.fixture(scope='module')
def client() -> Iterator[Any]:
    """One cluster for the module (2 single-threaded worker processes take a few seconds to start)."""
    cloudpickle.register_pickle_by_value(worker_faults)  # the workers cannot import the test folder
    cluster = local_cluster(2)
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()
    cloudpickle.unregister_pickle_by_value(worker_faults)


@pytest.fixture(scope='module')
def model_and_data() -> tuple[Any, np.ndarray, np.ndarray]:
    keras.utils.set_random_seed(11)
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(8, activation='relu', name='fc1'), keras.layers.Dense(3, name='out')]
    )
    x = np.random.default_rng(2).standard_normal((400, 6)).astype(np.float32)
    return model, x, model.predict(x, verbose=0).argmax(axis=1)


def _explore(model_and_data: tuple, client: Any, **keywords: Any) -> Any:
    model, x, y = model_and_data
    keywords = {'space': SPACE, 'cache_dir': None, 'chunk_size': 100, 'progress': False, **keywords}
    return hls4ml.explore(model, data=(x, y), client=client, **keywords)


@pytest.fixture(scope='module')
def serial(model_and_data: tuple) -> Any:
    return _explore(model_and_data, 'serial')


def test_a_cluster_gives_the_serial_records_and_front_bit_for_bit(model_and_data: tuple, client: Any, serial) -> None:
    with distributed.get_task_stream(client=client) as tasks:
        clustered = _explore(model_and_data, client, chunk_size=64)  # other chunks: the same accuracies
    workers = {task['worker'] for task in tasks.data if task['key'].startswith('explore-chunk')}
    assert len(workers) == 2  # the data is on both workers, so the points run on both
    assert clustered.points[COLUMNS].equals(serial.points[COLUMNS])
    assert clustered.front.index.tolist() == serial.front.index.tolist()
    assert serial.points['error'].isna().all() and serial.points['accuracy'].nunique() > 1


def test_a_scheduler_address_or_no_client_runs_on_a_cluster(
    model_and_data: tuple, client: Any, serial, capsys: pytest.CaptureFixture
) -> None:
    space = Space(precision={'fc1': [(6, 3)], 'out': [(10, 4), (5, 2)]}, strategy=['Latency'])
    expected = serial.points.set_index('key')['accuracy']
    by_address = _explore(model_and_data, client.scheduler.address, space=space)
    capsys.readouterr()
    own_cluster = _explore(
        model_and_data, None, space=space, n_workers=2, progress=True
    )  # started and closed by explore
    assert 'dashboard http://127.0.0.1:' in capsys.readouterr().out  # bokeh comes with the explore extra
    for result in (by_address, own_cluster):
        assert result.points['error'].isna().all()
        assert result.points['accuracy'].tolist() == expected[result.points['key']].tolist()
    assert client.status == 'running'  # the user's client stays open


def test_the_c_simulation_agrees_with_the_emulator(model_and_data: tuple, client: Any, serial) -> None:
    space = Space(precision={'fc1': [(10, 4), (6, 3)], 'out': [(10, 4)]}, strategy=['Latency'])
    simulated = _explore(model_and_data, client, space=space, accuracy_by='csim')
    assert simulated.points['error'].isna().all()
    for _, row in simulated.points.iterrows():
        same = serial.points[
            (serial.points['precision:fc1'] == row['precision:fc1'])
            & (serial.points['precision:out'] == 'fixed<10,4>')
            & (serial.points['strategy'] == 'Latency')
        ]
        assert row['accuracy'] == same['accuracy'].item()


def test_a_failed_compile_is_recorded(model_and_data: tuple, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv('CXX', 'false')  # a "compiler" that fails every build
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path))  # nothing cached that could stand in for it
    space = Space(precision={'fc1': [(9, 4)]})
    result = _explore(model_and_data, 'serial', space=space, accuracy_by='csim')
    assert result.points['error'].str.startswith('compile: CompilationError').all()
    assert result.points['lut'].notna().all() and not result.points['pareto'].any()


def test_a_killed_worker_is_replaced_and_the_run_completes(
    model_and_data: tuple, client: Any, serial, tmp_path: Path
) -> None:
    marker = tmp_path / 'killed'
    metric = functools.partial(worker_faults.exit_once, str(marker))
    result = _explore(model_and_data, client, metric=metric)
    assert marker.exists()  # a worker did die
    assert result.points['error'].isna().all()
    assert result.points['accuracy'].tolist() == serial.points['accuracy'].tolist()
