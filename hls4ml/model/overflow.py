"""Which layers' types are too narrow: values that overflow (wrap or saturate) or fall below the LSB.

    summary = overflow_summary(hls_model, X)    # runs hls_model.trace(X)
    print(summary)                              # one row per layer
    summary.to_dict(), summary.overflowing      # the same as data

For every layer the firmware's own inputs (from `trace`) go through the layer once more in the
bit-accurate numpy twin, with its result and accumulator types widened by GUARD_BITS integer and
fraction bits: that is the value the layer would write if its type were wide enough. Compared with
the layer's real result type it tells how many values lie above the type's largest value or below
its smallest (they wrapped or saturated), and how many non-zero values are smaller than its
resolution 2^-F (truncated or rounded to the nearest multiple, often to zero). Errors therefore
belong to the layer that makes them, not to the layers that inherit them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.ir import Graph, Layer
from hls4ml.model.kinds import LAYER_KINDS, Kind
from hls4ml.model.types import FixedPrecisionType

GUARD_BITS = 16
WIDENED_VARS = ('result', 'accum')


@dataclass(frozen=True)
class LayerOverflow:
    """One layer's result type against the values it should hold (None: the layer could not be recomputed)."""

    layer: str
    kind: str
    precision: str
    values: int
    overflow: int | None  # above the largest or below the smallest value of the type: wrapped or saturated
    underflow: int | None  # non-zero, smaller in magnitude than the resolution
    largest: float | None  # the largest magnitude the layer should write
    max_error: float | None  # the largest |firmware - wide recomputation|

    @property
    def integer_bits_needed(self) -> int | None:
        """Integer bits (sign included) a signed type needs to hold `largest`."""
        if self.largest is None:
            return None
        return max(1, math.floor(math.log2(self.largest)) + 2) if self.largest > 0 else 1

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), 'integer_bits_needed': self.integer_bits_needed}


@dataclass(frozen=True)
class OverflowSummary:
    samples: int
    layers: tuple[LayerOverflow, ...]

    @property
    def overflowing(self) -> list[str]:
        return [row.layer for row in self.layers if row.overflow]

    @property
    def underflowing(self) -> list[str]:
        return [row.layer for row in self.layers if row.underflow]

    def __getitem__(self, name: str) -> LayerOverflow:
        for row in self.layers:
            if row.layer == name:
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {row.layer: row.to_dict() for row in self.layers}

    def __str__(self) -> str:
        header = f'{"layer":<20} {"kind":<18} {"type":<26} {"values":>8} {"overflow":>9} {"below LSB":>9} '
        header += f'{"max |x|":>11} {"int bits":>8} {"max error":>10}'
        lines = [f'Overflow summary over {self.samples} samples', header, '-' * len(header)]
        lines += [_row_text(row) for row in self.layers]
        verdict = ', '.join(self.overflowing) or 'none'
        lines.append(f'layers with overflow: {verdict}')
        return '\n'.join(lines)


def _row_text(row: LayerOverflow) -> str:
    def shown(value: Any, spec: str) -> str:
        return '?' if value is None else format(value, spec)

    return (
        f'{row.layer:<20} {row.kind:<18} {row.precision:<26} {row.values:>8} {shown(row.overflow, "d"):>9} '
        f'{shown(row.underflow, "d"):>9} {shown(row.largest, ".4g"):>11} {shown(row.integer_bits_needed, "d"):>8} '
        f'{shown(row.max_error, ".3g"):>10}'
    )


def overflow_summary(hls_model: Any, X: Any) -> OverflowSummary:
    """Per layer (inputs first, in graph order): how many values of the batch X overflow the layer's
    result type and how many fall below its resolution; see the module docstring."""
    graph: Graph = hls_model.graph
    inputs = _input_values(graph, X)
    samples = len(next(iter(inputs.values())))
    _, traced = hls_model.trace(_as_model_inputs(graph, inputs))
    recomputer = _Recomputer(hls_model, traced, inputs)
    rows = []
    for layer in graph.layers.values():
        if layer.kind == Kind.CLONE:
            continue
        firmware = recomputer.firmware(layer)
        rows.append(_count(layer, recomputer.ideal(layer), firmware))
    return OverflowSummary(samples, tuple(rows))


def _input_values(graph: Graph, X: Any) -> dict[str, np.ndarray]:
    """Input tensor name -> (n_samples, size) float64 values."""
    arrays = list(X) if isinstance(X, (list, tuple)) and len(graph.inputs) > 1 else [X]
    if len(arrays) != len(graph.inputs):
        raise ValueError(f'the model has {len(graph.inputs)} inputs; got {len(arrays)} arrays')
    values = {}
    for name, array in zip(graph.inputs, arrays, strict=True):
        size = graph.tensors[name].size
        values[name] = np.asarray(array, dtype=np.float64).reshape(-1, size)
    return values


def _as_model_inputs(graph: Graph, inputs: dict[str, np.ndarray]) -> Any:
    """What predict()/trace() take: one array, or a list of arrays for several inputs."""
    arrays = [inputs[name] for name in graph.inputs]
    return arrays[0] if len(arrays) == 1 else arrays


class _Recomputer:
    """The firmware's values of every layer, and each layer recomputed from them with wide types."""

    def __init__(self, hls_model: Any, traced: dict[str, np.ndarray], inputs: dict[str, np.ndarray]) -> None:
        self.model, self.graph, self.inputs = hls_model, hls_model.graph, inputs
        self.family = hls_model.backend.family
        self.traced = {name: values.reshape(len(values), -1) for name, values in traced.items()}
        self._interpreted: dict[str, FixedArray] | None = None

    def firmware(self, layer: Layer) -> np.ndarray:
        """The layer's output values as the firmware computes them (trace; the numpy twin if untraced)."""
        if layer.kind == Kind.INPUT:
            return quantize(self.inputs[layer.outputs[0]], layer.types['result'], self.family).to_double()
        if layer.name in self.traced:
            return self.traced[layer.name]
        if self._interpreted is None:
            from hls4ml.model.interpreter import interpret

            self._interpreted = interpret(self.model, _as_model_inputs(self.graph, self.inputs))[1]
        return self._interpreted[layer.name].to_double()

    def operand(self, tensor_name: str) -> FixedArray:
        producer = self.graph.producer(tensor_name)
        while producer.kind == Kind.CLONE:
            producer = self.graph.producer(producer.inputs[0])
        return quantize(self.firmware(producer), producer.types['result'], self.family)

    def ideal(self, layer: Layer) -> np.ndarray | None:
        """What the layer writes with GUARD_BITS more integer and fraction bits (None: not recomputable)."""
        record = LAYER_KINDS.get(layer.kind)
        if record is None:  # a kind this version does not know
            return None
        if record.reference is None:  # a port: the values given
            return self.inputs[layer.outputs[0]]
        if layer.kind == Kind.RESOM:  # the maps' own accumulators are not widened: no ideal to compare with
            return None
        wide = dataclasses.replace(layer, types={**layer.types, **_widened(layer)})
        try:
            operands = [self.operand(name) for name in layer.inputs]
            return record.reference(wide, operands, self.graph, self.family).to_double()
        except (KeyError, ValueError, AssertionError, TypeError):
            return None  # a kernel that does not accept the widened types: reported as unknown


def _widened(layer: Layer) -> dict[str, FixedPrecisionType]:
    widened = {}
    for var in WIDENED_VARS:
        precision = layer.types.get(var)
        if isinstance(precision, FixedPrecisionType):
            extra = 1 if not precision.signed else 0  # room for the values an unsigned type cannot hold
            widened[var] = FixedPrecisionType(
                precision.width + 2 * GUARD_BITS + extra, precision.integer + GUARD_BITS + extra, True
            )
    return widened


def _count(layer: Layer, ideal: np.ndarray | None, firmware: np.ndarray) -> LayerOverflow:
    precision = layer.types.get('result')
    size = int(firmware.size)
    if ideal is None or not isinstance(precision, FixedPrecisionType):
        return LayerOverflow(layer.name, layer.kind, str(precision), size, None, None, None, None)
    ideal = ideal.reshape(firmware.shape)
    magnitudes = np.abs(ideal)
    overflow = int(np.count_nonzero((ideal > precision.max) | (ideal < precision.min)))
    underflow = int(np.count_nonzero((magnitudes > 0) & (magnitudes < 2.0**-precision.fractional)))
    largest = float(magnitudes.max()) if size else 0.0
    error = float(np.abs(firmware - ideal).max()) if size else 0.0
    return LayerOverflow(layer.name, layer.kind, str(precision), size, overflow, underflow, largest, error)
