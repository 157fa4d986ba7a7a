"""`hls4ml.explore`: evaluate a space of configurations of one model on this machine or a Dask cluster,
and return the points, their Pareto front and a figure of it (docs/explore.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hls4ml.exploration import strategies
from hls4ml.exploration.cache import ResultCache, code_digest, data_digest, default_cache_dir, job_key
from hls4ml.exploration.evaluation import FIDELITIES, Job, Metric, accuracy, estimate_figures
from hls4ml.exploration.front import MAXIMISED, ExplorationResult, pareto_mask
from hls4ml.exploration.running import DaskRunner, Progress, SerialRunner, Workload
from hls4ml.exploration.source import ModelSource, scratch_dir, source_from_model
from hls4ml.exploration.space import Point, Space, hls_config_for

STRATEGIES = ('grid', 'random', 'greedy')
DEFAULT_CONFIG = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1, 'Strategy': 'Latency'}}


def explore(
    model: Any,
    space: Space | dict[str, Any],
    data: tuple[Any, Any] | None = None,
    objectives: Sequence[str] = ('accuracy', 'lut', 'latency'),
    backend: str = 'Vitis',
    *,
    hls_config: dict[str, Any] | None = None,
    strategy: str = 'grid',
    samples: int = 20,
    seed: int = 0,
    tolerance: float = 0.01,
    minimum_accuracy: float | None = None,
    accuracy_by: str = 'emulator',
    metric: Metric | None = None,
    client: Any = None,
    n_workers: int | None = None,
    chunk_size: int = 5000,
    cache_dir: Any = 'default',
    progress: bool = True,
    **convert_keywords: Any,
) -> ExplorationResult:
    """Evaluate configurations of `model` and return every point with its Pareto front.

    model: a Keras 3 model, torch.nn.Module, ONNX model, or factory(hls_config, io_type) -> ModelGraph.
    space: a `Space` (or its keywords as a dict). data: (x, y) for the accuracy objective.
    objectives: 'accuracy' (maximised) and estimator figures (minimised): latency, ii, dsp, lut, ff,
    bram, uram (each the estimate's upper end). strategy: 'grid', 'random' (`samples`, `seed`) or
    'greedy' (precision shrinking within `tolerance` of the start, or above `minimum_accuracy`).
    accuracy_by: 'emulator' (numpy, no compile) or 'csim' (g++ C-simulation); both bit-accurate.
    client: None (a LocalCluster of `n_workers` processes, default one per core), a
    distributed.Client, a scheduler address, or 'serial' (this process, no Dask). cache_dir: where
    results are kept by content hash ('default': ~/.cache/hls4ml/explore; None: no cache).
    convert_keywords: the rest of convert_from_*'s keywords (io_type, part, clock_period, ...)."""
    space = space if isinstance(space, Space) else Space(**space)
    hls_config = hls_config or DEFAULT_CONFIG
    _check_choices(strategy, accuracy_by, objectives, data)
    project = {'backend': backend, **convert_keywords}
    source = source_from_model(model, project, hls_config)
    variables = _layer_variables(source, space)
    _check_objectives(source, hls_config, project, objectives)
    workload = _workload(source, data, accuracy_by, metric, chunk_size, project.get('part'))
    runner = _runner(workload, client, n_workers)
    try:
        if progress and runner.dashboard:
            print(f'hls4ml.explore: {runner.workers} Dask workers, dashboard {runner.dashboard}')
        cache = ResultCache(default_cache_dir() if cache_dir == 'default' else cache_dir)
        evaluator = _Evaluator(runner, cache, workload, space, hls_config, variables, project, progress)
        trail, chosen = _search(strategy, space, evaluator, samples, seed, tolerance, minimum_accuracy)
    finally:
        runner.close()
    return _result(trail, chosen, objectives, space, hls_config, variables, project)


def _check_choices(strategy: str, accuracy_by: str, objectives: Sequence[str], data: Any) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f'explore: strategy {strategy!r} is not one of {", ".join(STRATEGIES)}')
    if accuracy_by not in FIDELITIES:
        raise ValueError(f'explore: accuracy_by {accuracy_by!r} is not one of {", ".join(FIDELITIES)}')
    if isinstance(objectives, str) or not objectives:
        raise ValueError(f'explore: objectives is a list of names, got {objectives!r}')
    needs_data = 'accuracy' in objectives or strategy == 'greedy'
    if needs_data and (not isinstance(data, (tuple, list)) or len(data) != 2):
        raise ValueError('explore: the accuracy objective and greedy search need data=(x, y)')


def _layer_variables(source: ModelSource, space: Space) -> dict[str, tuple[str, ...]]:
    """For each layer the space names, the typed variables its precision sets (checked to exist)."""
    variables = {}
    for name in space.dimensions:
        dimension, _, layer = name.partition(':')
        if layer and dimension == 'precision':
            variables[layer] = source.variables(layer, space.variables)
        elif layer:
            source.check_layer(layer)
    return variables


def _check_objectives(source: ModelSource, hls_config: dict, project: dict, objectives: Sequence[str]) -> None:
    """Every hardware objective must be a figure the backend's estimate has."""
    io_type = project.get('io_type', 'io_parallel')
    hls_model = source.convert(hls_config, io_type, scratch_dir('objectives'))  # nothing is written
    figures = estimate_figures(hls_model.estimate(project.get('part')))
    known = [name for name in figures if not name.endswith('_low')]
    unknown = [name for name in objectives if name not in MAXIMISED and name not in known]
    if unknown:
        raise ValueError(
            f'explore: unknown objective {unknown[0]!r}; the {project["backend"]} estimate has '
            f'{", ".join(known)}, and there is accuracy'
        )


def _workload(source: ModelSource, data: Any, accuracy_by: str, metric: Any, chunk_size: int, part: Any) -> Workload:
    """The data in chunks and the metric; given data, every point's accuracy is measured."""
    if chunk_size < 1:
        raise ValueError(f'explore: chunk_size must be at least 1, got {chunk_size}')
    if data is None:  # hardware figures only
        return Workload(source, [], None, None, None, part)
    x, y = data
    if len(x) == 0 or len(x) != len(y):
        raise ValueError(f'explore: data=(x, y) needs as many labels as samples, at least one; got {len(x)}, {len(y)}')
    chunks = [np.asarray(x)[start : start + chunk_size] for start in range(0, len(x), chunk_size)]
    return Workload(source, chunks, y, metric or accuracy, accuracy_by, part)


def _runner(workload: Workload, client: Any, n_workers: int | None) -> SerialRunner | DaskRunner:
    if isinstance(client, str) and client == 'serial':
        return SerialRunner(workload)
    return DaskRunner(workload, client, n_workers)


class _Evaluator:
    """Points -> records: from the results cache where it has them, else computed by the runner (and
    stored, unless the cluster gave up on them: that is not a property of the point)."""

    def __init__(self, runner, cache, workload, space, hls_config, variables, project, progress) -> None:
        self.runner, self.cache, self.progress = runner, cache, progress
        self.hls_config, self.variables, self.project = hls_config, variables, project
        metric = workload.metric
        self.context = {
            'hls4ml': code_digest(),
            'model': workload.source.digest,
            'data': data_digest(np.concatenate(workload.chunks), workload.labels) if workload.fidelity else None,
            'fidelity': workload.fidelity,
            'metric': f'{getattr(metric, "__module__", "")}.{getattr(metric, "__qualname__", repr(metric))}',
            'project': project,
        }

    def job(self, point: Point) -> Job:
        hls_config = hls_config_for(point, self.hls_config, self.variables)
        io_type = point.get('io_type', self.project.get('io_type', 'io_parallel'))
        return Job(job_key(self.context, hls_config, io_type), point, hls_config, io_type)

    def __call__(self, points: list[Point], label: str) -> list[dict[str, Any]]:
        jobs = [self.job(point) for point in points]
        records: dict[str, dict[str, Any]] = {}
        for job in jobs:
            found = self.cache.get(job.key)
            if found is not None:
                records[job.key] = {**found, 'cached': True}
        missing = list({job.key: job for job in jobs if job.key not in records}.values())
        progress = Progress(len(missing), f'explore {label}', self.progress)
        for job, record in zip(missing, self.runner.run(missing, progress), strict=True):
            if not record.pop('transient', False):
                self.cache.put(job.key, record)
            records[job.key] = {**record, 'cached': False}
        return [{**records[job.key], 'key': job.key} for job in jobs]


def _search(strategy, space, evaluate, samples, seed, tolerance, minimum) -> tuple[strategies.Trail, Point | None]:
    if strategy == 'grid':
        return strategies.grid(space, evaluate), None
    if strategy == 'random':
        return strategies.random(space, evaluate, samples, seed), None
    return strategies.greedy(space, evaluate, tolerance, minimum)


def _result(trail, chosen, objectives, space, hls_config, variables, project) -> ExplorationResult:
    import pandas as pd

    rows = [{**point, **record} for point, record in trail]
    frame = pd.DataFrame(rows).drop_duplicates('key', keep='first').reset_index(drop=True)
    for column in ('error', 'warnings', *objectives):
        if column not in frame.columns:
            frame[column] = None
    frame['error'] = frame['error'].where(frame['error'].notna(), None)
    values = frame[list(objectives)].astype(float).to_numpy()
    frame['pareto'] = pareto_mask(values, [name in MAXIMISED for name in objectives])
    selected = None
    if chosen is not None:
        matches = [index for index, (point, _) in enumerate(trail) if point == chosen]
        selected = int(frame.index[frame['key'] == trail[matches[0]][1]['key']][0])
    dimensions = tuple(space.dimensions)
    return ExplorationResult(frame, tuple(objectives), dimensions, hls_config, variables, project, selected)
