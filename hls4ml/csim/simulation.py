"""The compiled C-simulation of one model: batch predict and trace through ctypes.

The bridge exports two C functions that loop over the whole batch in C:

    void <proj>_predict(const double *const *inputs, double *const *outputs, long n_samples);
    void <proj>_trace(const double *const *inputs, double *const *outputs, void *const *traces, int single, long n);
    const char *<proj>_ports();   // "inputs 16; outputs 5; traces 64,32": checked against the model at load

Each `inputs[k]` is a C-contiguous (n_samples, size_k) array of doubles (float32 inputs are widened
exactly), each output buffer likewise; the trace buffers are of floats when `single` is nonzero, else
of doubles. Shapes are checked here, before any C runs.
Every call has buffers of its own and the library keeps its kernel state per thread, so one model
may predict and trace from several threads at once.
"""

from __future__ import annotations

import ctypes
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.csim.compiler import CompilationError, SourceTree, compile_library

Port = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class CSimInterface:
    """What the writer tells the simulator about a project."""

    project_name: str
    sources: SourceTree  # the bridge (the one translation unit) and everything it includes
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    traces: tuple[Port, ...]  # traced layers, in the order of the bridge's trace buffers

    @property
    def ports_line(self) -> str:
        """What the bridge's <proj>_ports() must return for this model (sizes of every buffer)."""
        sizes = [
            f'{label} {",".join(str(_size(shape)) for _, shape in ports)}'
            for label, ports in (('inputs', self.inputs), ('outputs', self.outputs), ('traces', self.traces))
        ]
        return '; '.join(sizes)


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape)) if shape else 1


class Simulation:
    def __init__(self, interface: CSimInterface, library: Path, from_cache: bool) -> None:
        self.interface = interface
        self.library_path = library
        self.from_cache = from_cache
        self._library = ctypes.CDLL(str(library), mode=ctypes.RTLD_LOCAL)
        pointers = ctypes.POINTER(ctypes.c_void_p)
        self._predict = self._symbol('predict', [pointers, pointers, ctypes.c_long])
        self._trace = self._symbol('trace', [pointers, pointers, pointers, ctypes.c_int, ctypes.c_long])
        ports = self._symbol('ports', [], ctypes.c_char_p)()
        if ports is None or ports.decode() != interface.ports_line:
            raise CompilationError(
                f'the C-simulation library {library} does not fit this model (its ports: {ports!r}, the '
                f"model's: {interface.ports_line!r}); delete it and compile again"
            )

    def symbol(self, suffix: str, argtypes: list, restype: Any = None) -> Any:
        """The library's function `<project>_<suffix>` with its ctypes signature (the learning functions
        of hls4ml/csim/learning.py use it); CompilationError when the library has none."""
        return self._symbol(suffix, argtypes, restype)

    def _symbol(self, suffix: str, argtypes: list, restype: Any = None) -> Any:
        name = f'{self.interface.project_name}_{suffix}'
        try:
            function = getattr(self._library, name)
        except AttributeError:
            raise CompilationError(f'the C-simulation library {self.library_path} has no function {name}') from None
        function.argtypes = argtypes
        function.restype = restype
        return function

    @classmethod
    def build(cls, interface: CSimInterface) -> Simulation:
        library, from_cache = compile_library(interface.sources, interface.project_name)
        return cls(interface, library, from_cache)

    # ---- inputs ---------------------------------------------------------------------------------
    def _prepare(self, x: Any) -> tuple[list[np.ndarray], int, bool, np.dtype]:
        """Inputs as (n, size) float64 arrays; the sample count; whether one unbatched sample; dtype."""
        ports = self.interface.inputs
        arrays = list(x) if isinstance(x, (list, tuple)) and len(ports) > 1 else [x]
        if len(arrays) != len(ports):
            raise ValueError(f'the model has {len(ports)} inputs ({_names(ports)}); predict() got {len(arrays)} arrays')
        prepared, counts, single = [], set(), False
        dtype: np.dtype = np.dtype(np.float64)
        for array, (name, shape) in zip(arrays, ports, strict=True):
            values = _as_array(array, name)
            if values.dtype.kind not in 'fiub':
                raise ValueError(f"input '{name}': expected a numeric array, got dtype {values.dtype}")
            if values.dtype == np.float32:
                dtype = np.dtype(np.float32)
            _warn_not_finite(values, name)
            samples, is_single = _batch(values, name, shape)
            single |= is_single
            counts.add(samples)
            prepared.append(np.ascontiguousarray(values.reshape(samples, _size(shape)), dtype=np.float64))
        if len(counts) != 1:
            raise ValueError(f'inputs have different numbers of samples: {sorted(counts)}')
        return prepared, counts.pop(), single, dtype

    def _buffers(self, ports: tuple[Port, ...], samples: int) -> list[np.ndarray]:
        return [np.zeros((samples, _size(shape)), dtype=np.float64) for _, shape in ports]

    @staticmethod
    def _pointer_array(arrays: list[np.ndarray]) -> Any:
        table = (ctypes.c_void_p * max(len(arrays), 1))(*[array.ctypes.data for array in arrays])
        return ctypes.cast(table, ctypes.POINTER(ctypes.c_void_p))

    def _shape_outputs(self, outputs: list[np.ndarray], single: bool, dtype: np.dtype) -> Any:
        shaped = [output[0] if single else output for output in outputs]
        shaped = [output.astype(dtype, copy=False) for output in shaped]
        return shaped[0] if len(shaped) == 1 else shaped

    # ---- running --------------------------------------------------------------------------------
    def predict(self, x: Any) -> Any:
        inputs, samples, single, dtype = self._prepare(x)
        outputs = self._buffers(self.interface.outputs, samples)
        self._predict(self._pointer_array(inputs), self._pointer_array(outputs), samples)
        return self._shape_outputs(outputs, single, dtype)

    def trace(self, x: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """Predictions and every traced layer's outputs, in the caller's dtype, in one call: the C library
        writes each traced value straight into the result arrays, as a float when the caller's dtype is
        float32 (the double narrowed, as numpy would). Writing doubles into scratch buffers and narrowing
        them with numpy afterwards was a third of trace() on the io_stream CNNs (docs/performance.md)."""
        inputs, samples, single, dtype = self._prepare(x)
        outputs = self._buffers(self.interface.outputs, samples)
        traced = _result_arrays(self.interface.traces, samples, dtype)
        traces = self._pointer_array([result.reshape(samples, -1) for result in traced.values()])
        narrow = int(dtype == np.float32)
        self._trace(self._pointer_array(inputs), self._pointer_array(outputs), traces, narrow, samples)
        return self._shape_outputs(outputs, single, dtype), traced


def _result_arrays(traces: tuple[Port, ...], samples: int, dtype: np.dtype) -> dict[str, np.ndarray]:
    """Each traced layer's (samples, *shape) array, all views of one block: one large allocation, which numpy
    asks the kernel to back with huge pages, takes far fewer page faults than many."""
    sizes = [samples * _size(shape) for _, shape in traces]
    block = np.empty(sum(sizes), dtype=dtype)
    offsets = np.cumsum([0, *sizes])
    return {
        name: block[offsets[index] : offsets[index + 1]].reshape(samples, *shape)
        for index, (name, shape) in enumerate(traces)
    }


def _as_array(array: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(array)
    except (ValueError, TypeError) as error:  # a ragged list, a generator of arrays of other shapes
        raise ValueError(f"input '{name}': not a rectangular numeric array ({error})") from None


def _warn_not_finite(values: np.ndarray, name: str) -> None:
    if values.dtype.kind == 'f' and not np.isfinite(values).all():
        nan, infinite = int(np.isnan(values).sum()), int(np.isinf(values).sum())
        warnings.warn(
            f"input '{name}': {nan} NaN and {infinite} infinite value(s); the firmware reads NaN as +inf, so "
            'saturating types give their largest value and wrapping types give 0',
            RuntimeWarning,
            stacklevel=4,
        )


def _names(ports: tuple[Port, ...]) -> str:
    return ', '.join(f"'{name}' {shape}" for name, shape in ports)


def _batch(values: np.ndarray, name: str, shape: tuple[int, ...]) -> tuple[int, bool]:
    """Number of samples in `values` for an input of `shape`, and whether it is one unbatched sample.

    Accepted: (n, *shape), (n, size) and, for a single sample, shape or (size,).
    """
    size = _size(shape)
    if values.shape in (tuple(shape), (size,)) and values.ndim >= 1:
        return 1, True
    if values.ndim >= 1 and values.shape[1:] in (tuple(shape), (size,)):
        return values.shape[0], False
    raise ValueError(
        f"input '{name}': expected shape (n_samples, {', '.join(map(str, shape))})"
        f'{" or (n_samples, " + str(size) + ")" if len(shape) > 1 else ""}, got {values.shape}'
    )
