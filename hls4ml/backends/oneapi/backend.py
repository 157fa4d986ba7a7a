"""The Intel oneAPI backend: ac_fixed types, a SYCL kernel around the shared model core, a CMake project.

What names the toolkit lives in two places, so that a successor flow (Altera's oneAPI after 2025.0)
is a small change: `TOOLKIT` in `toolkit.py` (the compiler, the versions that still have FPGA support, how to
install it) and `templates/oneapi/dialect.j2` (headers, namespaces, kernel and pipe properties,
compiler flags). The kernel library's attribute spellings are in `templates/nnet/dialect/oneapi.h`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hls4ml.backends.base import Backend, Design


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

    def build(self, design: Design, **kwargs: Any) -> dict[str, Any]:
        from hls4ml.backends.oneapi.build import build_project

        return build_project(design, **kwargs)
