"""The Vitis/Vivado backend: what differs from other backends is data (type family, defaults, templates)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hls4ml.backends import script_values
from hls4ml.backends.base import IO_TYPES, Backend, Design

SUPPORTED_IO_TYPES = IO_TYPES


@dataclass(frozen=True)
class VitisBackend(Backend):
    family: str = 'ap'
    template_dir: str = 'vitis'
    default_part: str = 'xcvu13p-flga2577-2-e'
    emulation_constants: bool = False  # only Vitis has WriterConfig.WriteEmulationConstants in hls4ml 1.x

    def create_initial_config(
        self,
        part: str | None = None,
        clock_period: float = 5,
        clock_uncertainty: str | None = None,
        io_type: str = 'io_parallel',
        namespace: str | None = None,
        write_weights_txt: bool = True,
        write_tar: bool = False,
        tb_output_stream: str = 'both',
        write_emulation_constants: bool = False,
        **unknown: Any,
    ) -> tuple[dict[str, Any], set[str]]:
        """The backend's top-level config keys (hls4ml 1.x names) and the unknown keyword names."""
        self.check_io_type(io_type)
        self.check_clock_period(clock_period)
        uncertainty = self.clock_uncertainty if clock_uncertainty is None else clock_uncertainty
        script_values.check_clock_uncertainty(uncertainty)
        writer = self.writer_config(namespace, write_weights_txt, write_tar, tb_output_stream)
        config = {
            'Part': self.chosen_part(part),
            'ClockPeriod': clock_period,
            'ClockUncertainty': uncertainty,
            'IOType': io_type,
            'HLSConfig': {},
            'WriterConfig': writer,
        }
        if self.emulation_constants:
            writer['WriteEmulationConstants'] = write_emulation_constants
        elif write_emulation_constants:
            unknown['write_emulation_constants'] = write_emulation_constants
        return config, set(unknown)

    def project_files(self) -> dict[str, str]:
        return {
            **super().project_files(),
            '{name}_test.cpp': 'common/project_test.cpp.j2',
            'build_prj.tcl': 'build_prj.tcl.j2',
            'project.tcl': 'project.tcl.j2',
            'vivado_synth.tcl': 'vivado_synth.tcl.j2',
        }

    def learn_files(self) -> dict[str, str]:
        return {**super().learn_files(), 'build_learn.tcl': 'build_learn.tcl.j2'}

    def build(self, design: Design, **kwargs: Any) -> dict[str, Any]:
        from hls4ml.backends.vitis.build import build_project

        return build_project(design, **kwargs)
