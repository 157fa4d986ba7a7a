"""What every kind of golden file shares: a case, the verdict on a vendor row, C++ type names, text.

A kind (cast from double, arithmetic, ...) builds `Case`s: a C++ table entry of the driver, the
driver arguments and the input columns of the CSV row. After the vendor driver ran, the kind judges
each output with a `Verdict`: every column must equal the clean rule, or else what a named quirk
predicts (the row then carries that quirk's tag); anything else is a finding.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from fixed_golden.exact import Modes, Shape

FIXED_MODES = {
    'ap': {
        'quantization': ('RND', 'RND_ZERO', 'RND_MIN_INF', 'RND_INF', 'RND_CONV', 'TRN', 'TRN_ZERO'),
        'overflow': ('SAT', 'SAT_ZERO', 'SAT_SYM', 'WRAP', 'WRAP_SM'),
    },
    'ac': {
        'quantization': ('TRN', 'RND', 'TRN_ZERO', 'RND_ZERO', 'RND_INF', 'RND_MIN_INF', 'RND_CONV', 'RND_CONV_ODD'),
        'overflow': ('WRAP', 'SAT', 'SAT_ZERO', 'SAT_SYM'),
    },
}

DEFAULT_MODES = Modes()  # AP_TRN / AP_WRAP, AC_TRN / AC_WRAP


class Finding(Exception):
    """A vendor result that neither the clean rule nor any named quirk explains."""


@dataclass
class Case:
    """One row to generate: the driver's table entry and arguments, and the row's input columns."""

    entry: str
    arguments: tuple[str, ...]
    inputs: dict[str, str]
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Verdict:
    """Collects, column by column, whether the vendor output follows the clean rule or a quirk."""

    tags: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def check(self, column: str, observed: object, clean: object, quirks: dict[str, object] | None = None) -> None:
        if observed == clean:
            return
        explained = [
            tag for tag, predicted in (quirks or {}).items() if predicted is not None and predicted == observed
        ]
        if not explained:
            self.problems.append(f'{column}: vendor {observed!r}, clean rule {clean!r}, quirks {quirks or {}}')
        for tag in explained:
            if tag not in self.tags:
                self.tags.append(tag)

    def quirk(self, inputs: dict[str, str]) -> str:
        """The quirk column; raises Finding when some column is unexplained."""
        if self.problems:
            raise Finding(f'{inputs}: ' + '; '.join(self.problems))
        return ';'.join(sorted(self.tags))


# ---- C++ type names (Python decides them; the driver template only prints them) --------------------


def fixed_type(family: str, shape: Shape, modes: Modes = DEFAULT_MODES) -> str:
    if family == 'ap':
        name = 'ap_fixed' if shape.signed else 'ap_ufixed'
        return (
            f'{name}<{shape.width}, {shape.integer}, AP_{modes.quantization}, AP_{modes.overflow}, '
            f'{modes.saturation_bits}>'
        )
    sign = 'true' if shape.signed else 'false'
    return f'ac_fixed<{shape.width}, {shape.integer}, {sign}, AC_{modes.quantization}, AC_{modes.overflow}>'


def integer_type(family: str, shape: Shape) -> str:
    if family == 'ap':
        return f'ap_{"" if shape.signed else "u"}int<{shape.width}>'
    return f'ac_int<{shape.width}, {"true" if shape.signed else "false"}>'


# ---- text of the CSV columns ------------------------------------------------------------------------


def raw_text(shape: Shape, raw: int) -> str:
    """The W-bit two's complement pattern as lower-case hex, no prefix, no padding."""
    return format(raw & ((1 << shape.width) - 1), 'x')


def raw_value(shape: Shape, text: str) -> int:
    return shape.wrap(int(text, 16))


def shape_columns(shape: Shape, suffix: str = '') -> dict[str, str]:
    return {f'W{suffix}': str(shape.width), f'I{suffix}': str(shape.integer), f'S{suffix}': str(int(shape.signed))}


def double_of(text: str) -> float:
    """A C99 hex-float (`%a`) as printed by the driver."""
    return float.fromhex(text)


# ---- input values ----------------------------------------------------------------------------------


def as_double(value: Fraction) -> float:
    """The double nearest to a value (inputs are doubles; their exact value is what gets cast)."""
    return value.numerator / value.denominator


def unique(values: list) -> list:
    """The values in first-seen order without repeats (dict order is deterministic, sets are not)."""
    return list(dict.fromkeys(values))


def unique_doubles(values: list[float]) -> list[float]:
    """Doubles without repeats, -0.0 kept apart from 0.0 (they compare equal)."""
    first: dict[str, float] = {}
    for value in values:
        first.setdefault(value.hex(), value)
    return list(first.values())


def random_raw(rng: random.Random, shape: Shape) -> int:
    """A raw value: uniform over the format, but with a bias toward few significant bits."""
    if rng.random() < 0.3:
        return shape.wrap(rng.getrandbits(rng.randint(1, shape.width)) * rng.choice((1, -1)))
    return rng.randint(shape.raw_min, shape.raw_max)


def special_raws(shape: Shape) -> list[int]:
    """The edges of a format: its minimum and maximum, zero, +-1 LSB, and their neighbours."""
    candidates = [shape.raw_min, shape.raw_min + 1, -1, 0, 1, 2, shape.raw_max - 1, shape.raw_max]
    return unique([raw for raw in candidates if shape.holds(raw)])
