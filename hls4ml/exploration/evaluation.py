"""What a worker computes for one point: hardware figures from the estimator, predictions of one data
chunk (emulator or C-simulation), and the point's record from those.

Every function here runs on a Dask worker (or in the caller's process for a serial run) and returns
plain values: a point whose conversion or compile fails returns its error, never raises, so one bad
point never stops a sweep. The accuracy is computed from the chunks' predictions concatenated in
their order: the predictions are exact fixed-point values, so the result does not depend on how
the data was split or where each chunk ran (bit-identical to a serial run).
"""

from __future__ import annotations

import shutil
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.exploration.source import ModelSource, converted
from hls4ml.model.interpreter import interpret

Metric = Callable[[np.ndarray, np.ndarray], float]
FIDELITIES = ('emulator', 'csim')
# the estimator's resource columns under the names (the rest are lower-cased): Vitis BRAM_18K,
# oneAPI ALUT / REG / RAM
RESOURCE_NAMES = {'BRAM_18K': 'bram', 'ALUT': 'lut', 'REG': 'ff', 'RAM': 'bram'}


@dataclass(frozen=True)
class Job:
    """One point to evaluate: its key (content hash of everything its record depends on), its
    settings, and the configuration they make."""

    key: str
    point: dict[str, Any]
    hls_config: dict[str, Any]
    io_type: str


@dataclass(frozen=True)
class Failure:
    """A point that could not be evaluated: which step and the error."""

    step: str
    message: str


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f'{type(error).__name__}: {text[0] if text else ""}'[:500]


def hardware(source: ModelSource, job: Job, part: str | None) -> dict[str, Any]:
    """Convert the point and estimate it: latency and II in cycles, resources, each as the estimate's
    upper end (`<name>`) and lower end (`<name>_low`); warnings of the conversion by name."""
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            estimate = converted(source, job.key, job.hls_config, job.io_type).estimate(part)
            figures = estimate_figures(estimate)
    except Exception as error:  # a point that does not convert is a result, not the end of the sweep
        return {'error': f'convert: {_describe(error)}', 'seconds': time.perf_counter() - start}
    names = sorted({f'{type(w.message).__name__}: {str(w.message)[:160]}' for w in caught})
    figures['warnings'] = '; '.join(names)
    figures['seconds'] = time.perf_counter() - start
    return figures


def estimate_figures(estimate: Any) -> dict[str, Any]:
    """Plain numbers from an `hls4ml.estimate.Estimate`."""
    figures: dict[str, Any] = {}
    ranges = {'latency': estimate.latency_cycles, 'ii': estimate.interval}
    for column in estimate.columns:
        ranges[RESOURCE_NAMES.get(column, column.lower())] = estimate.total.resources[column]
    for name, value in ranges.items():
        figures[name] = float(value.high)
        figures[f'{name}_low'] = float(value.low)
    return figures


def predict_chunk(source: ModelSource, job: Job, fidelity: str, x: np.ndarray) -> np.ndarray | Failure:
    """Bit-accurate outputs of the point's firmware for one chunk (several outputs side by side)."""
    try:
        hls_model = converted(source, job.key, job.hls_config, job.io_type)
        if fidelity == 'emulator':
            outputs = [array.to_double() for array in interpret(hls_model, x)[0]]
        else:
            outputs = _simulate(hls_model, x)
    except Exception as error:
        step = 'emulate' if fidelity == 'emulator' else 'compile'
        return Failure(step, _describe(error))
    flat = [np.asarray(output, dtype=np.float64).reshape(len(x), -1) for output in outputs]
    return flat[0] if len(flat) == 1 else np.concatenate(flat, axis=1)


def _simulate(hls_model: Any, x: np.ndarray) -> list[np.ndarray]:
    """compile() (the library cache and its lock per key: one compile per machine) and predict()."""
    try:
        hls_model.compiled_simulation('explore')  # compiled for an earlier chunk in this process
    except RuntimeError:
        hls_model.compile()
        shutil.rmtree(hls_model.output_dir, ignore_errors=True)  # the library lives in the compile cache
    predictions = hls_model.predict(x)
    return list(predictions) if isinstance(predictions, (list, tuple)) else [predictions]


def summarise(hardware_figures: dict[str, Any], chunks: Sequence[Any], y: Any, metric: Metric | None) -> dict[str, Any]:
    """The point's record: its hardware figures and the metric on all chunks' predictions, in order."""
    record = dict(hardware_figures)
    if 'error' in record or metric is None:
        return record
    failures = [chunk for chunk in chunks if isinstance(chunk, Failure)]
    if failures:
        record['error'] = f'{failures[0].step}: {failures[0].message}'
        return record
    predictions = np.concatenate(list(chunks), axis=0)
    try:
        record['accuracy'] = float(metric(y, predictions))
    except Exception as error:
        record['error'] = f'metric: {_describe(error)}'
    return record


def accuracy(y: Any, predictions: np.ndarray) -> float:
    """The default metric: the fraction of samples whose largest output is the label (`y` integer labels,
    or one-hot / scores of the predictions' shape)."""
    labels = np.asarray(y)
    if labels.ndim == 2 and labels.shape == predictions.shape:
        labels = labels.argmax(axis=1)
    if labels.ndim != 1 or len(labels) != len(predictions):
        raise ValueError(
            f'accuracy: labels of shape {np.shape(y)} do not fit predictions of shape {predictions.shape}; '
            'give integer labels (n,) or one-hot labels (n, outputs), or your own metric='
        )
    return float(np.mean(predictions.argmax(axis=1) == labels))
