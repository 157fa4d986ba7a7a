"""`config_from_<framework>_model` and `create_config`: the hls4ml 1.x configuration dictionaries (the
framework-independent part is `hls4ml.converters.config`)."""

from __future__ import annotations

from typing import Any

from hls4ml.backends import get_backend
from hls4ml.converters.config import GRANULARITIES, config_from_graph, create_config, layer_entry

__all__ = [
    'GRANULARITIES',
    'config_from_graph',
    'config_from_keras_model',
    'config_from_onnx_model',
    'config_from_pytorch_model',
    'create_config',
    'layer_entry',
]


def config_from_keras_model(
    model: Any,
    granularity: str = 'model',
    backend: str | None = None,
    default_precision: str = 'fixed<16,6>',
    default_reuse_factor: int = 1,
    max_precision: str | None = None,
) -> dict[str, Any]:
    """The HLSConfig dictionary for a Keras 3 model (unsupported layers are reported here already).

    'model': one Model entry. 'type': one entry per IR layer kind (`Dense`, `Activation`, ...).
    'name': one entry per layer, named as in the converted model (fused activations split off as
    `<layer>_<activation>`), with weight/bias/accum/result precisions 'auto' for inference.
    `max_precision` caps the inferred 'auto' types (None: the default cap fixed<48,24>, see
    docs/quantization.md; hls4ml 1.x had none).
    """
    from hls4ml.converters.keras import parse_keras_model

    if backend is not None:
        get_backend(backend)
    graph, _ = parse_keras_model(model)
    return config_from_graph(graph, granularity, default_precision, default_reuse_factor, max_precision)


def config_from_pytorch_model(
    model: Any,
    input_shape: Any,
    granularity: str = 'model',
    backend: str | None = None,
    default_precision: str = 'ap_fixed<16,6>',
    default_reuse_factor: int = 1,
    channels_last_conversion: str = 'full',
    transpose_outputs: bool = False,
    max_precision: str | None = None,
) -> dict[str, Any]:
    """The HLSConfig dictionary for a PyTorch model (hls4ml 1.x): `input_shape` is a tuple without
    the batch axis, or a list of tuples for several inputs. It is stored as `InputShape`, and the
    layout options as `Model.ChannelsLastConversion` / `Model.TransposeOutputs` (see
    `hls4ml.converters.builder`). Unsupported operations are reported here already."""
    from hls4ml.converters.pytorch import parse_pytorch_model

    if isinstance(input_shape, int) and not isinstance(input_shape, bool):
        input_shape = (input_shape,)  # hls4ml 1.x accepts a bare size for one 1-D input
    if not (isinstance(input_shape, tuple) or (isinstance(input_shape, list) and input_shape)):
        raise ValueError(
            f'input_shape must be a tuple (one input) or a list of tuples (several inputs), got {input_shape!r}'
        )
    if backend is not None:
        get_backend(backend)
    graph, _ = parse_pytorch_model(model, input_shape, channels_last_conversion, transpose_outputs)
    config = config_from_graph(graph, granularity, default_precision, default_reuse_factor, max_precision)
    config['Model']['ChannelsLastConversion'] = channels_last_conversion
    config['Model']['TransposeOutputs'] = transpose_outputs
    config['InputShape'] = input_shape
    return config


def config_from_onnx_model(
    model: Any,
    granularity: str = 'name',
    backend: str | None = None,
    default_precision: str = 'fixed<16,6>',
    default_reuse_factor: int = 1,
    max_precision: str | None = None,
    channels_last_conversion: str = 'full',
    transpose_outputs: bool = False,
) -> dict[str, Any]:
    """The HLSConfig dictionary for an ONNX / QONNX model (hls4ml 1.x; 'name' granularity by default,
    so every layer's types are 'auto' and QONNX quantizers keep their exact types)."""
    from hls4ml.converters.onnx import parse_onnx_model

    if backend is not None:
        get_backend(backend)
    graph, _ = parse_onnx_model(model, channels_last_conversion, transpose_outputs)
    config = config_from_graph(graph, granularity, default_precision, default_reuse_factor, max_precision)
    config['Model']['ChannelsLastConversion'] = channels_last_conversion
    config['Model']['TransposeOutputs'] = transpose_outputs
    return config
