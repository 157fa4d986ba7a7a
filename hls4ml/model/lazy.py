"""Names a package exports but imports on first use (PEP 562), so that converting an MLP does not pay for
loading the self-organising maps, the routers or the C-simulation (docs/performance.md, "Conversion")."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each name of `homes` comes from the submodule it maps to, imported
    when the name is first asked for and then kept in the package."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f'module {package!r} has no attribute {name!r}')
        value = getattr(importlib.import_module(f'{package}.{home}'), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
