"""Build and run the C++ kernel drivers of test/csim/nnet, with a content-hash cache of binaries.

A driver (rendered from `driver.cpp.j2`) holds many kernel cases; it reads every array, scalar
and input sample from stdin as hex floats and prints each result row as hex floats, so the binary
depends only on the cases' types and sizes, never on the data. Binaries are cached under
`$HLS4ML_CACHE_DIR/test-drivers` (default `~/.cache/hls4ml/test-drivers`), keyed by the source,
every header it can include, the flags and the compiler version.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import numpy as np
import pytest
from vendor import vendor_headers, why_missing

from hls4ml.model.fixed import FixedArray

REPO = Path(__file__).resolve().parents[3]
TEMPLATES = REPO / 'hls4ml' / 'templates'
NNET = TEMPLATES / 'nnet'
OWN_TYPES = TEMPLATES / 'fixed'
VENDOR_TYPES = {family: vendor_headers(family) for family in ('ap', 'ac')}
TYPE_HEADER = {'ap': 'ap_fixed.h', 'ac': 'ac_fixed.h'}
WARNING_FLAGS = ['-Wall', '-Wextra', '-Werror']


@dataclass(frozen=True)
class HeaderSet:
    """Where the fixed-point headers of one family come from: our own, or the vendor's."""

    origin: str  # 'own' or 'vendor'
    family: str  # 'ap' or 'ac'

    @property
    def include(self) -> Path:
        folder = OWN_TYPES if self.origin == 'own' else VENDOR_TYPES[self.family]
        return folder if folder is not None else Path('/nonexistent')

    def missing(self) -> str | None:
        """Why these headers cannot be used here, or None."""
        if (self.include / TYPE_HEADER[self.family]).is_file():
            return None
        return f'{self.origin} {self.family} headers not found: {why_missing()}'

    def flags(self) -> list[str]:
        # -isystem: warnings inside the type headers are not ours to fix; -Werror covers the kernels.
        dialect = ['-DHLS4ML_DIALECT_AC'] if self.family == 'ac' else []
        # The vendor ap_fixed default constructor leaves its value uninitialized and then reads it;
        # g++ reports that (in their code, inlined into ours) as maybe-uninitialized.
        quiet = ['-Wno-maybe-uninitialized', '-Wno-uninitialized'] if self.origin == 'vendor' else []
        return ['-std=c++14', *dialect, '-isystem', str(self.include), f'-I{NNET}', f'-I{TEMPLATES / "stream"}', *quiet]

    def __str__(self) -> str:
        return f'{self.origin}-{self.family}'


HEADER_SETS = [HeaderSet(origin, family) for origin in ('own', 'vendor') for family in ('ap', 'ac')]

# The builds of a stream-kernel driver: the kernels as the HLS tools see them ('default'), and as compile()
# builds the library, where some kernels take faster C-simulation paths (NNET_CSIM_FAST; the driver's
# EXPECT_CSIM_FAST check fails its build without them). The fast paths exist on our own fixed-point headers
# only, so each header set gets the default build and our own ones the C-simulation's as well.
BUILDS = {'default': [], 'csim-fast': ['-std=c++17', '-DHLS4ML_CSIM_FAST', '-DEXPECT_CSIM_FAST']}
HEADER_BUILDS = [
    (headers, mode) for headers in HEADER_SETS for mode in BUILDS if mode == 'default' or headers.origin == 'own'
]


@dataclass
class DriverArray:
    name: str
    type: str  # C++ element type, usually a config typedef such as `config::weight_t`
    values: FixedArray

    @property
    def size(self) -> int:
        return int(np.prod(self.values.shape))


@dataclass
class DriverCase:
    """One kernel call as the driver template needs it, plus its inputs and expected outputs."""

    name: str
    base: str
    config_lines: list[str]
    data_type: str
    result_type: str
    call: str
    inputs: FixedArray
    expected: FixedArray
    arrays: list[DriverArray] = field(default_factory=list)
    scalars: list[tuple[str, float]] = field(default_factory=list)

    @property
    def n_in(self) -> int:
        return self.inputs.shape[1]

    @property
    def n_out(self) -> int:
        return self.expected.shape[1]


def render(cases: list[DriverCase]) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent), undefined=jinja2.StrictUndefined
    )
    widest = max(max(case.n_in, case.n_out) for case in cases)
    return environment.get_template('driver.cpp.j2').render(cases=cases, widest=widest)


def _cache_root() -> Path:
    base = os.environ.get('HLS4ML_CACHE_DIR')
    root = Path(base) if base else Path.home() / '.cache' / 'hls4ml'
    path = root / 'test-drivers'
    path.mkdir(parents=True, exist_ok=True)
    return path


def _digest(parts: list[str], folders: list[Path]) -> str:
    digest = hashlib.sha256('\0'.join(parts).encode())
    for folder in folders:
        for path in sorted(folder.rglob('*.h')):
            digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()[:24]


def compiler() -> str | None:
    return shutil.which(os.environ.get('CXX', 'g++')) or shutil.which('g++')


def require(headers: HeaderSet) -> None:
    """Skip the calling test unless g++ and this header set are on the machine (with the reason)."""
    if compiler() is None:
        pytest.skip('no C++ compiler')
    reason = headers.missing()
    if reason:
        pytest.skip(reason)


def compile_source(source: str, flags: list[str], folders: list[Path], name: str) -> Path:
    """The cached executable of `source`; raises AssertionError with the compiler output on failure."""
    cxx = compiler()
    assert cxx is not None, 'no C++ compiler'
    version = subprocess.run([cxx, '--version'], capture_output=True, text=True).stdout
    executable = _cache_root() / f'{name}-{_digest([source, version, cxx, *flags], folders)}'
    if executable.exists():
        return executable
    with tempfile.TemporaryDirectory() as work:
        source_path = Path(work) / f'{name}.cpp'
        source_path.write_text(source)
        built = Path(work) / name
        process = subprocess.run([cxx, *flags, str(source_path), '-o', str(built)], capture_output=True, text=True)
        assert process.returncode == 0, f'compile failed ({" ".join(flags)}):\n{process.stderr[-6000:]}'
        staged = executable.with_name(f'{executable.name}.tmp{os.getpid()}')
        shutil.copy2(built, staged)
        os.replace(staged, executable)  # atomic: parallel workers may build the same driver
    return executable


def build_driver(cases: list[DriverCase], headers: HeaderSet) -> Path:
    flags = [*WARNING_FLAGS, *headers.flags(), '-O1']
    return compile_source(render(cases), flags, [headers.include, NNET], f'nnet-{headers}')


def _hex(values: np.ndarray) -> str:
    return ' '.join(float(value).hex() for value in np.ravel(values))


def stdin_text(cases: list[DriverCase]) -> str:
    lines = []
    for case in cases:
        lines += [_hex(array.values.value) for array in case.arrays]
        lines += [float(value).hex() for _, value in case.scalars]
        lines += [float(case.inputs.shape[0]).hex(), _hex(case.inputs.value)]
    return '\n'.join(lines) + '\n'


def run_driver(executable: Path, cases: list[DriverCase]) -> dict[str, np.ndarray]:
    """Each case's output rows, as float64 arrays of shape (n_samples, n_out)."""
    process = subprocess.run([str(executable)], input=stdin_text(cases), capture_output=True, text=True)
    assert process.returncode == 0, f'driver failed: {process.stderr[-3000:]}'
    rows = iter(process.stdout.splitlines())
    results = {}
    for case in cases:
        block = [[float.fromhex(text) for text in next(rows).split()] for _ in range(case.inputs.shape[0])]
        results[case.name] = np.array(block, dtype=np.float64)
    return results
