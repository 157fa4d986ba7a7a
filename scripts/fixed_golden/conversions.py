"""Conversions out of a fixed-point value: to_double, to_float, to_int, to_int64, int i = x and the
three to_string radixes (files *_conv)."""

from __future__ import annotations

import random
from fractions import Fraction

from fixed_golden import exact, quirks, strings
from fixed_golden.common import Case, Verdict, double_of, fixed_type, random_raw, raw_text, shape_columns, special_raws
from fixed_golden.common import unique as _unique
from fixed_golden.exact import Shape

CONVERSION_SHAPES = [
    (1, 1, 1), (1, 1, 0), (2, 0, 1), (3, -1, 1), (4, 2, 1), (4, 2, 0), (4, 6, 1), (4, -2, 1), (5, 0, 1),
    (6, 6, 1), (8, 4, 1), (8, 4, 0), (8, 1, 1), (8, 8, 1), (8, -3, 0), (8, 0, 1), (12, 12, 0), (16, 8, 1),
    (16, 0, 1), (24, 40, 1), (32, 16, 1), (32, 32, 1), (33, 33, 1), (40, 20, 1), (53, 26, 1), (54, 20, 1),
    (60, 30, 0), (64, 32, 1), (64, 64, 1), (66, 33, 1), (70, 35, 1), (70, 70, 0), (70, -4, 1), (80, 72, 1),
    (96, 48, 1), (96, 90, 0),
]  # fmt: skip
PLAIN_VALUES = [Fraction(-5, 2), Fraction(-5, 4), Fraction(1, 2), Fraction(-1, 2), Fraction(5, 2), Fraction(100)]
INTEGER_COLUMNS = ('to_int', 'to_int64', 'int_implicit')
STRING_COLUMNS = ('str_dec', 'str_bin', 'str_hex')


def _random_count(shape: Shape) -> int:
    return 4 if shape.width <= 8 else 8 if shape.width < 90 else 20


def double_rounding_raws(rng: random.Random, shape: Shape, wanted: int = 3, tries: int = 4000) -> list[int]:
    """Raws of a wide format whose value ac's word-by-word to_double() rounds twice, found by trying
    random ones (so both families are checked where correct rounding is hard)."""
    found: list[int] = []
    for _ in range(tries if shape.width > 85 else 0):
        raw = rng.randint(shape.raw_min, shape.raw_max)
        if quirks.ac_todouble_2round(shape, raw) != exact.to_double(shape.value(raw)):
            found.append(raw)
            if len(found) == wanted:
                break
    return found


def conversion_raws(rng: random.Random, shape: Shape) -> list[int]:
    """The edges, a few plain values (-2.5, 0.5, 100, ...) when the format holds them, random raws."""
    plain = [shape.scale(value) for value in PLAIN_VALUES]
    held = [int(raw) for raw in plain if raw.denominator == 1 and shape.holds(int(raw))]
    randoms = [random_raw(rng, shape) for _ in range(_random_count(shape))]
    return _unique(special_raws(shape) + held + randoms + double_rounding_raws(rng, shape))


class Conversions:
    name = 'conv'
    columns = ('W', 'I', 'S', 'raw', 'to_double', 'to_float', *INTEGER_COLUMNS, *STRING_COLUMNS, 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        cases = []
        for width, integer, signed in CONVERSION_SHAPES:
            shape = Shape(width, integer, bool(signed))
            cases += [self.make_case(family, shape, raw) for raw in conversion_raws(rng, shape)]
        return cases

    def make_case(self, family: str, shape: Shape, raw: int) -> Case:
        without_int = shape.integer < 0 if family == 'ap' else shape.integer > 64
        kernel = 'conversions_without_int' if without_int else 'conversions'
        inputs = {**shape_columns(shape), 'raw': raw_text(shape, raw)}
        return Case(f'{kernel}<{fixed_type(family, shape)} >', (inputs['raw'],), inputs, {'shape': shape, 'raw': raw})

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        shape, raw = case.context['shape'], case.context['raw']
        outputs = dict(zip(self.columns[4:-1], fields, strict=True))
        verdict = Verdict()
        value = shape.value(raw)
        two_round = quirks.ac_todouble_2round(shape, raw) if family == 'ac' else None
        verdict.check(
            'to_double', double_of(outputs['to_double']), exact.to_double(value), {'ac_todouble_2round': two_round}
        )
        if family == 'ap':
            verdict.check('to_float', double_of(outputs['to_float']), exact.to_float(value))
        outputs.update(self._integers(family, shape, raw, outputs, verdict))
        for column, radix in zip(STRING_COLUMNS, (10, 2, 16), strict=True):
            predicted = {}
            if family == 'ap':
                predicted = {
                    'ap_tostring_I_gt_W': quirks.ap_tostring_i_gt_w(shape, raw, radix),
                    'ap_tostring_I64': quirks.ap_tostring_i64(shape, raw, radix),
                }
            verdict.check(column, outputs[column], strings.to_string(family, shape, raw, radix), predicted)
        row = {**case.inputs, **outputs}
        return {**row, 'quirk': verdict.quirk(row)}

    def _integers(self, family: str, shape: Shape, raw: int, outputs: dict, verdict: Verdict) -> dict[str, str]:
        """Judges to_int, to_int64 and int i = x; ap's I < 0 conversions are undefined ('UB')."""
        if outputs['to_int'] == '-' and family == 'ac':
            return {}  # ac: the methods do not compile for I > 64
        value = shape.value(raw)
        judged = {}
        for column, bits in zip(INTEGER_COLUMNS, (32, 64, 32), strict=True):
            clean = exact.to_integer(value, bits, family)
            if family == 'ac':
                verdict.check(column, int(outputs[column]), clean)
                continue
            undefined = quirks.ap_toint_neg_i(shape)
            observed = undefined if undefined is not None else int(outputs[column])
            predicted = {'ap_toint_I0': quirks.ap_toint_i0(shape, raw), 'ap_toint_neg_I': undefined}
            verdict.check(column, observed, clean, predicted)
            judged[column] = str(observed)
        return judged
