"""Writes into a type: double -> fixed, fixed -> fixed, double -> integer (files *_cast_double,
*_cast_fixed, *_int_cast_double)."""

from __future__ import annotations

import random
from fractions import Fraction

from fixed_golden import exact, quirks
from fixed_golden.common import (
    FIXED_MODES,
    Case,
    Verdict,
    as_double,
    double_of,
    fixed_type,
    integer_type,
    random_raw,
    raw_text,
    raw_value,
    shape_columns,
    special_raws,
    unique,
    unique_doubles,
)
from fixed_golden.exact import Modes, Shape, integer_shape

# A few narrow formats (and one 32-bit one) get every quantization x overflow mode, with ap's
# saturation bits N; the others a selection. W from 1 to 70; I negative, zero, inside [1, W] and
# above W (up to W + 5).
FULL_SHAPES = [
    (1, 1, 1), (1, 0, 1), (1, 1, 0), (2, -1, 1), (3, 3, 0), (4, 2, 1), (4, 6, 1), (5, 0, 1), (6, 3, 0),
    (8, -3, 1), (8, 4, 1), (8, 4, 0), (8, 11, 0), (32, 16, 1),
]  # fmt: skip
WIDE_SHAPES = [
    (1, 3, 0), (2, 1, 1), (2, 2, 0), (3, -1, 1), (4, 2, 0), (4, 9, 0), (5, -2, 0), (6, 6, 1), (7, 1, 1),
    (8, 13, 1), (10, 10, 1), (12, 5, 0), (16, -4, 1), (16, 8, 1), (16, 0, 1), (20, 25, 1), (24, 12, 1),
    (31, 31, 1), (32, 0, 0), (32, 32, 1), (33, 17, 1), (40, -6, 1), (48, 24, 0), (53, 53, 1), (54, 27, 1),
    (55, 60, 0), (63, 1, 1), (64, 32, 1), (64, 64, 0), (65, 33, 1), (66, -2, 1), (70, -5, 0), (70, 35, 1),
    (70, 70, 0), (70, 75, 1),
]  # fmt: skip
EXTRA_MODES = [('RND', 'SAT_ZERO'), ('TRN_ZERO', 'SAT_ZERO'), ('RND_CONV', 'SAT_SYM'), ('RND_MIN_INF', 'SAT_SYM')]
PICKED_PER_MODE = 3  # values drawn from the secondary specials for each mode
RANDOM_PER_MODE = 2


def _shape(triple: tuple[int, int, int]) -> Shape:
    return Shape(triple[0], triple[1], bool(triple[2]))


def _saturation_bit_modes(shape: Shape) -> list[Modes]:
    """ap's N = 1..3 saturated top bits, with WRAP (both signs) and WRAP_SM (signed only)."""
    overflows = ('WRAP', 'WRAP_SM') if shape.signed else ('WRAP',)
    bits = [count for count in (1, 2, 3) if count <= shape.width]
    return [Modes(q, o, n) for o in overflows for n in bits for q in ('TRN', 'RND')]


def all_modes(family: str, shape: Shape) -> list[Modes]:
    """Every quantization x overflow mode; ap's unsigned WRAP_SM is left out (it exits the program)."""
    names = FIXED_MODES[family]
    overflows = [o for o in names['overflow'] if shape.signed or o != 'WRAP_SM']
    modes = [Modes(q, o) for o in overflows for q in names['quantization']]
    return modes + (_saturation_bit_modes(shape) if family == 'ap' else [])


def some_modes(family: str, shape: Shape) -> list[Modes]:
    """Every quantization with SAT and with WRAP, plus a few of the other overflow modes."""
    quantizations = FIXED_MODES[family]['quantization']
    modes = [Modes(q, o) for o in ('SAT', 'WRAP') for q in quantizations]
    modes += [Modes(q, o) for q, o in EXTRA_MODES]
    if family == 'ac':
        return modes + [Modes('RND_CONV_ODD', 'SAT_ZERO')]
    if shape.signed:
        modes += [Modes('TRN', 'WRAP_SM'), Modes('RND', 'WRAP_SM', 1)]
    return modes + ([Modes('RND', 'WRAP', 2)] if shape.width >= 2 else [])


def _lsb_values(shape: Shape, steps: list[Fraction]) -> list[float]:
    lsb = Fraction(2) ** -shape.fraction
    return [as_double(step * lsb) for step in steps]


def core_doubles(shape: Shape) -> list[float]:
    """Every mode sees these: ties and quarters around zero, both ends of the range, just beyond
    them (where rounding causes overflow) and far outside (wrapping). Values in LSBs."""
    low, high, half, quarter = shape.raw_min, shape.raw_max, Fraction(1, 2), Fraction(1, 4)
    steps = [Fraction(0), half, -half, 3 * half, -3 * half, -5 * half, quarter, -3 * quarter]
    steps += [high, high + half, high + 1, low, low - quarter, low - half, low + half]
    steps += [2 * (high - low + 1) + 3 * half]
    return unique_doubles(_lsb_values(shape, steps))


def secondary_doubles(shape: Shape) -> list[float]:
    """A pool each mode draws a few from: more ties and quarters, more edges, plain values."""
    low, high, half, quarter = shape.raw_min, shape.raw_max, Fraction(1, 2), Fraction(1, 4)
    steps = [-quarter, 3 * quarter, 7 * quarter, -5 * quarter, 5 * half, high + quarter, high - half, low - 1]
    steps += [-3 * (high - low + 1) - half, 4 * (high - low + 1) + high]
    plain = [Fraction(1), Fraction(-1), Fraction(-5, 2), Fraction(803, 8), Fraction(-3, 10), Fraction(27, 10)]
    values = _lsb_values(shape, steps) + [as_double(value) for value in plain] + [-0.0]
    core = {value.hex() for value in core_doubles(shape)}
    return [value for value in unique_doubles(values) if value.hex() not in core]


def random_double(rng: random.Random, shape: Shape) -> float:
    """A double up to twice the range beyond either end, with a random binary fraction of an LSB."""
    span = shape.raw_max - shape.raw_min + 1
    whole = rng.randint(shape.raw_min - 2 * span, shape.raw_max + 2 * span)
    bits = rng.randint(0, 6)
    tail = Fraction(rng.getrandbits(bits), 1 << bits) if bits else Fraction(0)
    return as_double((whole + tail) * Fraction(2) ** -shape.fraction)


def mode_doubles(rng: random.Random, shape: Shape, core: list[float], pool: list[float]) -> list[float]:
    picked = rng.sample(pool, min(PICKED_PER_MODE, len(pool)))
    return unique_doubles(core + picked + [random_double(rng, shape) for _ in range(RANDOM_PER_MODE)])


class CastDouble:
    name = 'cast_double'
    columns = ('W', 'I', 'S', 'Q', 'O', 'N', 'x', 'raw', 'd', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        cases = []
        for triple, choose in [(t, all_modes) for t in FULL_SHAPES] + [(t, some_modes) for t in WIDE_SHAPES]:
            shape = _shape(triple)
            core, pool = core_doubles(shape), secondary_doubles(shape)
            for modes in choose(family, shape):
                cases += [self.make_case(family, shape, modes, value) for value in mode_doubles(rng, shape, core, pool)]
        return cases

    def make_case(self, family: str, shape: Shape, modes: Modes, value: float) -> Case:
        inputs = {
            **shape_columns(shape),
            'Q': modes.quantization,
            'O': modes.overflow,
            'N': str(modes.saturation_bits),
        }
        entry = f'from_double_with_double<{fixed_type(family, shape, modes)} >'
        return Case(entry, (value.hex(),), inputs, {'shape': shape, 'modes': modes})

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        raw, double, echo = fields
        shape, modes = case.context['shape'], case.context['modes']
        value = Fraction(double_of(echo))
        verdict = Verdict()
        satzero = quirks.ac_w32_satzero(value, shape, modes) if family == 'ac' else None
        verdict.check('raw', raw_value(shape, raw), exact.cast(value, shape, modes), {'ac_w32_satzero': satzero})
        stored = shape.value(raw_value(shape, raw))
        verdict.check('d', double_of(double), exact.to_double(stored))
        row = {**case.inputs, 'x': echo, 'raw': raw, 'd': double}
        return {**row, 'quirk': verdict.quirk(row)}


# (W2, I2, S2, source overflow), (W, I, S), whether every mode of the target is run.
CAST_PAIRS = [
    ((16, 8, 1, 'WRAP'), (8, 4, 1), True), ((16, 8, 1, 'WRAP'), (8, 4, 0), True),
    ((12, 4, 1, 'WRAP'), (6, 2, 1), True), ((10, 10, 1, 'WRAP'), (4, 6, 1), True),
    ((12, 0, 1, 'WRAP'), (5, -2, 1), True), ((8, 4, 1, 'WRAP'), (8, 4, 1), True),
    ((16, 8, 0, 'WRAP'), (8, 4, 1), False), ((16, 8, 0, 'WRAP'), (6, 3, 0), False),
    ((9, 3, 1, 'WRAP'), (4, 4, 1), False), ((6, 2, 1, 'WRAP'), (8, 3, 1), False),
    ((8, 6, 1, 'WRAP'), (6, 2, 1), False), ((5, -1, 1, 'WRAP'), (3, -3, 0), False),
    ((3, 3, 0, 'WRAP'), (9, 2, 1), False), ((20, 3, 0, 'WRAP'), (7, 9, 1), False),
    ((40, 20, 1, 'WRAP'), (18, 8, 1), False), ((70, 35, 1, 'WRAP'), (33, 16, 1), False),
    ((70, 40, 0, 'WRAP'), (64, 32, 0), False), ((96, 48, 1, 'WRAP'), (65, 30, 1), False),
    ((8, 4, 1, 'WRAP'), (10, 4, 1), False),
]  # fmt: skip
AC_SATSYM_PAIRS = [  # sources that are themselves AC_SAT_SYM (where the ac header skips a step)
    ((8, 4, 1, 'SAT_SYM'), (8, 4, 1), True), ((8, 4, 1, 'SAT_SYM'), (10, 4, 1), True),
    ((6, 2, 1, 'SAT_SYM'), (9, 5, 0), False), ((8, 4, 1, 'SAT_SYM'), (8, 3, 1), False),
]  # fmt: skip
ROUNDING_SOURCES_PER_MODE = 8
RANDOM_SOURCES_PER_MODE = 2


def rounding_raws(source: Shape, target: Shape) -> list[int]:
    """Source raws that land on ties, quarter LSBs and exact values of the target near its edges."""
    drop = source.fraction - target.fraction
    if drop <= 0:
        return []
    half = 1 << (drop - 1)
    offsets = unique([0, half, half - 1, half + 1, 1, (1 << drop) - 1])
    anchors = [0, 1, -1, 2, -3, target.raw_max, target.raw_min, target.raw_max + 1, target.raw_min - 1]
    raws = [(anchor << drop) + offset for anchor in anchors for offset in offsets]
    return unique([raw for raw in raws if source.holds(raw)])


class CastFixed:
    name = 'cast_fixed'
    columns = ('W2', 'I2', 'S2', 'O2', 'W', 'I', 'S', 'Q', 'O', 'N', 'x_raw', 'raw', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        cases = []
        for (*source_triple, source_overflow), target_triple, every in CAST_PAIRS + (
            AC_SATSYM_PAIRS if family == 'ac' else []
        ):
            source, target = _shape(tuple(source_triple)), _shape(target_triple)
            edges, rounding = special_raws(source), rounding_raws(source, target)
            for modes in (all_modes if every else some_modes)(family, target):
                picked = rng.sample(rounding, min(ROUNDING_SOURCES_PER_MODE, len(rounding)))
                extra = [random_raw(rng, source) for _ in range(RANDOM_SOURCES_PER_MODE)]
                for raw in unique(edges + picked + extra):
                    cases.append(self.make_case(family, source, source_overflow, target, modes, raw))
        return cases

    def make_case(
        self, family: str, source: Shape, source_overflow: str, target: Shape, modes: Modes, raw: int
    ) -> Case:
        inputs = {
            **shape_columns(source, '2'),
            'O2': source_overflow,
            **shape_columns(target),
            'Q': modes.quantization,
            'O': modes.overflow,
            'N': str(modes.saturation_bits),
            'x_raw': raw_text(source, raw),
        }
        source_type = fixed_type(family, source, Modes('TRN', source_overflow))
        entry = f'from_fixed<{source_type}, {fixed_type(family, target, modes)} >'
        context = {'source': source, 'source_overflow': source_overflow, 'target': target, 'modes': modes, 'raw': raw}
        return Case(entry, (inputs['x_raw'],), inputs, context)

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        (raw,) = fields
        context = case.context
        source, target, modes = context['source'], context['target'], context['modes']
        clean = exact.cast(source.value(context['raw']), target, modes)
        satsym = None
        if family == 'ac':
            satsym = quirks.ac_satsym_src(source, context['source_overflow'], context['raw'], target, modes)
        verdict = Verdict()
        verdict.check('raw', raw_value(target, raw), clean, {'ac_satsym_src': satsym})
        row = {**case.inputs, 'raw': raw}
        return {**row, 'quirk': verdict.quirk(row)}


INTEGER_SHAPES = [
    (1, 1), (1, 0), (2, 1), (3, 0), (4, 1), (4, 0), (8, 1), (8, 0), (16, 1), (31, 1), (32, 1), (32, 0),
    (33, 1), (53, 1), (54, 0), (63, 0), (64, 1), (64, 0), (65, 1), (70, 1), (70, 0),
]  # fmt: skip
INTEGER_DOUBLES = [
    0.0, -0.0, 0.25, -0.25, 0.5, -0.5, 0.75, -0.75, -0.3, 1.0, -1.0, 1.5, -1.5, 2.5, -2.5, 2.7, -2.7,
    1e-300, -1e-300, -5e-324, -1e-30, 4503599627370497.0, -9007199254740994.0,
]  # fmt: skip
RANDOM_INTEGER_DOUBLES = 4


class IntegerCastDouble:
    name = 'int_cast_double'
    columns = ('W', 'S', 'x', 'raw', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        cases = []
        for width, signed in INTEGER_SHAPES:
            shape = integer_shape(width, bool(signed))
            edges = [2.0 ** (width - 1), -(2.0 ** (width - 1)) - 1, 2.0**width + 0.5, -(2.0**width) - 3.25]
            extra = [random_double(rng, shape) for _ in range(RANDOM_INTEGER_DOUBLES)]
            values = unique_doubles(INTEGER_DOUBLES + edges + extra)
            cases += [self.make_case(family, shape, value) for value in values]
        return cases

    def make_case(self, family: str, shape: Shape, value: float) -> Case:
        inputs = {'W': str(shape.width), 'S': str(int(shape.signed))}
        return Case(f'from_double<{integer_type(family, shape)} >', (value.hex(),), inputs, {'shape': shape})

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        raw, echo = fields
        shape = case.context['shape']
        double = double_of(echo)
        value = Fraction(double)
        if family == 'ap':
            predicted = {'ap_int_neg_tiny': quirks.ap_int_neg_tiny(value, shape)}
        else:
            predicted = {'ac_int_tiny_double': quirks.ac_int_tiny_double(double, shape)}
        verdict = Verdict()
        verdict.check('raw', raw_value(shape, raw), exact.integer_from_double(value, shape, family), predicted)
        row = {**case.inputs, 'x': echo, 'raw': raw}
        return {**row, 'quirk': verdict.quirk(row)}
