"""References of the table-based activations (`templates/nnet/nnet_activation_table.h`)."""

from __future__ import annotations

from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.arrays import as_samples, constant, integer, select
from hls4ml.model.tables import LIMITS, SELU_SCALE, TableSpec
from hls4ml.model.types import PrecisionType

Type = str | PrecisionType


def _bounded(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """The entry inside the table, the function's limits (written into table_t) outside it."""
    x = as_samples(x)
    low, high = LIMITS[spec.function]
    assert high is not None, f'{spec.function} has no upper limit'
    below, above = (integer(limit, x.family).cast(spec.table_type) for limit in (low, high))
    slots = spec.slots(x)
    value = select(slots < 0, below, select(slots >= spec.size, above, spec.lookup(x)))
    return value.cast(result_type)


def _expect(spec: TableSpec, function: str) -> None:
    if spec.function != function:
        raise ValueError(f'expected a {function} table, got a {spec.function} table')


def sigmoid(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    _expect(spec, 'sigmoid')
    return _bounded(x, spec, result_type)


def tanh(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    _expect(spec, 'tanh')
    return _bounded(x, spec, result_type)


def softsign(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    _expect(spec, 'softsign')
    return _bounded(x, spec, result_type)


def softplus(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    _expect(spec, 'softplus')
    return _ramp(x, spec, result_type)


def gelu(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """x * Phi(x), exact (erf) form."""
    _expect(spec, 'gelu')
    return _ramp(x, spec, result_type)


def gelu_tanh(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """GELU's tanh approximation."""
    _expect(spec, 'gelu_tanh')
    return _ramp(x, spec, result_type)


def silu(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """x * sigmoid(x) (swish)."""
    _expect(spec, 'silu')
    return _ramp(x, spec, result_type)


def _ramp(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """`nnet::ramp_table_op`: below the table 0 (into table_t), above it x itself, inside the entry."""
    x = as_samples(x)
    slots = spec.slots(x)
    below = integer(0, x.family).cast(spec.table_type)
    inside = select(slots < 0, below, spec.lookup(x)).cast(result_type)
    return select(slots >= spec.size, x.cast(result_type), inside)


def elu(x: FixedArray, alpha: float, param_type: Type, spec: TableSpec, result_type: Type) -> FixedArray:
    """x < 0 ? alpha * table(x) : x, the table holding exp(x) - 1 (clamped at its ends)."""
    _expect(spec, 'elu')
    x = as_samples(x)
    negative_side = (constant(alpha, param_type, x.family) * spec.lookup(x)).cast(result_type)
    return select(x.raw < 0, negative_side, x.cast(result_type))


def selu(x: FixedArray, param_type: Type, spec: TableSpec, result_type: Type) -> FixedArray:
    """x < 0 ? table(x) : scale * x, scale written into param_type, the table holding scale*alpha*(exp(x)-1)."""
    _expect(spec, 'selu')
    x = as_samples(x)
    positive_side = (constant(SELU_SCALE, param_type, x.family) * x).cast(result_type)
    return select(x.raw < 0, spec.lookup(x).cast(result_type), positive_side)


def unary_lut(x: FixedArray, spec: TableSpec, result_type: Type) -> FixedArray:
    """The entry of each input in a table over its whole grid (kind UnaryLUT), clamped at the ends."""
    return spec.lookup(as_samples(x)).cast(result_type)
