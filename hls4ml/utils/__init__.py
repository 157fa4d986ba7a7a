"""User utilities with hls4ml 1.x names: configuration dictionaries, `plot_model` and the example models."""

from hls4ml.utils.config import (
    config_from_keras_model,
    config_from_onnx_model,
    config_from_pytorch_model,
    create_config,
)
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
