"""The numpy twin against every vendor golden vector (test/data/fixed_golden): 0 mismatches.

Rows tagged with a vendor quirk (fixed-point.md section 12; all tags: test/data/fixed_golden/README.md)
are skipped and counted; the twin implements the clean rules. String columns of *_conv.csv belong
to the C++ headers' to_string and are checked there (test/csim/fixed).
"""

from __future__ import annotations

import numpy as np
import pytest
from golden import GOLDEN_FILES, Tally, group_rows, load_rows, raw_to_int

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.types import FixedPrecisionType, IntegerPrecisionType


def _fixed(width: str, integer: str, signed: str, q: str = 'TRN', o: str = 'WRAP', n: str = '0'):
    return FixedPrecisionType(int(width), int(integer), signed == '1', q, o, int(n))


def _hex_double(value: float) -> str:
    return float(value).hex()


def _clean_rows(tally: Tally, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    clean = [row for row in rows if not row['quirk']]
    tally.skipped += len(rows) - len(clean)
    tally.checked += len(clean)
    return clean


def check_cast_double(tally: Tally, rows: list[dict[str, str]], family: str) -> None:
    for key, group in group_rows(_clean_rows(tally, rows), ('W', 'I', 'S', 'Q', 'O', 'N')).items():
        target = _fixed(*key)
        x = np.array([float.fromhex(row['x']) for row in group])
        result = quantize(x, target, family)
        doubles = result.to_double()
        for row, raw, double in zip(group, result.raw.tolist(), doubles.tolist(), strict=True):
            tally.compare(row, 'raw', raw, raw_to_int(row['raw'], target.width, target.signed))
            tally.compare(row, 'to_double', _hex_double(double), _hex_double(float.fromhex(row['d'])))


def check_cast_fixed(tally: Tally, rows: list[dict[str, str]], family: str) -> None:
    keys = ('W2', 'I2', 'S2', 'W', 'I', 'S', 'Q', 'O', 'N')
    for key, group in group_rows(_clean_rows(tally, rows), keys).items():
        source, target = _fixed(*key[:3]), _fixed(*key[3:])
        raws = [raw_to_int(row['x_raw'], source.width, source.signed) for row in group]
        result = FixedArray.from_raw(np.array(raws, dtype=object), source, family).cast(target)
        for row, raw in zip(group, result.raw.tolist(), strict=True):
            tally.compare(row, 'raw', raw, raw_to_int(row['raw'], target.width, target.signed))


def _operand(row: dict[str, str], side: str, family: str, integer: bool) -> FixedArray:
    width, signed = int(row[f'W{side}']), row[f'S{side}'] == '1'
    precision = (
        IntegerPrecisionType(width, signed) if integer else _fixed(row[f'W{side}'], row[f'I{side}'], row[f'S{side}'])
    )
    raw = raw_to_int(row['a' if side == '1' else 'b'], width, signed)
    return FixedArray.from_raw(np.array([raw], dtype=object), precision, family)


def _apply(op: str, a: FixedArray, b: FixedArray | None):
    operations = {
        'add': lambda: a + b,
        'sub': lambda: a - b,
        'mul': lambda: a * b,
        'div': lambda: a / b,
        'mod': lambda: a % b,
        'neg': lambda: -a,
        'lt': lambda: a < b,
        'eq': lambda: a == b,
    }
    return operations[op]()


def check_arith(tally: Tally, rows: list[dict[str, str]], family: str, integer: bool = False) -> None:
    for row in _clean_rows(tally, rows):
        a = _operand(row, '1', family, integer)
        b = None if row['op'] == 'neg' else _operand(row, '2', family, integer)
        result = _apply(row['op'], a, b)
        if row['op'] in ('lt', 'eq'):
            tally.compare(row, 'bool', int(result[0]), int(row['r']))
            continue
        width, signed = int(row['Wr']), row['Sr'] == '1'
        got_type = (result.type.width, result.type.signed) + (() if integer else (result.type.integer,))
        expected_type = (width, signed) + (() if integer else (int(row['Ir']),))
        tally.compare(row, 'result type', got_type, expected_type)
        tally.compare(row, 'raw', int(result.raw[0]), raw_to_int(row['r'], width, signed))


def check_conv(tally: Tally, rows: list[dict[str, str]], family: str) -> None:
    for row in _clean_rows(tally, rows):
        value = FixedArray.from_raw(
            np.array([raw_to_int(row['raw'], int(row['W']), row['S'] == '1')], dtype=object),
            _fixed(row['W'], row['I'], row['S']),
            family,
        )
        tally.compare(row, 'to_double', _hex_double(value.to_double()[0]), _hex_double(float.fromhex(row['to_double'])))
        if row['to_float'] != '-':
            tally.compare(
                row, 'to_float', _hex_double(value.to_float()[0]), _hex_double(float.fromhex(row['to_float']))
            )
        for column, bits in (('to_int', 32), ('to_int64', 64), ('int_implicit', 32)):
            if row[column] not in ('-', 'UB'):
                tally.compare(row, column, int(value.to_int(bits)[0]), int(row[column]))


def check_shift(tally: Tally, rows: list[dict[str, str]], family: str) -> None:
    for key, group in group_rows(_clean_rows(tally, rows), ('W', 'I', 'S')).items():
        precision = _fixed(*key)
        raws = np.array([raw_to_int(row['raw'], precision.width, precision.signed) for row in group], dtype=object)
        amounts = np.array([int(row['k']) for row in group])
        value = FixedArray.from_raw(raws, precision, family)
        for column, result in (('shl', value << amounts), ('shr', value >> amounts)):
            for row, raw in zip(group, result.raw.tolist(), strict=True):
                tally.compare(row, column, raw, raw_to_int(row[column], precision.width, precision.signed))


def check_int_cast_double(tally: Tally, rows: list[dict[str, str]], family: str) -> None:
    for key, group in group_rows(_clean_rows(tally, rows), ('W', 'S')).items():
        target = IntegerPrecisionType(int(key[0]), key[1] == '1')
        result = quantize(np.array([float.fromhex(row['x']) for row in group]), target, family)
        for row, raw in zip(group, result.raw.tolist(), strict=True):
            tally.compare(row, 'raw', raw, raw_to_int(row['raw'], target.width, target.signed))


CHECKS = {
    'cast_double': check_cast_double,
    'cast_fixed': check_cast_fixed,
    'arith': check_arith,
    'conv': check_conv,
    'shift': check_shift,
    'int_cast_double': check_int_cast_double,
    'int_ops': lambda tally, rows, family: check_arith(tally, rows, family, integer=True),
}


@pytest.mark.parametrize('name', GOLDEN_FILES)
def test_twin_matches_golden_vectors(name: str, record_property) -> None:
    tally = Tally(f'python twin   {name}')
    CHECKS[name[3:-4]](tally, load_rows(name), name[:2])
    record_property('golden', tally.summary())
    assert tally.checked > 0
    assert not tally.mismatches, tally.failure_message()


def test_every_golden_file_has_a_check() -> None:
    assert len(GOLDEN_FILES) == 14
    assert {name[3:-4] for name in GOLDEN_FILES} == set(CHECKS)
