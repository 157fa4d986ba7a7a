"""hls4ml: neural networks to FPGA/ASIC firmware through high-level synthesis.

import hls4ml
config = hls4ml.utils.config_from_keras_model(model, granularity='name')
hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, backend='Vitis')
hls_model.compile()
y = hls_model.predict(x)
"""

from typing import Any

from hls4ml import converters, report, utils

__version__ = '0.1.0'
__all__ = ['converters', 'explore', 'report', 'utils']


def __getattr__(name: str) -> Any:
    """`hls4ml.explore` (docs/explore.md), loaded on first use: it brings Dask and pandas along."""
    if name == 'explore':
        from hls4ml.exploration import explore

        return explore
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
