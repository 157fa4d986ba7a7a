"""hls4ml 1.x's `hls4ml.converters.pytorch_to_hls` path: `pytorch_to_hls` builds the converted model from a
project configuration dictionary (with `PytorchModel` and `InputShape`), as `convert_from_config` does."""

from hls4ml.converters import convert_from_config, get_supported_pytorch_layers, parse_pytorch_model

pytorch_to_hls = convert_from_config

__all__ = ['get_supported_pytorch_layers', 'parse_pytorch_model', 'pytorch_to_hls']
