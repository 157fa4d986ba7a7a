"""C-simulation: the written project -> g++ shared library (cached) -> ctypes batch predict and trace.

Its modules load on first use: writing a project needs only the cache folder's location (`cache.py`)."""

from typing import TYPE_CHECKING

from hls4ml.model.lazy import lazy_exports

if TYPE_CHECKING:
    from hls4ml.csim.compiler import CompilationError, compile_library
    from hls4ml.csim.simulation import CSimInterface, Simulation

__all__ = ['CSimInterface', 'CompilationError', 'Simulation', 'compile_library']
__getattr__ = lazy_exports(
    __name__,
    {
        'CSimInterface': 'simulation',
        'Simulation': 'simulation',
        'CompilationError': 'compiler',
        'compile_library': 'compiler',
    },
)
