"""The Siemens Catapult backend: ac_fixed types and ac_channel streams over the shared model core, a
Catapult Tcl build for an FPGA part or an ASIC library, and an SCVerify testbench."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hls4ml.backends import script_values
from hls4ml.backends.base import Backend, Design

TECHNOLOGIES = ('fpga', 'asic')


def asic_libraries(asiclibs: str | list[str] | tuple[str, ...]) -> str:
    """The ASIC libraries as hls4ml stores them: one string, the names separated by spaces."""
    names = asiclibs.split() if isinstance(asiclibs, str) else list(asiclibs)
    if not names:
        raise ValueError(f'asiclibs must name one or more Catapult libraries (e.g. "nangate-45nm"), got {asiclibs!r}')
    return ' '.join(script_values.check_library(name) for name in names)


@dataclass(frozen=True)
class CatapultBackend(Backend):
    family: str = 'ac'
    template_dir: str = 'catapult'
    default_part: str = 'xcku115-flvb2104-2-i'

    def create_initial_config(
        self,
        tech: str = 'fpga',
        part: str | None = None,
        asiclibs: str | list[str] = 'nangate-45nm',
        fifo: int | None = None,
        clock_period: float = 5,
        io_type: str = 'io_parallel',
        namespace: str | None = None,
        write_weights_txt: bool = True,
        write_tar: bool = False,
        tb_output_stream: str = 'both',
        **unknown: Any,
    ) -> tuple[dict[str, Any], set[str]]:
        """The backend's top-level config keys (hls4ml 1.x names) and the unknown keyword names.

        `tech='fpga'` targets a Xilinx `part`; `tech='asic'` the Catapult libraries `asiclibs`. `fifo`
        is the default depth of the FIFOs Catapult builds for channels (None: Catapult's default)."""
        self.check_io_type(io_type)
        self.check_clock_period(clock_period)
        if tech not in TECHNOLOGIES:
            raise ValueError(f"tech must be 'fpga' or 'asic', got {tech!r}")
        if fifo is not None and (isinstance(fifo, bool) or not isinstance(fifo, int) or fifo < 0):
            raise ValueError(f'fifo must be None or a FIFO depth (a non-negative integer), got {fifo!r}')
        config: dict[str, Any] = {'Technology': tech}
        if tech == 'fpga':
            config['Part'] = self.chosen_part(part)
        elif part is not None:
            raise ValueError("part applies to tech='fpga'; an ASIC build takes its libraries from asiclibs")
        else:
            config['ASICLibs'] = asic_libraries(asiclibs)
        config.update(
            ClockPeriod=clock_period,
            FIFO=fifo,
            IOType=io_type,
            HLSConfig={},
            WriterConfig=self.writer_config(namespace, write_weights_txt, write_tar, tb_output_stream),
        )
        return config, set(unknown)

    def project_files(self) -> dict[str, str]:
        return {
            **super().project_files(),
            '{name}_test.cpp': 'common/project_test.cpp.j2',
            'build_prj.tcl': 'build_prj.tcl.j2',
        }

    def build(self, design: Design, **kwargs: Any) -> dict[str, Any]:
        from hls4ml.backends.catapult.build import build_project

        return build_project(design, **kwargs)
