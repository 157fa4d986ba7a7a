"""hls4ml 1.x's `hls4ml.converters.onnx_to_hls` path: `onnx_to_hls` builds the converted model from a project
configuration dictionary (with `OnnxModel`), as `convert_from_config` does."""

from hls4ml.converters import convert_from_config, get_supported_onnx_layers, parse_onnx_model

onnx_to_hls = convert_from_config

__all__ = ['get_supported_onnx_layers', 'onnx_to_hls', 'parse_onnx_model']
