"""hls4ml 1.x path `hls4ml.converters.keras_v2_to_hls`: the names of `keras_to_hls` (Keras 3 models only)."""

from hls4ml.converters.keras_to_hls import get_supported_keras_layers, keras_to_hls, parse_keras_model

__all__ = ['get_supported_keras_layers', 'keras_to_hls', 'parse_keras_model']
