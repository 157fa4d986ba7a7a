"""What every backend is: data (type family, defaults, templates, C-simulation defines) plus three
methods that differ (its configuration keywords, the files it writes, how its vendor tool runs).

The lowering (`backends/common`), the kernel library (`templates/nnet`, one source with a dialect
per vendor) and the shared templates (`templates/common`) serve every backend. A backend's template
folder holds only what differs: `dialect.j2` (type headers, stream type, top-level pragmas, the
testbench entry point) and its own project files (build scripts, CMakeLists, wrappers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hls4ml.backends import script_values
from hls4ml.model.ir import Graph

IO_TYPES = ('io_parallel', 'io_stream')

# The files every backend writes from templates/common: output path -> template ({name}: project name)
COMMON_FILES = {
    'firmware/{name}.cpp': 'common/firmware/project.cpp.j2',
    'firmware/{name}.h': 'common/firmware/project.h.j2',
    'firmware/defines.h': 'common/firmware/defines.h.j2',
    'firmware/parameters.h': 'common/firmware/parameters.h.j2',
    '{name}_bridge.cpp': 'common/project_bridge.cpp.j2',
}
WEIGHTS_TEMPLATE = 'common/firmware/weights/array.h.j2'
LEARN_FILES = {  # the learning top functions, in projects with a SOM or ReSOM layer (docs/som.md)
    'firmware/{name}_learn.h': 'common/firmware/learn.h.j2',
    'firmware/{name}_learn.cpp': 'common/firmware/learn.cpp.j2',
}


class VendorToolNotFound(RuntimeError):
    """The vendor tool a build needs is not installed or not on PATH."""


class VendorBuildError(RuntimeError):
    """The vendor tool ran and failed; the message carries its error lines."""


@dataclass(frozen=True)
class Backend:
    name: str
    family: str  # 'ap' (ap_fixed) or 'ac' (ac_fixed): the fixed-point semantics of every type
    template_dir: str
    default_part: str
    part_kind: str = 'xilinx'  # the form of its part names (backends/script_values.py PART_FORMS)
    clock_uncertainty: str | None = None
    source_dir: str = ''  # where the sources sit in the project ('' or 'src'); firmware/ is below it
    csim_defines: tuple[str, ...] = ()  # g++ -D flags of the C-simulation library (the dialect)
    unsupported_io: tuple[tuple[str, str], ...] = ()  # (io_type, why): gaps, shown in docs/layers.md
    unsupported_kinds: tuple[tuple[str, str], ...] = ()  # (IR kind, why): gaps, shown in docs/layers.md
    partial_io: tuple[tuple[str, str], ...] = ()  # (io_type, what is missing): generated, C-simulated, not complete
    writes_rtl: bool = False  # True: the project is Verilog and compile() builds it with Verilator (docs/verilog.md)

    def check_io_type(self, io_type: str) -> None:
        if io_type not in IO_TYPES:
            raise ValueError(f"io_type must be 'io_parallel' or 'io_stream', got {io_type!r}")
        why = dict(self.unsupported_io).get(io_type)
        if why:
            raise ValueError(f"the {self.name} backend does not support io_type '{io_type}' yet: {why}")

    @staticmethod
    def check_clock_period(clock_period: Any) -> None:
        script_values.check_clock_period(clock_period)

    def chosen_part(self, part: str | None) -> str:
        """`part`, or the default when None, checked: a malformed name is an error (it reaches the build
        scripts), a name the device table does not know is a warning."""
        chosen = self.default_part if part is None else script_values.check_part(part, self.part_kind)
        script_values.warn_unknown_part(chosen, self.part_kind, stacklevel=4)
        return chosen

    @staticmethod
    def writer_config(
        namespace: str | None, write_weights_txt: bool, write_tar: bool, tb_output_stream: str
    ) -> dict[str, Any]:
        """The WriterConfig keys of the backends that write weights files and a file-reading testbench."""
        if namespace is not None:
            raise ValueError(
                f'namespace (WriterConfig Namespace) {namespace!r} is not supported in this version: the '
                'generated C++ is not wrapped in a namespace; remove the key (or set it to None)'
            )
        if tb_output_stream not in ('both', 'stdout', 'file'):
            raise ValueError(f"tb_output_stream must be 'both', 'stdout' or 'file', got {tb_output_stream!r}")
        return {
            'Namespace': namespace,
            'WriteWeightsTxt': write_weights_txt,
            'WriteTar': write_tar,
            'TBOutputStream': tb_output_stream,
        }

    def check_design(self, design: Design) -> None:
        """Refuse (ValueError) at conversion what this backend cannot build beyond `unsupported_kinds`."""

    def create_initial_config(self, **kwargs: Any) -> tuple[dict[str, Any], set[str]]:
        """The backend's top-level config keys (hls4ml 1.x names) and the unknown keyword names."""
        raise NotImplementedError

    def project_files(self) -> dict[str, str]:
        """Output path (relative to the project, `{name}` = project name) -> template."""
        return dict(COMMON_FILES)

    def learn_files(self) -> dict[str, str]:
        """The files a project with learning top functions (SOM, ReSOM layers) has besides."""
        return dict(LEARN_FILES)

    def build(self, design: Design, **kwargs: Any) -> dict[str, Any]:
        """Run the vendor tool on the written project."""
        raise NotImplementedError


@dataclass(frozen=True)
class Design:
    """A converted model as the lowering, the writer, the estimator and the vendor builds read it: the
    graph after the conversion flow, the project dictionary (hls4ml 1.x keys: ProjectName, OutputDir,
    IOType, Part, ClockPeriod, HLSConfig, ...) and the backend. `ModelGraph.design` makes one."""

    graph: Graph
    config: Mapping[str, Any]
    backend: Backend

    @property
    def project_name(self) -> str:
        return self.config['ProjectName']

    @property
    def output_dir(self) -> str:
        return self.config['OutputDir']

    @property
    def io_type(self) -> str:
        return self.config['IOType']

    @property
    def model_settings(self) -> dict[str, Any]:
        """The HLSConfig's Model section (PipelineStyle, PipelineInterval, ...)."""
        return dict((self.config.get('HLSConfig') or {}).get('Model') or {})
