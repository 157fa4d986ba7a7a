"""Backend registry: names as hls4ml 1.x spells them (case-insensitive) -> backend objects."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from hls4ml.backends.base import Backend

PLANNED = ('quartus', 'vivadoaccelerator', 'libero', 'symbolicexpression')


@dataclass(frozen=True)
class _Maker:
    """How to make one backend: its module is imported only when the backend is first asked for, so a
    conversion for Vitis never loads the Verilog backend (a tenth of a second of imports)."""

    module: str
    class_name: str
    name: str
    settings: dict[str, Any] = field(default_factory=dict)

    def __call__(self) -> Backend:
        return getattr(importlib.import_module(self.module), self.class_name)(self.name, **self.settings)


_MAKERS = {
    'vitis': _Maker(
        'hls4ml.backends.vitis.backend',
        'VitisBackend',
        'Vitis',
        {'clock_uncertainty': '27%', 'emulation_constants': True},
    ),
    'vivado': _Maker('hls4ml.backends.vitis.backend', 'VitisBackend', 'Vivado', {'clock_uncertainty': '12.5%'}),
    'oneapi': _Maker(
        'hls4ml.backends.oneapi.backend', 'OneAPIBackend', 'oneAPI', {'csim_defines': ('-DHLS4ML_DIALECT_ONEAPI',)}
    ),
    'catapult': _Maker(
        'hls4ml.backends.catapult.backend',
        'CatapultBackend',
        'Catapult',
        {'csim_defines': ('-DHLS4ML_DIALECT_AC', '-DHLS4ML_STREAM_AC_CHANNEL')},
    ),
    'verilog': _Maker('hls4ml.backends.verilog.backend', 'VerilogBackend', 'Verilog'),
}


class _Registry(dict):
    """Name -> backend object, each made on first use and then kept (one object per backend and process)."""

    def __missing__(self, key: str) -> Backend:
        backend = self[key] = _MAKERS[key]()
        return backend


_BACKENDS = _Registry()


def get_backend(name: str) -> Backend:
    if not isinstance(name, str):
        raise ValueError(f'backend must be a name such as "Vitis", got {name!r}')
    key = name.lower()
    if key in _MAKERS:
        return _BACKENDS[key]
    if key in PLANNED:
        raise ValueError(f"backend '{name}' is not supported yet; available: {', '.join(get_available_backends())}")
    raise ValueError(f"Unknown backend: '{name}'; available: {', '.join(get_available_backends())}")


def get_available_backends() -> list[str]:
    return [maker.name for maker in _MAKERS.values()]
