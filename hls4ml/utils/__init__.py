"""User utilities with hls4ml 1.x names: configuration dictionaries, `plot_model` and the example models
(these two load on first use)."""

from typing import TYPE_CHECKING

from hls4ml.model.lazy import lazy_exports
from hls4ml.utils.config import (
    config_from_keras_model,
    config_from_onnx_model,
    config_from_pytorch_model,
    create_config,
)

if TYPE_CHECKING:
    from hls4ml.utils.example_models import fetch_example_list, fetch_example_model
    from hls4ml.utils.plotting import plot_model

__all__ = [
    'config_from_keras_model',
    'config_from_onnx_model',
    'config_from_pytorch_model',
    'create_config',
    'fetch_example_list',
    'fetch_example_model',
    'plot_model',
]

__getattr__ = lazy_exports(
    __name__,
    {'fetch_example_list': 'example_models', 'fetch_example_model': 'example_models', 'plot_model': 'plotting'},
)
