"""Vendor-neutral building blocks of a cost: ranges, multipliers, memories, and what a layer needs.

A layer rule (`kinds_*.py`) describes a layer as a `Cost`: how many multipliers of which operand
widths (and whether one operand is a known constant), how many adder and logic bits, which memories
(ROMs, FIFOs, buffers) and how many register bits. `mapping.py` turns a `Cost` into a device's
resources (DSP, LUT, ...). Nothing here knows a vendor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from hls4ml.model.fixed import quantize
from hls4ml.model.types import FixedPrecisionType, PrecisionType


@dataclass(frozen=True)
class Range:
    """A quantity known to lie in [low, high], with a point estimate inside it (`estimate`).

    The point is the calibrated figure a rule sets where it knows better than the middle of the range
    (docs/estimator.md, "Calibration"); left out, it is the geometric middle (the arithmetic one when
    low is 0). Sums add the points, scaling scales them. Equality compares the range only: the point
    is the estimator's best guess, the range what it is sure of."""

    low: float
    high: float
    estimate: float = field(default=math.nan, compare=False)

    def __post_init__(self) -> None:
        if math.isnan(self.estimate):
            middle = math.sqrt(self.low * self.high) if self.low > 0 else (self.low + self.high) / 2
            object.__setattr__(self, 'estimate', middle)

    @classmethod
    def exact(cls, value: float) -> Range:
        return cls(value, value, value)

    @classmethod
    def around(cls, point: float, low: float, high: float) -> Range:
        """A range that surely holds its point: [min(low, point), max(high, point)]."""
        return cls(min(low, point), max(high, point), point)

    @property
    def is_exact(self) -> bool:
        return self.low == self.high

    @property
    def value(self) -> float:
        """The point estimate."""
        return self.estimate

    def at(self, point: float) -> Range:
        """The same range with another point estimate (the range widened to hold it)."""
        return Range.around(point, self.low, self.high)

    def __add__(self, other: Range) -> Range:
        return Range(self.low + other.low, self.high + other.high, self.estimate + other.estimate)

    def scale(self, low_factor: float, high_factor: float | None = None, point_factor: float | None = None) -> Range:
        """Low times low_factor, high times high_factor (default: low_factor), the point times
        point_factor (default: the geometric middle of the two)."""
        high = low_factor if high_factor is None else high_factor
        factor = point_factor if point_factor is not None else math.sqrt(abs(low_factor * high))
        return Range(self.low * low_factor, self.high * high, self.estimate * factor)

    def maximum(self, other: Range) -> Range:
        return Range(max(self.low, other.low), max(self.high, other.high), max(self.estimate, other.estimate))

    def rounded(self) -> Range:
        """Whole units: the low end rounded down, the high end up, the point to the nearest."""
        low, high = math.floor(self.low + 1e-9), math.ceil(self.high - 1e-9)
        return Range(low, high, min(max(round(self.estimate), low), high))

    def __str__(self) -> str:
        low, high = _short(self.low), _short(self.high)
        return low if low == high else f'{_short(self.estimate)} ({low}-{high})'

    def to_dict(self) -> dict[str, float]:
        return {'value': _plain(self.value), 'low': _plain(self.low), 'high': _plain(self.high)}


ZERO = Range(0, 0)


def _plain(value: float) -> float:
    return int(value) if float(value).is_integer() else round(float(value), 3)


def _short(value: float) -> str:
    if abs(value) >= 100:
        value = round(value)
    if float(value).is_integer():
        return f'{int(value):,}'.replace(',', '_') if abs(value) >= 100_000 else str(int(value))
    return f'{value:.3g}'


@dataclass(frozen=True)
class Multiplier:
    """`count` multipliers of a `data_bits` x `coefficient_bits` product.

    `digits` is None for a multiplier of two variables; for a constant coefficient it is the number of
    nonzero digits of the coefficient in canonical signed-digit form (a shift-and-add count), and
    `coefficient_bits` is the coefficient's significant width (trailing zeros are free shifts)."""

    count: int
    data_bits: int
    coefficient_bits: int
    digits: int | None = None


@dataclass(frozen=True)
class Memory:
    """A memory of `words` x `width` bits. `role`: 'rom' (weights, tables), 'fifo' (a stream), 'ram'
    (a line buffer or a whole-tensor buffer). `reads`: words read from it in the same cycle; the
    mapping replicates it (a block RAM serves two reads, a LUT ROM one)."""

    role: str
    words: int
    width: int
    reads: int = 1
    label: str = ''

    @property
    def bits(self) -> int:
        return self.words * self.width


@dataclass
class Cost:
    """What one layer instantiates, before it is mapped onto a device."""

    multipliers: list[Multiplier] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    adder_bits: int = 0  # carry-chain adders, subtractors, accumulators: one LUT per bit
    logic_bits: int = 0  # comparators, multiplexers, clamps: about one LUT per bit
    register_bits: Range = ZERO  # pipeline and state registers

    def add_multipliers(self, multipliers: list[Multiplier]) -> None:
        self.multipliers += [m for m in multipliers if m.count > 0]

    @property
    def multiplier_count(self) -> int:
        """Multipliers that need hardware (constant ones with <= 1 digit are shifts)."""
        return sum(m.count for m in self.multipliers if m.digits is None or m.digits > 1)


# ---- operand widths and constant coefficients --------------------------------------------------------


def width_of(precision: PrecisionType | None, default: int = 16) -> int:
    return precision.width if isinstance(precision, FixedPrecisionType) else default


def raw_values(values: np.ndarray, precision: PrecisionType | None) -> list[int]:
    """The integers the firmware stores for `values` in `precision` (its raw bits, signed)."""
    if not isinstance(precision, FixedPrecisionType) or np.size(values) == 0:
        return [int(round(float(v))) for v in np.ravel(values)]
    return [int(v) for v in np.ravel(quantize(np.asarray(values, dtype=np.float64), precision).raw)]


@lru_cache(maxsize=65536)
def signed_digits(value: int) -> int:
    """Nonzero digits of `value` in canonical signed-digit (non-adjacent) form: the number of shifted
    copies of the data a constant multiplier adds up (7 = 8 - 1 has two, not three)."""
    count, value = 0, abs(value)
    while value:
        if value & 1:
            count += 1
            value -= 2 - (value & 3)  # remainder 1 -> digit +1, remainder 3 -> digit -1 (value + 1)
        value >>= 1
    return count


def significant_bits(value: int) -> int:
    """Bits of |value| without its trailing zeros, plus a sign bit (0 for zero)."""
    magnitude = abs(value)
    if magnitude == 0:
        return 0
    while magnitude % 2 == 0:
        magnitude //= 2
    return magnitude.bit_length() + 1


def constant_multipliers(coefficients: list[int], data_bits: int, copies: int = 1) -> list[Multiplier]:
    """One constant multiplier per nonzero coefficient (zeros cost nothing), grouped by shape."""
    groups: dict[tuple[int, int], int] = {}
    for value in coefficients:
        if value:
            key = (significant_bits(value), signed_digits(value))
            groups[key] = groups.get(key, 0) + copies
    return [Multiplier(n, data_bits, bits, digits) for (bits, digits), n in sorted(groups.items())]


def index_bits(count: int) -> int:
    """Bits of an index into `count` values (at least one)."""
    return max(math.ceil(math.log2(count)), 1)


def tree_levels(terms: int) -> int:
    """Levels of a balanced adder (or comparator) tree over `terms` inputs."""
    return math.ceil(math.log2(terms)) if terms > 1 else 0
