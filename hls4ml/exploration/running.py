"""Where the points are evaluated: in this process (serial) or on a Dask cluster, the same functions
(`evaluation.py`) on the same data chunks either way.

Dask: with no client, a `LocalCluster` of one single-threaded worker process per core on this
machine; with a `distributed.Client` or a scheduler address, the user's cluster as it is. The model
source, the data chunks and the labels are scattered once to every worker; each point is a task
graph of one hardware task, one prediction task per chunk and one summary task. Task errors are
retried (`retries`), and a task whose worker dies is run again on another worker by the scheduler
(`distributed.scheduler.allowed-failures` times).
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.exploration.evaluation import Job, Metric, hardware, predict_chunk, summarise
from hls4ml.exploration.source import ModelSource

RETRIES = 2


@dataclass
class Workload:
    """What every point is evaluated with: the model, the data in chunks, the labels and the metric."""

    source: ModelSource
    chunks: list[np.ndarray]
    labels: Any
    metric: Metric | None
    fidelity: str | None  # 'emulator', 'csim', or None: hardware figures only
    part: str | None


class Progress:
    """A one-line text progress bar on stderr (points done, failed, points per minute)."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total, self.label, self.enabled = total, label, enabled and total > 0
        self.done = self.failed = 0
        self.start = self.drawn = time.perf_counter()
        self._draw()

    def advance(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.failed += 'error' in record
        self._draw()

    def _draw(self) -> None:
        now = time.perf_counter()
        if not self.enabled or (0 < self.done < self.total and now - self.drawn < 0.5):
            return  # at most two lines a second (a log file gets every one)
        self.drawn = now
        filled = int(30 * self.done / self.total)
        rate = 60 * self.done / max(now - self.start, 1e-9)
        failed = f', {self.failed} failed' if self.failed else ''
        line = f'\r{self.label} [{"#" * filled}{"." * (30 - filled)}] {self.done}/{self.total} points{failed}'
        sys.stderr.write(f'{line}, {rate:.1f} points/min')
        if self.done == self.total:
            sys.stderr.write('\n')
        sys.stderr.flush()


def local_cluster(n_workers: int, dashboard_address: str | None = None) -> Any:
    """A LocalCluster of `n_workers` single-threaded worker processes on the loopback interface.

    Its workers keep glibc's default memory trimming: Dask starts workers with
    MALLOC_TRIM_THRESHOLD_=65536 (memory handed back to the system early), which makes the emulator's
    many large temporary arrays about 6 times slower (measured on the jet-tagging MLP). The variable
    is also left out of this process's environment while the workers start, where an earlier cluster
    (Dask sets it in the process that starts workers) may have put it."""
    import dask
    from distributed import LocalCluster

    variable = 'MALLOC_TRIM_THRESHOLD_'
    saved = os.environ.pop(variable, None)
    try:
        with dask.config.set({f'distributed.nanny.pre-spawn-environ.{variable}': None}):
            return LocalCluster(
                n_workers=n_workers,
                processes=True,
                threads_per_worker=1,
                host='127.0.0.1',
                dashboard_address=dashboard_address,
            )
    finally:
        if saved is not None:
            os.environ[variable] = saved


class SerialRunner:
    """Every point in this process, one after another: the reference a cluster run must reproduce."""

    workers = 1
    dashboard = None

    def __init__(self, workload: Workload) -> None:
        self.workload = workload

    def run(self, jobs: Sequence[Job], progress: Progress) -> list[dict[str, Any]]:
        work = self.workload
        records = []
        for job in jobs:
            figures = hardware(work.source, job, work.part)
            chunks = []
            if work.fidelity is not None and 'error' not in figures:
                chunks = [predict_chunk(work.source, job, work.fidelity, chunk) for chunk in work.chunks]
            records.append(summarise(figures, chunks, work.labels, work.metric if work.fidelity else None))
            progress.advance(records[-1])
        return records

    def close(self) -> None:
        pass


class DaskRunner:
    """The points as Dask tasks on a cluster (a LocalCluster of `n_workers` processes when `client` is None)."""

    def __init__(self, workload: Workload, client: Any = None, n_workers: int | None = None) -> None:
        from distributed import Client

        self.workload = workload
        self._cluster = None
        self._own_client = client is None or isinstance(client, str)
        if client is None:
            self._cluster = local_cluster(n_workers or os.cpu_count() or 1, dashboard_address='127.0.0.1:0')
            client = Client(self._cluster)
        elif isinstance(client, str):
            client = Client(client)  # a scheduler address: the user's cluster
        self.client = client
        self._run = uuid.uuid4().hex[:8]  # in every task key: runs on one client never share a key
        self._scatter()

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get('workers', {}))

    @property
    def dashboard(self) -> str | None:
        try:
            return self.client.dashboard_link
        except Exception:  # no dashboard (bokeh is not installed)
            return None

    def _scatter(self) -> None:
        """The model, the chunks and the labels as tasks of their own, copied to every worker. Not
        `scatter`: data scattered to a worker that dies is lost for good, while a task's result is
        computed again elsewhere."""
        import distributed

        work = self.workload
        key = work.source.digest
        self._source = self._hold(work.source, f'explore-source-{key}')
        self._chunks = [self._hold(chunk, f'explore-data{index}-{key}') for index, chunk in enumerate(work.chunks)]
        self._labels = self._hold(work.labels, f'explore-labels-{key}')
        held = [self._source, *self._chunks, self._labels]
        distributed.wait(held)
        self.client.replicate(held)  # on every worker: else the scheduler runs every point where the data is

    def _hold(self, value: Any, key: str) -> Any:
        return self.client.submit(_same, value, key=f'{key}-{self._run}', retries=RETRIES)

    def _submit(self, job: Job) -> Any:
        work, submit = self.workload, self.client.submit
        figures = submit(
            hardware, self._source, job, work.part, key=f'explore-hardware-{job.key}-{self._run}', retries=RETRIES
        )
        chunks = []
        if work.fidelity is not None:
            chunks = [
                submit(
                    predict_chunk,
                    self._source,
                    job,
                    work.fidelity,
                    chunk,
                    key=f'explore-chunk{i}-{job.key}-{self._run}',
                    retries=RETRIES,
                )
                for i, chunk in enumerate(self._chunks)
            ]
        metric = work.metric if work.fidelity else None
        key = f'explore-summary-{job.key}-{self._run}'
        return submit(summarise, figures, chunks, self._labels, metric, key=key, retries=RETRIES)

    def run(self, jobs: Sequence[Job], progress: Progress) -> list[dict[str, Any]]:
        from distributed import as_completed

        futures = [self._submit(job) for job in jobs]
        position = {future.key: index for index, future in enumerate(futures)}
        records: list[dict[str, Any]] = [{} for _ in jobs]
        for future in as_completed(futures):
            try:
                record = future.result()
            except Exception as error:  # the cluster gave up on it (KilledWorker after allowed failures)
                record = {'error': f'cluster: {type(error).__name__}: {error}'[:500], 'transient': True}
            records[position[future.key]] = record
            progress.advance(record)
        return records

    def close(self) -> None:
        """Close the client and the LocalCluster this runner started (a user's client stays open)."""
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _same(value: Any) -> Any:
    """A task whose result is its argument (data the scheduler can compute again)."""
    return value
