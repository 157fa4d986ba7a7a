"""Threads and processes: one loaded model predicts and traces from many threads at once, and many
writers (threads or processes, the same model or different ones) share one project folder."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from tiny_onnx import cnn, convert, emulated, inputs, mlp

pytestmark = pytest.mark.csim
THREADS = 4


def _in_threads(function, arguments: list) -> list:
    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(function, arguments))


@pytest.mark.parametrize('io_type', ['io_stream', 'io_parallel'])
def test_threads_predicting_on_one_cnn_get_what_one_thread_gets(tmp_path, io_type) -> None:
    """io_stream convolution and pooling keep line buffers between calls: per thread now."""
    model = convert(cnn(), tmp_path / 'prj', io_type=io_type)
    batches = [inputs(model, n=300, seed=seed) for seed in range(3 * THREADS)]
    alone = [model.predict(batch) for batch in batches]
    together = _in_threads(model.predict, batches)
    for expected, got in zip(alone, together, strict=True):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(alone[0], emulated(model, batches[0]))


def test_trace_beside_predict_gives_whole_traces(tmp_path) -> None:
    """The trace hooks were one static table: a predict() beside a trace() cut the trace short."""
    model = convert(mlp(), tmp_path / 'prj')
    batches = [inputs(model, n=20000, seed=seed) for seed in range(2 * THREADS)]
    traced_alone = [model.trace(batch)[1] for batch in batches]

    def work(index: int):
        return model.trace(batches[index])[1] if index % 2 else model.predict(batches[index])

    results = _in_threads(work, list(range(len(batches))))
    for index in range(1, len(batches), 2):
        assert results[index].keys() == traced_alone[index].keys()
        for name, values in traced_alone[index].items():
            np.testing.assert_array_equal(results[index][name], values)


def test_different_models_written_and_compiled_into_one_folder_from_threads(tmp_path) -> None:
    """The issue's "different models, same folder" rounds (6 of 36 went wrong): 9 rounds of 4 threads."""
    folder = tmp_path / 'shared'
    models = [convert(mlp(seed=seed, n_out=2 + seed), folder) for seed in range(THREADS)]
    x = inputs(models[0], n=50)
    expected = [emulated(model, x) for model in models]

    def round_trip(index: int) -> bool:
        model = models[index]
        model.compile()
        return bool(np.array_equal(model.predict(x), expected[index]))

    outcomes = [_in_threads(round_trip, list(range(THREADS))) for _ in range(9)]
    assert all(all(round_) for round_ in outcomes)


def _process_round_trip(folder: str, seed: int, rounds: int) -> list[bool]:
    """In a fresh process: convert this seed's model into the shared folder, compile, compare."""
    model = convert(mlp(seed=seed, n_out=2 + seed % 3), folder)
    x = inputs(model, n=50)
    expected = emulated(model, x)
    outcomes = []
    for _ in range(rounds):
        model.compile()
        outcomes.append(bool(np.array_equal(model.predict(x), expected)))
    return outcomes


@pytest.mark.parametrize('same_model', [True, False], ids=['same model', 'different models'])
def test_processes_compiling_into_one_folder(tmp_path, same_model) -> None:
    context = multiprocessing.get_context('spawn')
    seeds = [0] * THREADS if same_model else list(range(THREADS))
    with ProcessPoolExecutor(THREADS, mp_context=context) as pool:
        futures = [pool.submit(_process_round_trip, str(tmp_path / 'shared'), seed, 3) for seed in seeds]
        outcomes = [future.result(timeout=600) for future in futures]
    assert outcomes == [[True] * 3] * THREADS


def _project_files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob('*'))
        if path.is_file() and path.name != '.hls4ml.lock'
    }


def test_racing_writes_leave_one_whole_project(tmp_path) -> None:
    """Two models written into one folder over and over: at the end the folder is exactly one of them."""
    racing = [convert(mlp(seed=1), tmp_path / 'race'), convert(mlp(seed=2, n_out=5), tmp_path / 'race')]
    whole = []
    for model in racing:  # each model alone (the second replaces the first, stale weights included)
        model.write()
        whole.append(_project_files(tmp_path / 'race'))
    assert whole[0] != whole[1]
    _in_threads(lambda index: [racing[index % 2].write() for _ in range(10)], list(range(THREADS)))
    assert _project_files(tmp_path / 'race') in whole
