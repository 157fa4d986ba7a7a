"""Judge the rows of another golden set (same format) with this generator's rules.

Each row is turned back into the case and the driver output it records, and run through the same
`finish` as a freshly generated row: the result must reproduce the row (every column, the quirk tag
included). This checks our independent rules against vendor vectors made elsewhere, e.g. the
original set the project's tests used before these files existed.
"""

from __future__ import annotations

import csv
from pathlib import Path

from fixed_golden.common import Case, Finding, raw_value
from fixed_golden.exact import Modes, Shape, integer_shape


def _shape(row: dict[str, str], suffix: str = '') -> Shape:
    return Shape(int(row[f'W{suffix}']), int(row[f'I{suffix}']), row[f'S{suffix}'] == '1')


def _modes(row: dict[str, str]) -> Modes:
    return Modes(row['Q'], row['O'], int(row['N']))


def _operands(row: dict[str, str], integers: bool) -> tuple[Shape, int, Shape | None, int]:
    def shape(side: str) -> Shape:
        return integer_shape(int(row[f'W{side}']), row[f'S{side}'] == '1') if integers else _shape(row, side)

    a = shape('1')
    b = shape('2') if row['op'] != 'neg' else None
    return a, raw_value(a, row['a']), b, raw_value(b, row['b']) if b else 0


def _result_fields(row: dict[str, str], integers: bool) -> list[str]:
    if row['op'] in ('lt', 'eq'):
        return [row['r']]
    return [row['Wr'], row['Wr'] if integers else row['Ir'], row['Sr'], row['r']]


def case_of(kind, family: str, row: dict[str, str]) -> tuple[Case, list[str]]:
    """The case a row records and the driver output that would have produced it."""
    if kind.name == 'cast_double':
        return kind.make_case(family, _shape(row), _modes(row), float.fromhex(row['x'])), [
            row['raw'],
            row['d'],
            row['x'],
        ]
    if kind.name == 'cast_fixed':
        source = _shape(row, '2')
        case = kind.make_case(family, source, row['O2'], _shape(row), _modes(row), raw_value(source, row['x_raw']))
        return case, [row['raw']]
    if kind.name in ('arith', 'int_ops'):
        integers = kind.name == 'int_ops'
        return kind.make_case(family, row['op'], *_operands(row, integers)), _result_fields(row, integers)
    if kind.name == 'conv':
        shape = _shape(row)
        fields = ['-' if row[column] == 'UB' else row[column] for column in kind.columns[4:-1]]
        return kind.make_case(family, shape, raw_value(shape, row['raw'])), fields
    if kind.name == 'shift':
        shape = _shape(row)
        return kind.make_case(family, shape, raw_value(shape, row['raw']), int(row['k'])), [row['shl'], row['shr']]
    shape = integer_shape(int(row['W']), row['S'] == '1')
    return kind.make_case(family, shape, float.fromhex(row['x'])), [row['raw'], row['x']]


def cross_check(kind, family: str, path: Path) -> tuple[int, list[str]]:
    """The number of rows of a file and the disagreements with our rules."""
    with open(path, newline='') as handle:
        rows = list(csv.DictReader(handle))
    disagreements = []
    for row in rows:
        case, fields = case_of(kind, family, row)
        try:
            judged = kind.finish(family, case, fields)
        except Finding as finding:
            disagreements.append(f'no rule explains {finding}')
            continue
        different = [column for column in kind.columns if judged[column] != row[column]]
        if different:
            disagreements.append(f'{different}: ours {[judged[c] for c in different]} in {row}')
    return len(rows), disagreements
