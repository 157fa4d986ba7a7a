"""The compiled C-simulation of one model: batch predict and trace through ctypes.

The bridge exports two C functions that loop over the whole batch in C:

    void <proj>_predict(const double *const *inputs, double *const *outputs, long n_samples);
    void <proj>_trace(const double *const *inputs, double *const *outputs, double *const *traces, long n);

Each `inputs[k]` is a C-contiguous (n_samples, size_k) array of doubles (float32 inputs are widened
exactly), each output and trace buffer likewise. Shapes are checked here, before any C runs.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.csim.compiler import compile_library

Port = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class CSimInterface:
    """What the writer tells the simulator about a project."""

    project_name: str
    bridge: Path  # the one translation unit (it includes the firmware)
    include_dirs: tuple[Path, ...]
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    traces: tuple[Port, ...]  # traced layers, in the order of the bridge's trace buffers
    hashed_dirs: tuple[Path, ...] = ()  # everything else the bridge includes (the firmware folder)
    defines: tuple[str, ...] = ()  # -D flags: the backend's dialect


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape)) if shape else 1


class Simulation:
    def __init__(self, interface: CSimInterface, library: Path, from_cache: bool) -> None:
        self.interface = interface
        self.library_path = library
        self.from_cache = from_cache
        self._library = ctypes.CDLL(str(library), mode=ctypes.RTLD_LOCAL)
        pointers = ctypes.POINTER(ctypes.c_void_p)
        self._predict = getattr(self._library, f'{interface.project_name}_predict')
        self._predict.argtypes = [pointers, pointers, ctypes.c_long]
        self._predict.restype = None
        self._trace = getattr(self._library, f'{interface.project_name}_trace')
        self._trace.argtypes = [pointers, pointers, pointers, ctypes.c_long]
        self._trace.restype = None

    @classmethod
    def build(cls, model: Any) -> Simulation:
        interface = model.csim_interface
        library, from_cache = compile_library(
            interface.bridge,
            interface.include_dirs,
            interface.project_name,
            hashed_dirs=interface.hashed_dirs,
            defines=interface.defines,
        )
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
            values = np.asarray(array)
            if values.dtype.kind not in 'fiub':
                raise ValueError(f"input '{name}': expected a numeric array, got dtype {values.dtype}")
            if values.dtype == np.float32:
                dtype = np.dtype(np.float32)
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
        inputs, samples, single, dtype = self._prepare(x)
        outputs = self._buffers(self.interface.outputs, samples)
        traces = self._buffers(self.interface.traces, samples)
        self._trace(self._pointer_array(inputs), self._pointer_array(outputs), self._pointer_array(traces), samples)
        traced = {
            name: buffer.reshape((samples, *shape)).astype(dtype, copy=False)
            for (name, shape), buffer in zip(self.interface.traces, traces, strict=True)
        }
        return self._shape_outputs(outputs, single, dtype), traced


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
