"""hls4ml: neural networks to FPGA/ASIC firmware through high-level synthesis.

import hls4ml
config = hls4ml.utils.config_from_keras_model(model, granularity='name')
hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, backend='Vitis')
hls_model.compile()
y = hls_model.predict(x)

The subpackages load on first use (PEP 562): `import hls4ml` itself imports nothing, not even numpy,
so a script or CLI that needs one part does not pay for the others (docs/performance.md).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__version__ = '0.1.0'
__all__ = ['converters', 'explore', 'report', 'utils']


def __getattr__(name: str) -> Any:
    """`hls4ml.<subpackage>` (converters, utils, report, model, ...): imported when first named;
    `hls4ml.explore` (docs/explore.md) is the function, which brings Dask and pandas along."""
    if name == 'explore':
        from hls4ml.exploration import explore

        return explore
    if not name.startswith('_') and importlib.util.find_spec(f'{__name__}.{name}') is not None:
        module = importlib.import_module(f'{__name__}.{name}')
        globals()[name] = module
        return module
    raise AttributeError(f"module 'hls4ml' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
