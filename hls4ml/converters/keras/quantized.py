"""Keras 3 built-in quantization (`model.quantize(mode)`), and QKeras layers: what converts, what is refused.

Keras 3.15 quantizes Dense, EinsumDense and the embeddings in place (`layer.quantization_mode`):

* 'int8' (default config): each call quantizes its INPUT per sample with an abs-max scale computed at
  run time (127 / max|x|), multiplies int8 by int8 and divides by both scales. A data-dependent
  division is no fixed-point datapath: refused, naming the layer and the mode.
* 'int8' with `Int8QuantizationConfig(activation_quantizer=None)` and 'int4' (per channel, or per
  group of `block_size` inputs with zero points: the default of `quantize('int4')`): only the
  kernel is quantized; the float input meets the kernel q / scale (per channel) or (q - zero) * scale
  (per group). These convert as a float Dense whose kernel is that dequantized kernel: not exact (the
  scales are arbitrary floats) but bounded like any float model (docs/quantization.md).
* 'float8' (e4m3 inputs and kernel with delayed scaling), 'gptq', 'awq': refused.

QKeras layers are refused by name before any handler sees them: their class names (QDense,
QConv2D, ...) are shared with HGQ2, whose handlers must never receive a QKeras layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

WEIGHT_ONLY_MODES = ('int8', 'int4')  # converted when the layer has no input quantizer
INPUT_QUANTIZER_REASON = (
    'its input is quantized per sample with an abs-max scale computed at run time (a data-dependent division a '
    'fixed-point datapath cannot reproduce); quantize the weights only (activation_quantizer=None in '
    'keras.quantizers.Int8QuantizationConfig or Int4QuantizationConfig) or convert the float model'
)
REFUSED_MODES = {
    'float8': 'float8 (e4m3) inputs and kernel are floating-point formats, not fixed point; convert the float model',
    'gptq': 'GPTQ kernels are not supported; convert the float model',
    'awq': 'AWQ kernels are not supported; convert the float model',
}
QKERAS_REASON = (
    'QKeras layers are not supported (docs/quantization.md, section QKeras); use HGQ2 or QONNX for quantization-aware '
    'models'
)


def quantization_mode(layer: Any) -> str | None:
    """The Keras quantization mode of `layer` ('int8', 'int4', ...), None for a float layer."""
    return getattr(layer, 'quantization_mode', None) or None


def is_qkeras(layer: Any) -> bool:
    return type(layer).__module__.split('.')[0] == 'qkeras'


def refusal(layer: Any) -> str | None:
    """Why `layer` cannot be converted because of how it is quantized, or None."""
    origin = f'{layer.name} ({type(layer).__name__})'
    if is_qkeras(layer):
        return f'{origin}: {QKERAS_REASON}'
    mode = quantization_mode(layer)
    if mode is None:
        return None
    if mode not in WEIGHT_ONLY_MODES:
        reason = REFUSED_MODES.get(mode, 'a mode this version does not know')
        return f"{origin}: Keras quantization mode '{mode}' cannot be converted: {reason}"
    if getattr(layer, 'inputs_quantizer', None) is not None:
        return f"{origin}: Keras quantization mode '{mode}' cannot be converted: {INPUT_QUANTIZER_REASON}"
    if type(layer).__name__ != 'Dense':
        return f"{origin}: Keras quantization mode '{mode}' is only supported on Dense layers"
    if getattr(layer, 'lora_enabled', False):
        return f"{origin}: Keras quantization mode '{mode}' with LoRA enabled is not supported"
    return None


def dequantized_kernel(layer: Any) -> np.ndarray:
    """The float kernel (n_in, n_out) a weight-only quantized Dense multiplies its input by: q / scale per
    output channel (Keras divides the product by the scale; the quotient is taken in float64 here), or
    (q - zero) * scale per group of inputs, in float32 as Keras computes that kernel."""
    from hls4ml.converters.keras.values import numpy_of as numpy

    integers = numpy(layer.kernel)  # int4: unpacked by the `kernel` property
    scale = numpy(layer.kernel_scale)
    if hasattr(layer, 'kernel_zero'):  # int4 per group of inputs: g_idx gives each input row its group
        groups = numpy(layer.g_idx).astype(np.int64)
        zero = numpy(layer.kernel_zero).astype(np.float32)
        kernel = (integers.astype(np.float32) - zero[groups]) * scale.astype(np.float32)[groups]
        return kernel.astype(np.float64)
    return integers.astype(np.float64) / scale.astype(np.float64)
