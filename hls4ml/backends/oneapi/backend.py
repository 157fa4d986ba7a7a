"""The Intel oneAPI backend: ac_fixed types, a SYCL kernel around the shared model core, a CMake project.

What names the toolkit lives in two places, so that a successor flow (Altera's oneAPI after 2025.0)
is a small change: `TOOLKIT` below (the compiler, the versions that still have FPGA support, how to
install it) and `templates/oneapi/dialect.j2` (headers, namespaces, kernel and pipe properties,
compiler flags). The kernel library's attribute spellings are in `templates/nnet/dialect/oneapi.h`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hls4ml.backends.base import Backend


@dataclass(frozen=True)
class Toolkit:
    compiler: str  # on PATH after setvars.sh; CMakeLists.txt names it too (dialect.j2)
    oldest: tuple[int, int]  # the compiler versions with FPGA support
    newest: tuple[int, int]
    advice: str  # how to get the compiler, for the error when it is missing


TOOLKIT = Toolkit(
    compiler='icpx',
    oldest=(2024, 1),
    newest=(2025, 0),
    advice=(
        'source the oneAPI setvars.sh (e.g. /opt/intel/oneapi/setvars.sh) of a 2024.1 to 2025.0 install with '
        'the FPGA support package (apt-get install intel-oneapi-compiler-fpga brings icpx 2025.0; FPGA '
        'support ends with 2025.0), or put icpx on PATH.'
    ),
)

BUILD_TYPES = ('fpga_emu', 'report', 'fpga_sim', 'fpga', 'lib')  # make targets of CMakeLists.txt


@dataclass(frozen=True)
class OneAPIBackend(Backend):
    family: str = 'ac'
    template_dir: str = 'oneapi'
    default_part: str = 'Agilex7'
    part_kind: str = 'intel'
    source_dir: str = 'src'

    def create_initial_config(
        self,
        part: str | None = 'Agilex7',
        clock_period: float = 5,
        hyperopt_handshake: bool = False,
        io_type: str = 'io_parallel',
        write_tar: bool = False,
        **unknown: Any,
    ) -> tuple[dict[str, Any], set[str]]:
        """The backend's top-level config keys (hls4ml 1.x names) and the unknown keyword names."""
        self.check_io_type(io_type)
        self.check_clock_period(clock_period)
        config = {
            'Part': self.chosen_part(part),
            'ClockPeriod': clock_period,
            'HyperoptHandshake': bool(hyperopt_handshake),
            'IOType': io_type,
            'HLSConfig': {},
            'WriterConfig': {'WriteTar': write_tar},
        }
        return config, set(unknown)

    def project_files(self) -> dict[str, str]:
        return {
            **super().project_files(),
            'firmware/{name}_kernel.h': 'firmware/kernel.h.j2',
            'firmware/{name}_kernel.cpp': 'firmware/kernel.cpp.j2',
            '{name}_test.cpp': 'project_test.cpp.j2',
            f'{self.source_dir}/exception_handler.hpp': 'exception_handler.hpp.j2',
            'CMakeLists.txt': 'CMakeLists.txt.j2',
        }

    def build(self, model: Any, **kwargs: Any) -> dict[str, Any]:
        from hls4ml.backends.oneapi.build import build_project

        return build_project(model, **kwargs)
