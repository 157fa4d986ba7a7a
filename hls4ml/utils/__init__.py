"""User utilities with hls4ml 1.x names: configuration dictionaries."""

from hls4ml.utils.config import (
    config_from_keras_model,
    config_from_onnx_model,
    config_from_pytorch_model,
    create_config,
)

__all__ = ['config_from_keras_model', 'config_from_onnx_model', 'config_from_pytorch_model', 'create_config']
