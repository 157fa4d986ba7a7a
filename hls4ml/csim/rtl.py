"""Verilator co-simulation: an RTL design compiled into a shared library, batch predict through ctypes.

    simulation = RTLSimulation.build(interface, input_types)   # cached by the content hash of every file
    y = simulation.predict(x)                      # the RTL's outputs, cycle by cycle, for the whole batch
    simulation.latency_cycles(x)                   # the pipeline depth, measured on the Verilated model
    y, layers = simulation.trace(x)                # every traced layer's values, from the trace build

The Verilog backend writes the design (`hls4ml/backends/verilog/project.py`); the writer hands it here as
an `RTLInterface` (files in memory, port formats), as it hands a C++ project to `compiler.py`. The
library is built in a private folder: Verilator turns the wrapper and its modules into C++ (`--cc
--build`), g++ links it with da4ml's binder and our latency probe. The Verilator runtime
(verilated.cpp) is compiled once per Verilator version. Entries live in `<cache root>/rtl` under the
same root and lock as the C-simulation's (`cache.py`); ROM files are kept beside the library and the
RTL names them by absolute path, so a run does not depend on the working folder. A missing tool or a
failed build raises CompilationError, as compile() does on the HLS backends.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.csim.cache import cache_root, locked
from hls4ml.csim.compiler import CompilationError
from hls4ml.model.fixed.ports import PortFormat, port_values, raw_inputs
from hls4ml.model.types import PrecisionType

TIMEOUT = 1800.0  # seconds per tool run; HLS4ML_COMPILE_TIMEOUT overrides
RUNTIME_SOURCES = ('verilated.cpp', 'verilated_threads.cpp')


@dataclass(frozen=True)
class RTLInterface:
    """What the writer tells the RTL simulator about a design: its files and the facts of its ports."""

    name: str  # the top module; the wrapper is <name>_wrapper
    files: dict[str, str] = field(repr=False)  # relative path -> text: src/, sim/ (binder, probe)
    inputs: PortFormat
    outputs: PortFormat
    stages: int  # pipeline registers between input and output
    input_sizes: tuple[int, ...]
    output_sizes: tuple[int, ...]
    traces: tuple[tuple[str, tuple[int, ...]], ...] = ()  # a trace build: (layer, shape) after the outputs


def find_tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise CompilationError(f"'{name}' was not found on PATH: install it (Debian/Ubuntu: apt-get install {package})")
    return path


def run_tool(command: list[str], cwd: Path, what: str) -> str:
    """Run a build step; CompilationError with its error lines when it fails or times out."""
    timeout = float(os.environ.get('HLS4ML_COMPILE_TIMEOUT') or TIMEOUT)
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise CompilationError(f'{what} did not finish within {timeout:g} s (HLS4ML_COMPILE_TIMEOUT)') from expired
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).splitlines()
        errors = [line for line in lines if 'rror' in line] or lines[-20:]
        raise CompilationError(f'{what} failed:\n' + '\n'.join(errors[:20]) + f'\n(command: {" ".join(command)})')
    return result.stdout


def rtl_cache() -> Path:
    folder = cache_root() / 'rtl'
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def verilator_root(verilator: str) -> Path:
    """Where Verilator's runtime sources are (`verilator --getenv VERILATOR_ROOT`)."""
    command = [verilator, '--getenv', 'VERILATOR_ROOT']
    root = subprocess.run(command, capture_output=True, text=True, check=False).stdout.strip()
    if not root or not (Path(root) / 'include' / 'verilated.cpp').is_file():
        raise CompilationError(f"could not find Verilator's runtime sources (`{' '.join(command)}` gave {root!r})")
    return Path(root)


def _digest(project: RTLInterface, version: str) -> str:
    digest = hashlib.sha256(version.encode())
    for path in sorted(project.files):
        content = project.files[path].encode()
        digest.update(f'\0{path}\0{len(content)}\0'.encode() + content)
    return digest.hexdigest()[:32]


def _runtime(root: Path, version_key: str, cache: Path) -> list[Path]:
    """The Verilator runtime objects, compiled once per Verilator version."""
    folder = cache / f'runtime-{version_key}'
    objects = [folder / (Path(source).stem + '.o') for source in RUNTIME_SOURCES]
    folder.mkdir(exist_ok=True)
    with locked(folder / '.lock'):
        for source, target in zip(RUNTIME_SOURCES, objects, strict=True):
            if not target.exists():
                includes = [f'-I{root / "include"}', f'-I{root / "include" / "vltstd"}']
                staged = folder / f'.{target.name}.{os.getpid()}'
                command = ['g++', '-std=c++17', '-fPIC', '-O', *includes, '-c', str(root / 'include' / source)]
                run_tool([*command, '-o', str(staged)], folder, 'g++ (Verilator runtime)')
                os.replace(staged, target)
    return objects


def compile_rtl(project: RTLInterface) -> tuple[Path, bool]:
    """The shared library of `project` (path, whether it came from the cache)."""
    verilator = find_tool('verilator', 'verilator')
    find_tool('g++', 'g++')
    version = subprocess.run([verilator, '--version'], capture_output=True, text=True, check=False).stdout.strip()
    cache = rtl_cache()
    entry = cache / f'{project.name}-{_digest(project, version)}'
    library = entry / f'lib{project.name}.so'
    with locked(cache / f'{entry.name}.lock'):
        if library.exists():
            return library, True
        root = verilator_root(verilator)
        runtime = _runtime(root, hashlib.sha256(version.encode()).hexdigest()[:12], cache)
        with tempfile.TemporaryDirectory(dir=cache) as work:
            _build(project, Path(work), entry, verilator, root, runtime)
    return library, False


def _build(project: RTLInterface, work: Path, entry: Path, verilator: str, root: Path, runtime: list[Path]) -> None:
    staging = work / 'entry'
    (staging / 'memfiles').mkdir(parents=True)
    for path, content in project.files.items():
        if path.startswith('src/memfiles/'):
            (staging / 'memfiles' / Path(path).name).write_text(content)
    memfiles = entry / 'memfiles'
    for path, content in project.files.items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.startswith('src/') and path.endswith('.v'):
            content = re.sub(r'"(table_[0-9a-f-]+\.mem)"', lambda match: f'"{memfiles / match.group(1)}"', content)
        target.write_text(content)
    name, jobs = project.name, str(min(os.cpu_count() or 1, 4))
    flags = '-std=c++17 -fPIC -O'
    command = [verilator, '--cc', '-j', jobs, '--build', '-Wno-fatal', '-Wno-lint', '-Wno-style']
    command += [
        f'../src/{name}_wrapper.v',
        '--prefix',
        f'V{name}_wrapper',
        '-CFLAGS',
        flags,
        '-I../src',
        '-I../src/static',
    ]
    run_tool(command, work / 'sim', 'verilator')
    includes = ['-Iobj_dir', f'-I{root / "include"}', f'-I{root / "include" / "vltstd"}']
    sources = [f'{name}_wrapper_binder.cc', f'{name}_latency_probe.cc', f'obj_dir/V{name}_wrapper__ALL.a']
    output = staging / f'lib{name}.so'
    link = ['g++', *flags.split(), '-shared', '-pthread', '-fopenmp', *includes, *sources, *map(str, runtime)]
    run_tool([*link, '-o', str(output)], work / 'sim', 'g++ (Verilated model)')
    if entry.exists():
        shutil.rmtree(entry)
    os.replace(staging, entry)


class RTLSimulation:
    """A compiled RTL model: predict() on whole batches, the latency measured in cycles."""

    def __init__(
        self,
        project: RTLInterface,
        library: Path,
        from_cache: bool,
        input_types: list[PrecisionType],
        trace_source: Callable[[], RTLInterface] | None = None,
    ):
        self.project, self.library_path, self.from_cache = project, library, from_cache
        self.input_types = input_types
        self._trace_source = trace_source
        self._trace_simulation: RTLSimulation | None = None
        self._trace_lock = threading.Lock()
        self._library = ctypes.CDLL(str(library), mode=ctypes.RTLD_LOCAL)
        pointer = ctypes.POINTER(ctypes.c_int32)
        self._inference = self._library.inference
        self._inference.argtypes = [pointer, pointer, ctypes.c_size_t, ctypes.c_size_t]
        self._latency = getattr(self._library, f'{project.name}_measure_latency')
        self._latency.argtypes = [pointer, pointer, ctypes.c_long]
        self._latency.restype = ctypes.c_long

    @classmethod
    def build(
        cls,
        project: RTLInterface,
        input_types: list[PrecisionType],
        trace_source: Callable[[], RTLInterface] | None = None,
    ) -> RTLSimulation:
        """Compile `project`; `trace_source` renders its trace build when trace() first asks for it."""
        library, from_cache = compile_rtl(project)
        return cls(project, library, from_cache, input_types, trace_source)

    def raw_inputs(self, x: Any) -> tuple[np.ndarray, bool, np.dtype]:
        """Inputs written into their types (their modes, as the C-simulation's bridge does), as the
        integers of the uniform input port: (n_samples, n_inputs) int32; whether one unbatched sample."""
        arrays = list(x) if isinstance(x, (list, tuple)) and len(self.input_types) > 1 else [x]
        if len(arrays) != len(self.input_types):
            raise ValueError(f'the model has {len(self.input_types)} inputs; predict() got {len(arrays)} arrays')
        dtype = np.dtype(np.float32) if all(np.asarray(a).dtype == np.float32 for a in arrays) else np.dtype(np.float64)
        raw, single = raw_inputs(arrays, self.input_types, self.project.input_sizes, self.project.inputs)
        return raw, single, dtype

    def predict(self, x: Any) -> Any:
        raw, single, dtype = self.raw_inputs(x)
        values = self._run(raw)[:, : sum(self.project.output_sizes)]
        parts = np.split(values, np.cumsum(self.project.output_sizes)[:-1], axis=1)
        return self._shaped(parts, single, dtype)

    def _run(self, raw: np.ndarray) -> np.ndarray:
        """The output port's values for every row of `raw` (the batch inference of da4ml's binder)."""
        samples = raw.shape[0]
        output = np.zeros((samples, self.project.outputs.count), dtype=np.int32)
        pointer = ctypes.POINTER(ctypes.c_int32)
        self._inference(raw.ctypes.data_as(pointer), output.ctypes.data_as(pointer), samples, 0)
        return port_values(output, self.project.outputs)

    @staticmethod
    def _shaped(parts: list[np.ndarray], single: bool, dtype: np.dtype) -> Any:
        shaped = [part[0] if single else part for part in parts]
        shaped = [part.astype(dtype) for part in shaped]
        return shaped[0] if len(shaped) == 1 else shaped

    def latency_cycles(self, x: Any) -> int:
        """Clock edges from an input to its output, measured on the Verilated model with two samples of
        `x` whose outputs differ; RuntimeError when no two samples of `x` give different outputs."""
        raw, _, _ = self.raw_inputs(x)
        pointer = ctypes.POINTER(ctypes.c_int32)
        first = np.ascontiguousarray(raw[0])
        limit = 4 * self.project.stages + 8
        for other in raw[1:]:
            second = np.ascontiguousarray(other)
            cycles = self._latency(first.ctypes.data_as(pointer), second.ctypes.data_as(pointer), limit)
            if cycles >= 0:
                return int(cycles)
        raise RuntimeError('latency_cycles needs two inputs whose outputs differ; give more varied samples')

    def trace(self, x: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """(predictions, {layer: its outputs, (n_samples, *shape)}), as the C-simulation's trace() gives them.
        The predictions are this RTL's; the layers' values come from the trace build (`render_trace_rtl`:
        the same program with every traced layer's values as extra output ports), compiled on first use.
        Its own predictions must equal this RTL's, or a RuntimeError says they do not."""
        if self.project.traces:
            return self._layer_values(x)
        tracer = self._tracer()
        predictions = self.predict(x)
        again, traced = tracer._layer_values(x)
        for ours, theirs in zip(_as_list(predictions), _as_list(again), strict=True):
            if not np.array_equal(ours, theirs):
                raise RuntimeError(f'the trace build of {self.project.name} predicts differently from its RTL')
        return predictions, traced

    def _tracer(self) -> RTLSimulation:
        with self._trace_lock:
            if self._trace_simulation is None:
                if self._trace_source is None:
                    raise RuntimeError(f'{self.project.name}: this RTL simulation was built without a trace build')
                self._trace_simulation = RTLSimulation.build(self._trace_source(), self.input_types)
            return self._trace_simulation

    def _layer_values(self, x: Any) -> tuple[Any, dict[str, np.ndarray]]:
        """A trace build's run: the model's outputs, then each traced layer's values."""
        raw, single, dtype = self.raw_inputs(x)
        values = self._run(raw)
        sizes = [*self.project.output_sizes, *(int(np.prod(shape)) for _, shape in self.project.traces)]
        parts = np.split(values, np.cumsum(sizes)[:-1], axis=1)
        count = len(self.project.output_sizes)
        traced = {
            name: part.reshape((raw.shape[0], *shape)).astype(dtype)
            for (name, shape), part in zip(self.project.traces, parts[count:], strict=True)
        }
        return self._shaped(parts[:count], single, dtype), traced


def _as_list(predictions: Any) -> list[np.ndarray]:
    return predictions if isinstance(predictions, list) else [predictions]
