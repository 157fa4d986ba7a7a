"""C-simulation: the written project -> g++ shared library (cached) -> ctypes batch predict and trace."""

from hls4ml.csim.compiler import CompilationError, compile_library
from hls4ml.csim.simulation import CSimInterface, Simulation

__all__ = ['CSimInterface', 'CompilationError', 'Simulation', 'compile_library']
