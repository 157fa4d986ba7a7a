"""Operators: fixed-point arithmetic and comparisons, integer arithmetic, shifts (files *_arith,
*_int_ops, *_shift)."""

from __future__ import annotations

import random

from fixed_golden import exact, quirks
from fixed_golden.common import (
    Case,
    Verdict,
    fixed_type,
    integer_type,
    random_raw,
    raw_text,
    raw_value,
    shape_columns,
    unique,
)
from fixed_golden.exact import Shape, integer_shape

# Hand-picked operand formats (equal, mixed signedness, I < 0, I > W, wide, 1-bit), then random ones.
FIXED_PAIRS = [
    ((8, 4, 1), (8, 4, 1)), ((8, 4, 1), (6, 2, 0)), ((6, 2, 0), (8, 4, 1)), ((6, 2, 0), (6, 2, 0)),
    ((4, 6, 1), (5, -2, 1)), ((1, 1, 1), (1, 1, 1)), ((1, 1, 0), (1, 1, 1)), ((1, 0, 1), (3, 3, 0)),
    ((16, 8, 0), (16, 8, 0)), ((33, 17, 1), (32, 16, 1)), ((70, 35, 1), (70, 35, 1)), ((64, 64, 0), (64, 0, 1)),
    ((12, -3, 1), (10, 14, 0)), ((33, 17, 1), (40, 20, 0)), ((40, 8, 0), (36, 30, 1)), ((32, 32, 1), (32, 32, 0)),
    ((70, 70, 0), (2, 1, 1)), ((48, -6, 1), (20, 28, 0)),
]  # fmt: skip
RANDOM_PAIRS = 190
FIXED_OPERATORS = ('add', 'sub', 'mul', 'div', 'lt', 'eq')
INTEGER_PAIRS = [
    (8, 1, 8, 1), (8, 1, 8, 0), (8, 0, 8, 1), (8, 0, 8, 0), (8, 1, 32, 0), (32, 1, 32, 0), (32, 0, 33, 1),
    (1, 1, 1, 1), (1, 0, 3, 1), (33, 1, 31, 0), (64, 0, 64, 1), (64, 1, 64, 0), (70, 1, 5, 1), (5, 0, 70, 1),
    (40, 1, 40, 0), (16, 0, 40, 1),
]  # fmt: skip
RANDOM_INTEGER_PAIRS = 56
INTEGER_OPERATORS = ('add', 'sub', 'mul', 'div', 'mod', 'lt', 'eq')


def random_fixed_shape(rng: random.Random) -> Shape:
    width = rng.randint(1, 16) if rng.random() < 0.5 else rng.randint(1, 70)
    return Shape(width, rng.randint(-6, width + 8), rng.random() < 0.6)


def random_integer_shape(rng: random.Random) -> Shape:
    width = rng.randint(1, 16) if rng.random() < 0.4 else rng.randint(1, 70)
    return integer_shape(width, rng.random() < 0.6)


def _same_value(a: Shape, raw: int, b: Shape) -> int | None:
    """The raw of `b` holding exactly the value of `raw` in `a`, if `b` can hold it."""
    shift = b.fraction - a.fraction
    if shift < 0 and raw % (1 << -shift):
        return None
    converted = raw << shift if shift >= 0 else raw >> -shift
    return converted if b.holds(converted) else None


def operand_pairs(rng: random.Random, a: Shape, b: Shape) -> list[tuple[int, int]]:
    """Random operands, the extremes (min / -1, max with max), and an equal pair when one exists."""
    pairs = [(random_raw(rng, a), random_raw(rng, b)), (random_raw(rng, a), random_raw(rng, b))]
    pairs.append((a.raw_min, -1 if b.signed else 1))
    pairs.append((a.raw_max, -1 if b.signed else 1))
    pairs.append((a.raw_max, b.raw_max if rng.random() < 0.5 else b.raw_min))
    first = random_raw(rng, a)
    equal = _same_value(a, first, b)
    pairs.append((first, equal if equal is not None else random_raw(rng, b)))
    return unique(pairs)


def _comparison_quirks(family: str, op: str, context: dict, integers: bool) -> dict[str, int | None]:
    """What ap's mixed-signedness `<` and (ap_int) `==` give instead of the exact comparison."""
    if family != 'ap':
        return {}
    operands = (context['a'], context['a_raw'], context['b'], context['b_raw'])
    if op == 'lt':
        predicted = quirks.ap_cmp_mixed_sign(*operands)
        return {'ap_cmp_mixed_sign': None if predicted is None else int(predicted)}
    predicted = quirks.ap_int_eq_mixed_sign(*operands) if integers else None
    return {'ap_int_eq_mixed_sign': None if predicted is None else int(predicted)}


def _judge_operator(family: str, op: str, context: dict, fields: list[str], integers: bool):
    """The verdict on one vendor result of `a op b`, and the result columns (Wr, Ir, Sr, r)."""
    a, a_raw, b, b_raw = context['a'], context['a_raw'], context['b'], context['b_raw']
    verdict = Verdict()
    try:
        clean_shape, clean_raw = exact.operate(op, a, a_raw, b, b_raw)
    except ValueError as error:  # the clean rule itself fails: report, never tag
        verdict.problems.append(str(error))
        return verdict, ('', '', '', fields[-1])
    if clean_shape is None:
        verdict.check('r', int(fields[0]), clean_raw, _comparison_quirks(family, op, context, integers))
        return verdict, ('', '', '', fields[0])
    width, integer, signed, raw = fields
    vendor_shape = Shape(int(width), int(integer), signed == '1')
    verdict.check('result type', vendor_shape, clean_shape)
    predicted = {}
    if family == 'ap' and integers:
        predicted['ap_int_divmod_mixed_sign'] = quirks.ap_int_divmod_mixed_sign(op, a, a_raw, b, b_raw)
    elif family == 'ap' and op == 'div':
        predicted['ap_fixed_div_overflow'] = quirks.ap_fixed_div_overflow(a, a_raw, b, b_raw)
    verdict.check('r', raw_value(vendor_shape, raw), clean_raw, predicted)
    return verdict, (width, integer, signed, raw)


class Arithmetic:
    name = 'arith'
    columns = ('op', 'W1', 'I1', 'S1', 'a', 'W2', 'I2', 'S2', 'b', 'Wr', 'Ir', 'Sr', 'r', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        pairs = [(Shape(a[0], a[1], bool(a[2])), Shape(b[0], b[1], bool(b[2]))) for a, b in FIXED_PAIRS]
        pairs += [(random_fixed_shape(rng), random_fixed_shape(rng)) for _ in range(RANDOM_PAIRS)]
        cases = []
        for a, b in pairs:
            operands = operand_pairs(rng, a, b)
            for a_raw, b_raw in operands:
                cases += [
                    self.make_case(family, op, a, a_raw, b, b_raw) for op in FIXED_OPERATORS if op != 'div' or b_raw
                ]
            cases += [self.make_case(family, 'neg', a, a_raw, None, 0) for a_raw in unique([operands[0][0], a.raw_min])]
        return cases

    def make_case(self, family: str, op: str, a: Shape, a_raw: int, b: Shape | None, b_raw: int) -> Case:
        a_type = fixed_type(family, a)
        b_type = fixed_type(family, b) if b is not None else a_type
        b_columns = (
            {**shape_columns(b, '2'), 'b': raw_text(b, b_raw)} if b else dict.fromkeys(('W2', 'I2', 'S2', 'b'), '')
        )
        inputs = {'op': op, **shape_columns(a, '1'), 'a': raw_text(a, a_raw), **b_columns}
        arguments = (inputs['a'], inputs['b'] or '0')
        context = {'a': a, 'a_raw': a_raw, 'b': b, 'b_raw': b_raw}
        return Case(f'op_{op}<{a_type}, {b_type} >', arguments, inputs, context)

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        context, op = case.context, case.inputs['op']
        verdict, result = _judge_operator(family, op, context, fields, integers=False)
        row = {**case.inputs, **dict(zip(('Wr', 'Ir', 'Sr', 'r'), result, strict=True))}
        return {**row, 'quirk': verdict.quirk(row)}


class IntegerOperators:
    name = 'int_ops'
    columns = ('op', 'W1', 'S1', 'a', 'W2', 'S2', 'b', 'Wr', 'Sr', 'r', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        pairs = [(integer_shape(w1, bool(s1)), integer_shape(w2, bool(s2))) for w1, s1, w2, s2 in INTEGER_PAIRS]
        pairs += [(random_integer_shape(rng), random_integer_shape(rng)) for _ in range(RANDOM_INTEGER_PAIRS)]
        cases = []
        for a, b in pairs:
            for a_raw, b_raw in operand_pairs(rng, a, b) + [(-1 if a.signed else a.raw_max, random_raw(rng, b))]:
                for op in INTEGER_OPERATORS:
                    if op not in ('div', 'mod') or b_raw:
                        cases.append(self.make_case(family, op, a, a_raw, b, b_raw))
        return cases

    def make_case(self, family: str, op: str, a: Shape, a_raw: int, b: Shape, b_raw: int) -> Case:
        inputs = {
            'op': op,
            'W1': str(a.width),
            'S1': str(int(a.signed)),
            'a': raw_text(a, a_raw),
            'W2': str(b.width),
            'S2': str(int(b.signed)),
            'b': raw_text(b, b_raw),
        }
        context = {'a': a, 'a_raw': a_raw, 'b': b, 'b_raw': b_raw}
        entry = f'op_{op}<{integer_type(family, a)}, {integer_type(family, b)} >'
        return Case(entry, (inputs['a'], inputs['b']), inputs, context)

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        context, op = case.context, case.inputs['op']
        verdict, result = _judge_operator(family, op, context, fields, integers=True)
        row = {**case.inputs, 'Wr': result[0], 'Sr': result[2], 'r': result[3]}
        return {**row, 'quirk': verdict.quirk(row)}


SHIFT_SHAPES = [
    (1, 1, 1), (3, 3, 0), (4, 2, 1), (4, 2, 0), (8, 4, 1), (8, 4, 0), (8, -2, 1), (8, 12, 0), (16, 8, 1),
    (31, 10, 1), (32, 16, 0), (33, 16, 1), (64, 32, 1), (65, 30, 0), (70, 35, 1),
]  # fmt: skip


def shift_amounts(rng: random.Random, width: int) -> list[int]:
    """Amounts from -W-1 to W+5: zero, small ones both ways, around W, and a few random ones."""
    fixed = [-width - 1, -width, -width + 1, -3, -2, -1, 0, 1, 2, 3, width // 2, width - 1, width, width + 1, width + 5]
    return unique(fixed + [rng.randint(-width - 2, width + 5) for _ in range(3)])


class Shifts:
    name = 'shift'
    columns = ('W', 'I', 'S', 'raw', 'k', 'shl', 'shr', 'quirk')

    def cases(self, family: str, rng: random.Random) -> list[Case]:
        cases = []
        for width, integer, signed in SHIFT_SHAPES:
            shape = Shape(width, integer, bool(signed))
            raws = unique([shape.raw_min if signed else shape.raw_max, random_raw(rng, shape), random_raw(rng, shape)])
            cases += [
                self.make_case(family, shape, raw, amount) for raw in raws for amount in shift_amounts(rng, width)
            ]
        return cases

    def make_case(self, family: str, shape: Shape, raw: int, amount: int) -> Case:
        inputs = {**shape_columns(shape), 'raw': raw_text(shape, raw), 'k': str(amount)}
        entry = f'shifts<{fixed_type(family, shape)} >'
        return Case(entry, (inputs['raw'], inputs['k']), inputs, {'shape': shape, 'raw': raw})

    def finish(self, family: str, case: Case, fields: list[str]) -> dict[str, str]:
        left, right = fields
        shape, raw, amount = case.context['shape'], case.context['raw'], int(case.inputs['k'])
        verdict = Verdict()
        verdict.check('shl', raw_value(shape, left), exact.shift(shape, raw, amount, left=True))
        verdict.check('shr', raw_value(shape, right), exact.shift(shape, raw, amount, left=False))
        row = {**case.inputs, 'shl': left, 'shr': right}
        return {**row, 'quirk': verdict.quirk(row)}
