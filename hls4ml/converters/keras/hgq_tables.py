"""Handlers of HGQ2's table layers: QUnaryFunctionLUT, QAffinedUnaryFunctionLUT and QSoftmax.

HGQ2 quantizes the input of a table to a finite set (its input quantizer), evaluates the function in
float32 and quantizes the result (its output quantizer). A finite input set makes an exact table
possible: the frontend evaluates the function *as HGQ2 does* (Keras ops, float32) on every value of
the input grid and stores the values in the IR, so each input reads its own entry:

* QUnaryFunctionLUT -> input FixedPointQuantizer, a `UnaryLUT` over the whole grid of that quantizer's
  container type, output FixedPointQuantizer. The table type is the output quantizer's feeding type
  (`hls4ml.model.quantizer.feeding_type`), so quantizing an entry gives what quantizing the float32
  value gives; a uniform output quantizer then folds into the table's result type (`finish_hgq`).
* QSoftmax (stable) -> a `Softmax` whose two tables are HGQ2's own sub-layers (input quantizer, function,
  output quantizer) evaluated on every value of their input quantizers: the kernel writes max - x into
  the exp table's input-quantizer type and the row sum (exact, in accum_t) into the reciprocal table's,
  which is the quantization HGQ2 applies, and each such value has its entry. The sum and the products
  are exact, as in float32 while they need at most 24 significant bits (else a warning names the layer).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.converters.keras.hgq import (
    FLOAT32_EXACT_BITS,
    QUANTIZER,
    _auto,
    _check_hgq,
    _input_quantizers,
    exact_type,
    make_quantizer,
    quantizer_triples,
)
from hls4ml.model.fixed import quantize
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.passes.infer_precision import integer_bits
from hls4ml.model.quantizer import container_type, element_type, feeding_type, triples_of
from hls4ml.model.tables import MAX_TABLE_WIDTH
from hls4ml.model.types import FixedPrecisionType

MAX_TABLE_INPUT_BITS = 16  # a table over every value of a 16-bit input has 65,536 entries


def _whole_grid(origin: str, precision: FixedPrecisionType) -> tuple[int, int, np.ndarray]:
    """(start, shift, points): every value of `precision`, in raw order."""
    if precision.width > MAX_TABLE_INPUT_BITS:
        raise UnsupportedLayer(
            f'{origin}: a table over every value of its {precision.width}-bit input ({precision}) would have '
            f'2^{precision.width} entries; narrow its input quantizer to at most {MAX_TABLE_INPUT_BITS} bits'
        )
    start = -(1 << (precision.width - 1)) if precision.signed else 0
    shift = precision.width - precision.integer
    return start, shift, (start + np.arange(1 << precision.width)) * 2.0**-shift


def _evaluate(origin: str, function: Callable[[Any], Any], points: np.ndarray, columns: int = 1) -> np.ndarray:
    """`function` on every point as HGQ2 computes it (float32, in a tensor of `columns` values per row),
    checked to give the same value wherever a point sits in the tensor (first column vs every other,
    and in reversed order): the table can hold only one value per input."""
    import keras

    rows = np.repeat(points.astype(np.float32)[:, np.newaxis], columns, axis=1)
    values = np.asarray(keras.ops.convert_to_numpy(function(rows)), dtype=np.float64).reshape(len(points), columns)
    reversed_order = np.asarray(keras.ops.convert_to_numpy(function(rows[::-1])), dtype=np.float64)
    if not (
        np.array_equal(values, values[:, :1].repeat(columns, axis=1))
        and np.array_equal(values, reversed_order.reshape(values.shape)[::-1])
    ):
        warnings.warn(
            f'{origin}: its function gives different float32 values for one input at different positions of '
            'a tensor; the table holds one of them, so the firmware can differ from HGQ2 in those entries',
            UserWarning,
            stacklevel=3,
        )
    if not np.all(np.isfinite(values)):
        raise UnsupportedLayer(f'{origin}: its function is not finite on every value of its input grid')
    return values[:, 0]


# ---- QUnaryFunctionLUT ----------------------------------------------------------------------------


def _lut_function(layer: Any) -> Callable[[Any], Any]:
    """What the layer computes after its input quantizer (QAffinedUnaryFunctionLUT: of x * scale + bias)."""
    if type(layer).__name__ == 'QAffinedUnaryFunctionLUT':
        return lambda x: layer.activation(x * layer.scale + layer.bias)
    return layer.activation


def _unquantized_table_type(source: Source, entries: np.ndarray) -> FixedPrecisionType:
    precision = exact_type(entries)
    if precision.width > MAX_TABLE_WIDTH:
        raise UnsupportedLayer(
            f'{source.origin}: without an output quantizer its float32 values need {precision}, wider than '
            f'{MAX_TABLE_WIDTH} bits; enable its output quantizer (enable_oq=True)'
        )
    return precision


@handles('QUnaryFunctionLUT', 'QAffinedUnaryFunctionLUT', produces=(*QUANTIZER, Kind.UNARY_LUT))
def q_unary_lut(source: Source) -> list[Layer]:
    _check_hgq(source)
    layer, shape = source.layer, source.input_shapes[0]
    quantizers, inputs = _input_quantizers(source)
    if not quantizers:
        raise UnsupportedLayer(
            f'{source.origin}: without an input quantizer its input has no finite set of values to tabulate'
        )
    start, shift, points = _whole_grid(source.origin, container_type(triples_of(quantizers[0])))
    entries = _evaluate(source.origin, _lut_function(layer), points)
    lut = source.make(
        Kind.UNARY_LUT,
        inputs=inputs,
        n_in=int(np.prod(shape)),
        table_size=len(points),
        table_start=start,
        table_shift=shift,
        weights={'table': entries},
    )
    output = make_quantizer(source, layer.oq, lut.name, shape, 'oq') if layer.enable_oq else None
    table = feeding_type(triples_of(output)) if output is not None else _unquantized_table_type(source, entries)
    lut.types.update(table=table, result=_auto())
    return [*quantizers, lut, *([output] if output is not None else [])]


# ---- QSoftmax -------------------------------------------------------------------------------------


def _uniform_type(origin: str, wrapper: Any, columns: int, with_modes: bool) -> FixedPrecisionType:
    """The one type a uniform quantizer writes into; `with_modes`: with its rounding and overflow modes
    (an index type: the kernel writes the exact value into it, which is the quantization)."""
    spec = quantizer_triples(origin, wrapper, (columns,))
    if spec is None:
        raise UnsupportedLayer(f'{origin}: a softmax table without this quantizer is not supported')
    (keep_negative, integer, fraction), (rounding, overflow) = spec
    if any(np.unique(part).size != 1 for part in (keep_negative, integer, fraction)):
        raise UnsupportedLayer(f'{origin}: a softmax table quantizer with per-element widths is not supported')
    k, i, f = int(keep_negative[0]), int(integer[0]), int(fraction[0])
    if k + i + f <= 0:
        raise UnsupportedLayer(f'{origin}: a softmax table quantizer without bits is not supported')
    return element_type(k, i, f, rounding, overflow) if with_modes else element_type(k, i, f, 'TRN', 'WRAP')


def _softmax_table(source: Source, table: Any, columns: int) -> tuple[FixedPrecisionType, int, int, np.ndarray, Any]:
    """(index type, start, shift, entries, table type) of one of QSoftmax's two tables (sub-layers)."""
    origin = f"{source.origin}, table '{table.name}'"
    index = _uniform_type(origin, table.iq, columns, with_modes=True)
    start, shift, points = _whole_grid(origin, index)
    entries = _evaluate(origin, lambda x: table(x, training=False), points, columns)
    entry_type = _uniform_type(origin, table.oq, columns, with_modes=False)
    if not np.array_equal(quantize(entries, entry_type).value, entries):  # HGQ2 quantized them into it
        raise UnsupportedLayer(f'{origin}: its entries are not values of its output quantizer type {entry_type}')
    return index, start, shift, entries, entry_type


def _check_softmax(source: Source) -> None:
    layer, shape = source.layer, source.input_shapes[0]
    if len(shape) != 1 or tuple(layer.axes) not in ((1,), (-1,)):
        raise UnsupportedLayer(f'{source.origin}: only a softmax over a 1-D input is supported, got {shape}')
    if not layer.stable:
        raise UnsupportedLayer(
            f'{source.origin}: stable=False is not supported: its exp table reads the unquantized input, '
            'which has no finite set of values to tabulate'
        )
    if layer._allow_heterogeneous_table:
        raise UnsupportedLayer(
            f'{source.origin}: per-element tables (allow_heterogeneous_table=True) are not supported'
        )


def _padded(entries: np.ndarray, size: int) -> np.ndarray:
    """Both tables have the kernel's one size; slots past an input quantizer's range are never read."""
    return np.concatenate([entries, np.full(size - len(entries), entries[-1])])


@handles('QSoftmax', produces=(*QUANTIZER, Kind.SOFTMAX))
def q_softmax(source: Source) -> list[Layer]:
    _check_hgq(source)
    _check_softmax(source)
    n_in = source.input_shapes[0][0]
    quantizers, inputs = _input_quantizers(source)
    exp_index, exp_start, exp_shift, exp_entries, exp_type = _softmax_table(source, source.layer.exp_table, n_in)
    inv_index, inv_start, inv_shift, inv_entries, inv_type = _softmax_table(source, source.layer.inv_table, 1)
    size = max(len(exp_entries), len(inv_entries))
    softmax = source.make(
        Kind.SOFTMAX,
        inputs=inputs,
        n_in=n_in,
        axis=-1,
        max_minus_x=True,
        exp_table_start=exp_start,
        exp_table_shift=exp_shift,
        exp_table_index=str(exp_index),
        inv_table_start=inv_start,
        inv_table_shift=inv_shift,
        inv_table_index=str(inv_index),
        weights={'exp_table': _padded(exp_entries, size), 'inv_table': _padded(inv_entries, size)},
    )
    accum = _sum_type(exp_type, float(exp_entries.max()) * n_in)
    result = FixedPrecisionType(exp_type.width + inv_type.width, exp_type.integer + inv_type.integer, False)
    softmax.types.update(exp_table=exp_type, inv_table=inv_type, accum=accum, result=result)
    _warn_float32(source, accum, result)
    layers = [*quantizers, softmax]
    if source.layer.enable_oq:
        output = make_quantizer(source, source.layer.oq, softmax.name, (n_in,), 'oq')
        layers += [output] if output is not None else []
    return layers


def _sum_type(entry: FixedPrecisionType, bound: float) -> FixedPrecisionType:
    """Unsigned, the entries' fraction bits, integer bits for sums up to `bound`."""
    fraction = entry.width - entry.integer
    integer = integer_bits(0.0, bound, False)
    return FixedPrecisionType(max(integer + fraction, 1), integer, False)


def _warn_float32(source: Source, accum: FixedPrecisionType, result: FixedPrecisionType) -> None:
    for what, precision in (('row sums', accum), ('products', result)):
        if precision.width > FLOAT32_EXACT_BITS:
            warnings.warn(
                f'{source.origin}: its {what} can need {precision.width} significant bits, more than float32 '
                f'holds ({FLOAT32_EXACT_BITS}); HGQ2 may round them where the firmware is exact',
                UserWarning,
                stacklevel=2,
            )
