"""Backend registry: names as hls4ml 1.x spells them (case-insensitive) -> backend objects."""

from __future__ import annotations

from hls4ml.backends.base import Backend
from hls4ml.backends.catapult.backend import CatapultBackend
from hls4ml.backends.oneapi.backend import OneAPIBackend
from hls4ml.backends.verilog.backend import VerilogBackend
from hls4ml.backends.vitis.backend import VitisBackend

PLANNED = ('quartus', 'vivadoaccelerator', 'libero', 'symbolicexpression')
_BACKENDS = {
    'vitis': VitisBackend('Vitis', clock_uncertainty='27%', emulation_constants=True),
    'vivado': VitisBackend('Vivado', clock_uncertainty='12.5%'),
    'oneapi': OneAPIBackend('oneAPI', csim_defines=('-DHLS4ML_DIALECT_ONEAPI',)),
    'catapult': CatapultBackend('Catapult', csim_defines=('-DHLS4ML_DIALECT_AC', '-DHLS4ML_STREAM_AC_CHANNEL')),
    'verilog': VerilogBackend('Verilog'),
}


def get_backend(name: str) -> Backend:
    if not isinstance(name, str):
        raise ValueError(f'backend must be a name such as "Vitis", got {name!r}')
    key = name.lower()
    if key in _BACKENDS:
        return _BACKENDS[key]
    if key in PLANNED:
        raise ValueError(f"backend '{name}' is not supported yet; available: {', '.join(get_available_backends())}")
    raise ValueError(f"Unknown backend: '{name}'; available: {', '.join(get_available_backends())}")


def get_available_backends() -> list[str]:
    return [backend.name for backend in _BACKENDS.values()]
