"""hls4ml: neural networks to FPGA/ASIC firmware through high-level synthesis.

import hls4ml
config = hls4ml.utils.config_from_keras_model(model, granularity='name')
hls_model = hls4ml.converters.convert_from_keras_model(model, hls_config=config, backend='Vitis')
hls_model.compile()
y = hls_model.predict(x)
"""

from hls4ml import converters, report, utils

__version__ = '0.1.0'
__all__ = ['converters', 'report', 'utils']
