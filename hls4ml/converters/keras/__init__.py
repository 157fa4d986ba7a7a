"""The Keras 3 frontend: `parse_keras_model(model) -> (Graph, origin names)`."""

from hls4ml.converters.keras import (  # noqa: F401  (they register the common classes' handlers; handlers.LATER the rest)
    selection,
    spatial,
    structure,
)
from hls4ml.converters.keras.handlers import HANDLERS
from hls4ml.converters.keras.parser import KerasConversionError, parse_keras_model, unsupported_layers

__all__ = ['HANDLERS', 'KerasConversionError', 'parse_keras_model', 'unsupported_layers']
