"""Handlers of the HGQ2 (`hgq2` 0.2, import name `hgq`) quantization-aware Keras 3 layers.

An HGQ2 layer quantizes its input(s) (`iq`), its kernel (`kq`) and bias (`bq`), computes in float32,
applies its activation and, when enabled, quantizes its output (`oq`). It becomes:
* a FixedPointQuantizer per enabled input/output quantizer (per-element k, i, f; `hls4ml.model.quantizer`);
* the IR layer of the Keras layer it extends (Dense, Conv, Pooling, Merge) with the kernel and bias as
  HGQ2 itself quantizes them at inference (`qkernel`, `qbias`) in their exact container types: every
  weight is representable, zero-bit weights are zeros (pruned);
* its fused activation.
Accumulators and results are preset 'auto' (exact, `infer_precision`), so the firmware computes what
HGQ2 computes wherever HGQ2's float32 arithmetic is exact (docs/quantization.md). `finish_hgq` then
folds uniform quantizers into the layer before them and types the model inputs.

Nothing here imports hgq: layers are recognised by class name and module, so hgq2 stays optional.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from hls4ml.converters.keras import spatial
from hls4ml.converters.keras.einsum import einsum_dense_layer
from hls4ml.converters.keras.handlers import (
    ACTIVATION_KINDS,
    Source,
    UnsupportedLayer,
    array_of,
    fused_activation,
    handles,
)
from hls4ml.converters.keras.hgq_classes import EXACT_ACTIVATIONS, GLOBAL_POOLINGS, MERGES, POOLINGS
from hls4ml.converters.pointwise import pointwise_dense
from hls4ml.model import einsum as einsum_equations
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import CONV_OF_RANK, Kind
from hls4ml.model.kinds import GLOBAL_POOLINGS as GLOBAL_POOLING_KINDS
from hls4ml.model.kinds.arithmetic import quantizer_layer
from hls4ml.model.passes.infer_precision import integer_bits
from hls4ml.model.quantizer import OVERFLOW_MODES, container_type, triples_of
from hls4ml.model.types import FixedPrecisionType, UnspecifiedPrecisionType

FLOAT32_EXACT_BITS = 24  # a float32 sum is exact while it needs at most 24 significant bits
QUANTIZER = (Kind.FIXED_POINT_QUANTIZER,)


def _auto() -> UnspecifiedPrecisionType:
    return UnspecifiedPrecisionType()


def _check_hgq(source: Source) -> None:
    module = type(source.layer).__module__
    if not module.startswith('hgq'):
        raise UnsupportedLayer(f'{source.origin}: a {type(source.layer).__name__} from {module} is not an HGQ2 layer')


def exact_type(values: np.ndarray) -> FixedPrecisionType:
    """The narrowest fixed type holding every value exactly (signed when any is negative)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    nonzero = values[values != 0]
    if nonzero.size == 0:
        return FixedPrecisionType(1, 1, False)
    fraction = int(max(_fraction_bits(value) for value in nonzero.tolist()))
    low, high = float(values.min()), float(values.max())
    integer = integer_bits(low, high, low < 0)
    return FixedPrecisionType(max(integer + fraction, 1), integer, low < 0)


def _fraction_bits(value: float) -> int:
    numerator, denominator = value.as_integer_ratio()
    fraction = denominator.bit_length() - 1
    while fraction > -1074 and numerator % 2 == 0:  # an integer with trailing zeros: a negative count
        numerator //= 2
        fraction -= 1
    return fraction


# ---- quantizers ----------------------------------------------------------------------------------


def _modes(origin: str, quantizer: Any) -> tuple[str, str]:
    name = type(quantizer).__name__
    if name not in ('FixedPointQuantizerKIF', 'FixedPointQuantizerKBI'):
        raise UnsupportedLayer(f"{origin}: {name} quantizers are not supported (only fixed point: 'kif', 'kbi')")
    rounding, overflow = quantizer.round_mode.upper(), quantizer.overflow_mode.upper()
    rounding = rounding.removeprefix('S_')  # stochastic rounding applies in training only
    if overflow not in OVERFLOW_MODES:
        raise UnsupportedLayer(f'{origin}: overflow mode {overflow} is not supported ({", ".join(OVERFLOW_MODES)})')
    if overflow == 'WRAP' and quantizer._is_weight and quantizer.trainable:
        raise UnsupportedLayer(
            f'{origin}: a WRAP quantizer with is_weight=True on activations skips its overflow in HGQ2 '
            'inference, which fixed-point firmware cannot reproduce; use is_weight=False or SAT'
        )
    return rounding, overflow


def quantizer_triples(origin: str, wrapper: Any, shape: tuple[int, ...]) -> tuple[tuple, tuple[str, str]] | None:
    """(k, i, f) broadcast to a tensor of `shape` (no batch axis) and the modes; None for a dummy."""

    quantizer = wrapper.quantizer
    if type(quantizer).__name__ == 'DummyQuantizer':
        return None
    if wrapper.scaler is not None or wrapper.affine is not None:
        raise UnsupportedLayer(f'{origin}: quantizers with a scaler or an affine map are not supported')
    modes = _modes(origin, quantizer)
    arrays = []
    for part in quantizer.kif:
        values = array_of(part)
        arrays.append(np.rint(np.broadcast_to(values, (1, *shape))[0]))
    return (arrays[0], arrays[1], arrays[2]), modes


def make_quantizer(source: Source, wrapper: Any, tensor: str, shape: tuple[int, ...], suffix: str) -> Layer | None:
    spec = quantizer_triples(f'{source.origin}, quantizer {suffix}', wrapper, shape)
    if spec is None:
        return None
    layer = quantizer_layer(f'{source.name}_{suffix}', tensor, spec[0], spec[1], shape[-1] if shape else 1)
    layer.types['result'] = _auto()
    layer.source_name = source.layer.name
    return layer


def _input_quantizers(source: Source) -> tuple[list[Layer], list[str]]:
    """The enabled input quantizers and the tensors the layer then reads."""
    layer = source.layer
    if not layer.enable_iq:
        return [], list(source.inputs)
    wrappers = list(layer.iq) if len(source.inputs) > 1 else [layer.iq]
    made, tensors = [], []
    for index, (wrapper, tensor, shape) in enumerate(zip(wrappers, source.inputs, source.input_shapes, strict=True)):
        suffix = 'iq' if len(wrappers) == 1 else f'iq{index}'
        quantizer = make_quantizer(source, wrapper, tensor, shape, suffix)
        made += [quantizer] if quantizer is not None else []
        tensors.append(quantizer.name if quantizer is not None else tensor)
    return made, tensors


def _finish(source: Source, layers: list[Layer], shape: tuple[int, ...]) -> list[Layer]:
    """Add the fused activation (relu and linear exact; others warned about) and the output quantizer."""
    activation = source.config.get('activation', 'linear')
    following = fused_activation(source, activation, shape) if activation is not None else []
    for layer in following:
        _mark_activation(layer, source.origin)
    layers = [*layers, *following]
    if source.layer.enable_oq:
        output = make_quantizer(source, source.layer.oq, layers[-1].name, shape, 'oq')
        layers += [output] if output is not None else []
    return layers


def _mark_activation(layer: Layer, origin: str) -> None:
    if layer.kind == Kind.ACTIVATION and layer.attributes['activation'] in EXACT_ACTIVATIONS:
        layer.attributes['exact_result'] = True
        layer.types['result'] = _auto()
    else:
        warnings.warn(
            f'{origin}: activation {layer.attributes.get("activation", layer.kind)!r} has no quantized table in '
            'HGQ2; the firmware approximates it with a lookup table, so it is not bit-exact to HGQ2',
            UserWarning,
            stacklevel=2,
        )


def _products(source: Source, layer: Layer, kernel: np.ndarray, bias: np.ndarray) -> Layer:
    layer.types.update(weight=exact_type(kernel), bias=exact_type(bias), accum=_auto(), result=_auto())
    return layer


def _warn_float32(source: Source, quantizers: list[Layer], kernel: np.ndarray, bias: np.ndarray) -> None:
    """HGQ2 sums in float32: name the layer whose exact sums can need more than 24 significant bits."""
    if not quantizers:
        return
    data = container_type(triples_of(quantizers[0]))
    weights, biases = exact_type(kernel), exact_type(bias)
    columns = kernel.reshape(-1, bias.size)
    bound = float((np.abs(columns).sum(axis=0) * max(abs(data.min), abs(data.max)) + np.abs(bias)).max())
    fraction = max(data.fractional + weights.fractional, biases.fractional)
    bits = math.ceil(math.log2(bound * 2.0**fraction + 1)) if bound > 0 else 0
    if bits > FLOAT32_EXACT_BITS:
        warnings.warn(
            f'{source.origin}: its sums can need {bits} significant bits, more than float32 holds '
            f'({FLOAT32_EXACT_BITS}); HGQ2 may round them where the firmware is exact',
            UserWarning,
            stacklevel=2,
        )


def _warn_average(source: Source, pooling: Layer) -> None:
    """HGQ2 divides in float; the firmware's average is exact only for windows of 2^k values."""
    attributes = pooling.attributes
    prefix = 'in_' if pooling.kind in GLOBAL_POOLING_KINDS else 'pool_'
    window = math.prod(attributes.get(prefix + axis, 1) for axis in ('height', 'width'))
    if attributes['pool_op'] == 'average' and window & (window - 1):
        warnings.warn(
            f'{source.origin}: averages of {window} values (not a power of two) are truncated in the firmware',
            UserWarning,
            stacklevel=2,
        )


# ---- layers --------------------------------------------------------------------------------------


@handles('Quantizer', produces=(*QUANTIZER, Kind.ACTIVATION))
def quantizer(source: Source) -> list[Layer]:
    _check_hgq(source)
    made = make_quantizer(source, source.layer, source.inputs[0], source.input_shapes[0], 'q')
    if made is None:  # a dummy quantizer passes values through
        identity = source.make(Kind.ACTIVATION, activation='linear', n_in=int(np.prod(source.input_shapes[0])))
        identity.attributes['exact_result'] = True
        identity.types['result'] = _auto()
        return [identity]
    made.name = made.outputs[0] = source.name
    made.source_class = type(source.layer).__name__
    return [made]


def quantized_weights(layer: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """The kernel and bias as the layer uses them at inference (QEinsumDense has no qkernel/qbias)."""
    kernel = layer.qkernel if hasattr(layer, 'qkernel') else layer.kq(layer._kernel)
    if getattr(layer, 'bias', None) is None:
        return array_of(kernel), None
    bias = layer.qbias if hasattr(layer, 'qbias') else layer.bq(layer.bias)
    return array_of(kernel), array_of(bias)


def _dense_kernel(source: Source, kernel: np.ndarray) -> np.ndarray | None:
    """The (n_in, n_out) matrix of a dense layer; for QEinsumDense(Batchnorm) only equations that are a
    dense layer over the last input axis, checked on integer probes (exact in float64), else None
    (the layer is an EinsumDense)."""
    if not type(source.layer).__name__.startswith('QEinsumDense'):
        return kernel
    shape = source.input_shapes[0]
    rng = np.random.default_rng(0)
    probe = rng.integers(-8, 9, (2, *shape)).astype(np.float64)
    probe_kernel = rng.integers(-8, 9, kernel.shape).astype(np.float64)
    try:
        expected = np.einsum(source.config['equation'], probe, probe_kernel)
    except ValueError:  # the equation does not fit these shapes
        expected = np.zeros(0)
    for matrix, result in ((probe_kernel, kernel), (probe_kernel.T, kernel.T)) if kernel.ndim == 2 else ():
        if matrix.shape[0] == shape[-1] and np.array_equal(probe @ matrix, expected):
            return result
    return None


def _affine_layer(source: Source, inputs: list[str], kernel: np.ndarray, bias: np.ndarray) -> Layer:
    """A Dense for a 1-D input; over the last axis of a 2-D or 3-D input, as Keras applies a dense
    layer, the pointwise convolution of `converters/pointwise.py` (the plain Dense handler's form)."""
    shape = source.input_shapes[0]
    weights = {'weight': kernel, 'bias': bias}
    if len(shape) == 1:
        return source.make(Kind.DENSE, inputs=inputs, n_in=kernel.shape[0], n_out=kernel.shape[1], weights=weights)
    if len(shape) > 3:
        raise UnsupportedLayer(f'{source.origin}: inputs of shape {shape} are not supported (at most 3-D)')
    kind, weights, attributes = pointwise_dense(tuple(shape[:-1]), kernel, bias)
    return source.make(kind, inputs=inputs, weights=weights, **attributes)


def einsum_columns(layer: Layer, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """An EinsumDense's weights as (inner, batch * columns) columns and, per column, the largest |bias|
    of the positions it feeds: what `_warn_float32` bounds the sums with."""
    kernel = layer.weights['weight']
    plan = einsum_equations.plan(layer.attributes['equation'], shape, kernel.shape)
    batch, _, columns, inner = plan.sizes
    index = np.arange(batch)[None, :, None] * plan.second[0] + np.arange(inner)[:, None, None] * plan.second[1]
    index = index + np.arange(columns)[None, None, :] * plan.second[2]
    largest = float(np.abs(layer.weights['bias']).max(initial=0.0))
    return kernel.reshape(-1)[index].reshape(inner, -1), np.full(batch * columns, largest)


DENSE_CLASSES = ('QDense', 'QBatchNormDense', 'QEinsumDense', 'QEinsumDenseBatchnorm')


@handles(
    *DENSE_CLASSES, produces=(*QUANTIZER, Kind.DENSE, Kind.CONV1D, Kind.CONV2D, Kind.EINSUM_DENSE, *ACTIVATION_KINDS)
)
def q_dense(source: Source) -> list[Layer]:
    _check_hgq(source)
    quantizers, inputs = _input_quantizers(source)
    kernel, qbias = quantized_weights(source.layer)
    matrix = _dense_kernel(source, kernel)
    if matrix is None:
        layer, _ = einsum_dense_layer(source, inputs, kernel, qbias)
        layer.attributes['quantized_weights'] = True
        _warn_float32(source, quantizers, *einsum_columns(layer, source.input_shapes[0]))
        shape = source.output_shape(layer)
        return _finish(source, [*quantizers, _products(source, layer, kernel, layer.weights['bias'])], shape)
    kernel = matrix
    n_out = kernel.shape[1]
    bias = qbias.reshape(-1) if qbias is not None else np.zeros(n_out)
    if bias.size != n_out:
        raise UnsupportedLayer(f'{source.origin}: a bias of {bias.size} values for {n_out} outputs is not supported')
    _warn_float32(source, quantizers, kernel, bias)
    layer = _affine_layer(source, inputs, kernel, bias)
    layer.attributes['quantized_weights'] = True  # exact as HGQ2 has them: no pass may round them
    shape = (*source.input_shapes[0][:-1], n_out)
    return _finish(source, [*quantizers, _products(source, layer, kernel, bias)], shape)


@handles('QBatchNormalization', produces=(*QUANTIZER, Kind.BATCH_NORMALIZATION))
def q_batch_normalization(source: Source) -> list[Layer]:
    """x * qscale + qoffset per channel (the last axis), scale and offset as HGQ2 quantizes them."""
    _check_hgq(source)
    shape = source.input_shapes[0]
    axis = source.config.get('axis')
    if axis not in (-1, [-1], len(shape), [len(shape)]):
        raise UnsupportedLayer(f'{source.origin}: batch normalization over axis {axis} is not supported (the last)')
    quantizers, inputs = _input_quantizers(source)
    scale, offset = (array_of(value).reshape(-1) for value in source.layer.qscaler_and_qoffset)
    _warn_float32(source, quantizers, scale.reshape(1, -1), offset)
    weights = {
        name: np.broadcast_to(values, shape).reshape(-1).copy() for name, values in (('scale', scale), ('bias', offset))
    }
    layer = source.make(Kind.BATCH_NORMALIZATION, inputs=inputs, n_in=int(np.prod(shape)), weights=weights)
    layer.types.update(scale=exact_type(scale), bias=exact_type(offset), result=_auto())
    return _finish(source, [*quantizers, layer], shape)


@handles('QConv1D', 'QConv2D', produces=(*QUANTIZER, Kind.CONV1D, Kind.CONV2D, *ACTIVATION_KINDS))
def q_convolution(source: Source) -> list[Layer]:
    _check_hgq(source)
    rank = 1 if type(source.layer).__name__ == 'QConv1D' else 2
    spatial._check_plain_convolution(source, rank)
    quantizers, inputs = _input_quantizers(source)
    kernel, qbias = quantized_weights(source.layer)
    filters = kernel.shape[-1]
    bias = qbias if qbias is not None else np.zeros(filters)
    _warn_float32(source, quantizers, kernel, bias)
    conv = spatial._convolution(
        Source(source.layer, source.name, inputs, source.input_shapes), rank, CONV_OF_RANK[rank], kernel, bias, filters
    )
    conv.source_name, conv.source_class = source.layer.name, type(source.layer).__name__
    shape = source.output_shape(conv)
    return _finish(source, [*quantizers, _products(source, conv, kernel, bias)], shape)


POOLING_KINDS = (Kind.POOLING1D, Kind.POOLING2D, Kind.GLOBAL_POOLING1D, Kind.GLOBAL_POOLING2D)


@handles(*POOLINGS, *GLOBAL_POOLINGS, produces=(*QUANTIZER, *POOLING_KINDS))
def q_pooling(source: Source) -> list[Layer]:
    _check_hgq(source)
    quantizers, inputs = _input_quantizers(source)
    class_name = type(source.layer).__name__
    inner = Source(source.layer, source.name, inputs, source.input_shapes)
    handler = spatial.global_pooling if class_name.startswith('QGlobal') else spatial.pooling
    (pooling,) = handler(inner)
    pooling.attributes['pool_op'] = 'max' if 'Max' in class_name else 'average'
    _warn_average(source, pooling)
    pooling.types.update(dict.fromkeys(('result', 'accum'), _auto()))
    return _finish(source, [*quantizers, pooling], tuple(source.layer.output.shape[1:]))


@handles(*MERGES, 'QAveragePow2', produces=(*QUANTIZER, Kind.MERGE))
def q_merge(source: Source) -> list[Layer]:
    _check_hgq(source)
    class_name = type(source.layer).__name__
    if class_name == 'QAveragePow2' and len(source.inputs) != 2:
        raise UnsupportedLayer(f'{source.origin}: QAveragePow2 of {len(source.inputs)} inputs is not supported (2)')
    if len(source.inputs) != 2 or source.input_shapes[0] != source.input_shapes[1]:
        raise UnsupportedLayer(f'{source.origin}: only merges of two tensors of equal shape are supported')
    quantizers, inputs = _input_quantizers(source)
    merge = source.make(Kind.MERGE, inputs=inputs, op=MERGES.get(class_name, 'average'))
    merge.types['result'] = _auto()
    return _finish(source, [*quantizers, merge], source.input_shapes[0])
