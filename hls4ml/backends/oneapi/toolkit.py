"""What names the oneAPI toolkit: the compiler, the versions that still have FPGA support, how to install
it, and the targets of the generated CMakeLists.txt. Read by the backend and by `build()`."""

from __future__ import annotations

from dataclasses import dataclass


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
