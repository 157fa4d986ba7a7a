"""hls4ml 1.x's `hls4ml.converters.keras_to_hls` path (also `keras_v2_to_hls`, `keras_v3_to_hls`): `keras_to_hls`
builds the converted model from a project configuration dictionary, as `convert_from_config` does."""

from hls4ml.converters import convert_from_config, get_supported_keras_layers, parse_keras_model

keras_to_hls = convert_from_config

__all__ = ['get_supported_keras_layers', 'keras_to_hls', 'parse_keras_model']
