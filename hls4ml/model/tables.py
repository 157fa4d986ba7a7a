"""Lookup tables of the nonlinear activations: their grids (chosen from the types) and their values.

Every nonlinear function of the firmware (sigmoid, tanh, softsign, softplus, the exponential part
of elu and selu, the exp and reciprocal of softmax) is a table computed here, quantized to the
table type and written into the project; the C++ (`templates/nnet/nnet_table.h`) only indexes it,
and the numpy reference kernels index the very same values.

A table (`TableSpec`) has `size` entries on a grid of step `2**-shift` that starts at
`lo = start * 2**-shift`; entry k holds f(lo + k * step), the value at the LEFT end of its
interval [lo + k * step, lo + (k + 1) * step). An input is floored onto the grid by writing it
into `index_type`, a TRN + SAT type with `shift` fractional bits whose range strictly contains
the table range, so the slot `raw(index_type(x)) - start` is exact for any input type; slots below
0 or from `size` up are outside the table (the kernels then clamp or use the function's limit).

Why the left end: the table is exact on every grid point, so an input type no finer than the grid
reads f exactly (up to the table type's rounding), and exp(0) == 1 exactly for stable softmax,
whose largest input is always exactly 0. The price is an error of up to one step times the slope.

Explicit tables (`TableSpec.entries`, `explicit_table`) hold values a frontend computed itself on a
grid it chose, typically every value of the input type, so that each input reads its own entry.

How a grid is chosen (`_grid`): the window [low, high) of inputs worth tabulating is the part of
the input type's range where f is not yet at its limit within half an LSB of the table type; the
step is the smallest power of two that fits the window into `size` entries, but never finer than
the input's own LSB (finer entries could never be read).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.types import FixedPrecisionType, PrecisionType, parse_precision

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717
DEFAULT_TABLE_SIZE = 1024
MAX_INDEX_WIDTH = 31  # the grid position must fit a C int
MAX_SHIFT = 29  # 2**shift and 2**-shift must fit a C int
MAX_TABLE_WIDTH = 53  # entries are written as exact doubles


def _sigmoid(x: np.ndarray) -> np.ndarray:
    positive = 1.0 / (1.0 + np.exp(-np.abs(x)))
    return np.where(x >= 0, positive, 1.0 - positive)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide='ignore'):
        return np.where(x == 0, np.inf, 1.0 / np.where(x == 0, 1.0, x))


_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu(x: np.ndarray) -> np.ndarray:
    """x * Phi(x), the exact (erf) form of Keras gelu(approximate=False) and torch GELU('none')."""
    erf = np.asarray(_erf(np.asarray(x, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64)
    return 0.5 * x * (1.0 + erf)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    """The tanh approximation of Keras gelu(approximate=True) and torch GELU('tanh')."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    'sigmoid': _sigmoid,
    'tanh': np.tanh,
    'softsign': lambda x: x / (1.0 + np.abs(x)),
    'softplus': lambda x: np.logaddexp(0.0, x),
    'gelu': _gelu,
    'gelu_tanh': _gelu_tanh,
    'silu': lambda x: x * _sigmoid(x),
    'elu': np.expm1,
    'selu': lambda x: SELU_SCALE * SELU_ALPHA * np.expm1(x),
    'exp': np.exp,
    'reciprocal': _reciprocal,
}
"""Each tabulated function, evaluated in float64 before quantization."""

LIMITS: dict[str, tuple[int, int | None]] = {
    'sigmoid': (0, 1),
    'tanh': (-1, 1),
    'softsign': (-1, 1),
    'softplus': (0, None),
    'gelu': (0, None),
    'gelu_tanh': (0, None),
    'silu': (0, None),
}
"""The values the kernels use below / above the table (None: the kernel passes x through)."""
# the functions that tend to 0 below their table and to x above it (`nnet::ramp_table_op`)
RAMP_FUNCTIONS = ('softplus', 'gelu', 'gelu_tanh', 'silu')


@dataclass(frozen=True)
class TableSpec:
    """One lookup table: what the lowering writes into the config struct and the weights folder."""

    function: str
    start: int  # first grid point, in steps
    shift: int  # the step is 2**-shift
    size: int
    table_type: FixedPrecisionType
    index_type: FixedPrecisionType
    # explicit values of the entries (a quantization-aware model's own function, e.g. HGQ2's LUTs, evaluated
    # by its frontend on every grid point), written into table_type with its rounding and overflow modes
    entries: tuple[float, ...] | None = None

    @property
    def step(self) -> float:
        return 2.0**-self.shift

    @property
    def lo(self) -> float:
        return self.start * self.step

    @property
    def hi(self) -> float:
        """The end of the table range (exclusive)."""
        return (self.start + self.size) * self.step

    def points(self) -> np.ndarray:
        """The input value each entry represents."""
        return (self.start + np.arange(self.size)) * self.step

    def slots(self, x: FixedArray) -> np.ndarray:
        """The unclamped slot of each input, exactly as `nnet::table_slot` computes it."""
        on_grid = x.cast(self.index_type)
        return np.asarray(on_grid.raw, dtype=np.int64) - self.start

    def lookup(self, x: FixedArray) -> FixedArray:
        """The entries for `x`, inputs beyond the range clamped to the nearest end entry."""
        return take(table_values(self, x.family), np.clip(self.slots(x), 0, self.size - 1))


def take(values: FixedArray, index: Any) -> FixedArray:
    """`values.raw[index]` as a FixedArray of the same type."""
    return FixedArray(values.raw[index], values.type, values.family)


@functools.lru_cache(maxsize=256)
def table_values(spec: TableSpec, family: str = 'ap') -> FixedArray:
    """The entries, each the nearest representable value of the table type at or inside its range.

    Values are clipped to the type's range before quantization, so an entry never wraps (1/0 of
    the reciprocal table becomes the type's maximum). Explicit entries are written into the type as
    they are, overflow mode included: they are what the model's own quantizer would see.
    """
    if spec.entries is not None:
        explicit = quantize(np.asarray(spec.entries, dtype=np.float64), spec.table_type, family)
        explicit.raw.setflags(write=False)
        return explicit
    with np.errstate(over='ignore'):  # exp far beyond the type's range: clipped below
        values = FUNCTIONS[spec.function](spec.points())
    kind = spec.table_type
    raw = quantize(np.clip(values, kind.min, kind.max), kind, family).raw
    raw = np.where(values >= kind.max, kind.raw_max, np.where(values <= kind.min, kind.raw_min, raw))
    result = FixedArray.from_raw(raw, kind, family)
    result.raw.setflags(write=False)
    return result


# ---- grids -----------------------------------------------------------------------------------------


def _as_fixed(precision: str | PrecisionType, what: str) -> FixedPrecisionType:
    parsed = parse_precision(precision, what)
    if not isinstance(parsed, FixedPrecisionType):
        raise ValueError(f'{what}: a table needs a fixed-point type, got {parsed}')
    return parsed


def _lsb(precision: FixedPrecisionType) -> float:
    return 2.0**-precision.fractional


def _tail(table_type: FixedPrecisionType, factor: float = 1.0) -> float:
    """The distance beyond which factor * exp(-distance) is below half an LSB of the table type."""
    return math.log(2.0 * factor / _lsb(table_type))


def _grid(low: float, high: float, input_lsb: float, size: int, anchor: str) -> tuple[int, int]:
    """(start, shift) of the coarsest-needed power-of-two grid covering [low, high) with `size` entries.

    The step starts at the larger of the window's need and the input LSB, within +-2**MAX_SHIFT
    (so that 2**shift is a C int), and grows until the window fits and the index fits an int.
    The grid ends at `high` (anchor 'high') or starts at `low` ('low'); the spare entries of a
    power-of-two grid go to the other side.
    """
    if size < 2 or size & (size - 1):
        raise ValueError(f'table size must be a power of two of at least 2, got {size}')
    if high <= low:  # no input reaches the function's interesting part: any small table will do
        high = low + min(input_lsb, 1.0)
    needed = math.ceil(math.log2((high - low) / size))
    exponent = max(needed, min(math.floor(math.log2(input_lsb)), MAX_SHIFT), -MAX_SHIFT)
    while exponent <= MAX_SHIFT:
        step = 2.0**exponent
        start = math.floor(low / step) if anchor == 'low' else math.ceil(high / step) - size
        if start * step <= low and (start + size) * step >= high and _index_width(start, size) <= MAX_INDEX_WIDTH:
            return start, -exponent
        exponent += 1
    raise ValueError(f'no table grid of {size} entries covers [{low}, {high}) with a {MAX_INDEX_WIDTH}-bit index')


def _index_width(start: int, size: int) -> int:
    """Bits of a signed raw range strictly containing [start, start + size): [start - 1, start + size]."""
    return max(start + size, 1 - start).bit_length() + 1


def index_type(start: int, size: int, shift: int) -> FixedPrecisionType:
    """Signed TRN + SAT with `shift` fractional bits; inputs outside the table saturate outside it too."""
    width = _index_width(start, size)
    return FixedPrecisionType(width, width - shift, True, 'TRN', 'SAT')


def make_table(
    function: str,
    low: float,
    high: float,
    input_lsb: float,
    size: int,
    table_type: str | PrecisionType,
    anchor: str = 'high',
) -> TableSpec:
    """A table of `function` whose grid covers the window [low, high) of inputs with LSB `input_lsb`.

    Every table but the reciprocal is anchored at the top of its window: the functions are flat
    at their lower end (sigmoid, softplus, exp and elu reach 0 or -1) and the spare entries are
    best spent there, while softplus must hand over to `x` exactly where its table ends.
    """
    if function not in FUNCTIONS:
        raise ValueError(f'no table function {function!r}; known: {", ".join(FUNCTIONS)}')
    kind = _as_fixed(table_type, f'{function} table')
    if kind.width > MAX_TABLE_WIDTH:
        raise ValueError(f'{function} table type {kind} is wider than {MAX_TABLE_WIDTH} bits')
    start, shift = _grid(low, high, input_lsb, size, anchor)
    spec = TableSpec(function, start, shift, size, kind, index_type(start, size, shift))
    _check_limits(spec)
    return spec


def _check_limits(spec: TableSpec) -> None:
    for limit in LIMITS.get(spec.function, ()):
        if limit is None:
            continue
        written = quantize(float(limit), spec.table_type).value
        if abs(written - limit) > _lsb(spec.table_type):
            raise ValueError(
                f'{spec.function} table type {spec.table_type} cannot hold the limit {limit} '
                f'(it becomes {written}); use a wider or saturating table type'
            )


def _input_window(input_type: FixedPrecisionType, low: float, high: float) -> tuple[float, float, float]:
    """[low, high) intersected with the input type's range; and the input LSB."""
    lsb = _lsb(input_type)
    return max(low, input_type.min), min(high, input_type.max + lsb), lsb


# ---- the rules of each function ---------------------------------------------------------------------


def activation_table(
    function: str,
    input_type: str | PrecisionType,
    table_type: str | PrecisionType,
    size: int = DEFAULT_TABLE_SIZE,
) -> TableSpec:
    """The table of a one-table activation (sigmoid, tanh, softsign, softplus, elu, selu) for `input_type`."""
    source = _as_fixed(input_type, f'{function} input')
    kind = _as_fixed(table_type, f'{function} table')
    reach = _reach(function, kind, size)
    high = min(reach, kind.max) if function in RAMP_FUNCTIONS else reach
    high = 0.0 if function in ('elu', 'selu') else high  # elu/selu: only x < 0 reads the table
    low, high, lsb = _input_window(source, -reach, high)
    return make_table(function, low, high, lsb, size, kind)


def _reach(function: str, table_type: FixedPrecisionType, size: int) -> float:
    """How far from 0 the function is worth tabulating."""
    if function in ('sigmoid', 'softplus', 'elu'):  # exp(-reach) below half an LSB
        return _tail(table_type)
    if function == 'tanh':  # 1 - tanh(r) ~ 2 exp(-2r)
        return _tail(table_type, 2.0) / 2.0
    if function == 'selu':
        return _tail(table_type, SELU_SCALE * SELU_ALPHA)
    if function in RAMP_FUNCTIONS:
        return _ramp_reach(function, table_type)
    if function == 'softsign':
        # 1 - softsign(r) = 1 / (1 + r) decays slowly: balance that tail error against the step
        # error (slope 1, step 2r / size) at r = sqrt(size / 2), rounded to a power of two.
        return min(2.0 ** round(math.log2(math.sqrt(size / 2))), 2.0 / _lsb(table_type))
    raise ValueError(f'{function!r} is not a one-table activation')


def _ramp_reach(function: str, table_type: FixedPrecisionType) -> float:
    """The first multiple of 1/4 from which f(-r) is within half an LSB of 0 and f(r) of r: beyond it
    the kernel's limits (0 below, x above) are as good as entries. Both tails shrink monotonically
    from there on (softplus like exp(-r), silu like r exp(-r), gelu like exp(-r**2 / 2))."""
    if function == 'softplus':
        return _tail(table_type)
    half, values = _lsb(table_type) / 2.0, FUNCTIONS[function]
    reach = 1.0
    while abs(float(values(np.array([-reach]))[0])) >= half or abs(float(values(np.array([reach]))[0]) - reach) >= half:
        reach += 0.25
    return reach


def softmax_tables(
    input_type: str | PrecisionType,
    exp_table_type: str | PrecisionType,
    inv_table_type: str | PrecisionType,
    accum_type: str | PrecisionType,
    n_in: int,
    size: int = DEFAULT_TABLE_SIZE,
    implementation: str = 'stable',
) -> tuple[TableSpec, TableSpec]:
    """The exp and reciprocal tables of a softmax summing `n_in` values per row (`stable` or `latency`)."""
    source = _as_fixed(input_type, 'softmax input')
    exp_kind = _as_fixed(exp_table_type, 'softmax exp table')
    reach = _tail(exp_kind)
    if implementation == 'stable':  # x - max lies in [min - max, 0] on the input's grid
        span = source.max - source.min
        exp_spec = make_table('exp', max(-reach, -span), _lsb(source), _lsb(source), size, exp_kind)
    elif implementation == 'latency':  # beyond log(max) every entry would saturate
        low, high, lsb = _input_window(source, -reach, math.log(exp_kind.max))
        exp_spec = make_table('exp', low, high, lsb, size, exp_kind)
    else:
        raise ValueError(f"softmax implementation {implementation!r} has no tables; use 'stable' or 'latency'")
    return exp_spec, _reciprocal_table(exp_spec, inv_table_type, accum_type, n_in, implementation, source)


def _reciprocal_table(
    exp_spec: TableSpec,
    inv_table_type: str | PrecisionType,
    accum_type: str | PrecisionType,
    n_in: int,
    implementation: str,
    source: FixedPrecisionType,
) -> TableSpec:
    """1/sum over the sums that the reachable exp entries can produce.

    Stable: the maximum contributes the entry of 0 (exactly 1), the others at most that; latency:
    n_in times the entries reachable from the input range.
    """
    accum = _as_fixed(accum_type, 'softmax accumulator')
    entries = table_values(exp_spec).value
    if implementation == 'stable':
        top = int(np.clip(-exp_spec.start, 0, exp_spec.size - 1))
        reachable = entries[: top + 1]
        low = float(entries[top])
    else:
        first, last = (
            int(np.clip(math.floor(v / exp_spec.step) - exp_spec.start, 0, exp_spec.size - 1))
            for v in (source.min, source.max)
        )
        reachable = entries[first : last + 1]
        low = n_in * float(reachable.min())
    high = min(n_in * float(reachable.max()), accum.max)
    low = min(max(low, accum.min), high)
    return make_table('reciprocal', low, high + _lsb(accum), _lsb(accum), exp_spec.size, inv_table_type, 'low')


def explicit_table(
    label: str,
    start: int,
    shift: int,
    entries: np.ndarray,
    table_type: str | PrecisionType,
    index: str | PrecisionType | None = None,
) -> TableSpec:
    """A table of given entries on the grid (start + k) * 2**-shift, k < len(entries) (a power of two).

    `index` replaces the TRN + SAT index type: an input is written into it with its own rounding and
    overflow (a quantizer, e.g. HGQ2's, whose every value has an entry); it must have `shift` fraction bits.
    """
    kind = _as_fixed(table_type, f'{label} table')
    size = len(entries)
    if size < 2 or size & (size - 1):
        raise ValueError(f'{label} table: {size} entries, not a power of two of at least 2')
    if kind.width > MAX_TABLE_WIDTH or _index_width(start, size) > MAX_INDEX_WIDTH or abs(shift) > MAX_SHIFT:
        raise ValueError(f'{label} table: type {kind}, grid start {start} or shift {shift} out of range')
    values = tuple(float(value) for value in np.asarray(entries, dtype=np.float64))
    grid = index_type(start, size, shift) if index is None else _as_fixed(index, f'{label} index')
    if grid.width - grid.integer != shift:
        raise ValueError(f'{label} table: index type {grid} does not have {shift} fraction bits')
    return TableSpec(label, start, shift, size, kind, grid, values)
