"""docs/quantization.md keeps its promises: every feature table has a valid status per row and names a
test function that exists (found with `ast`, nothing is imported)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / 'docs' / 'quantization.md'
HEADER = ('feature', 'status', 'test')
STATUSES = ('exact', 'bounded', 'refused')


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip('|').split('|')]


def feature_rows(text: str) -> list[tuple[str, str, list[str]]]:
    """(section, line, cells) of every row of every `| feature | status | test |` table."""
    rows, section, in_table = [], '', False
    for line in text.splitlines():
        if line.startswith('## '):
            section = line[3:].strip()
        if not line.lstrip().startswith('|'):
            in_table = False
            continue
        row = cells(line)
        if tuple(cell.lower() for cell in row) == HEADER:
            in_table = True
        elif in_table and not all(set(cell) <= set('-: ') for cell in row):
            rows.append((section, line.strip(), row))
    return rows


@cache
def defined_names(path: Path) -> frozenset[str]:
    """`function` and `Class::method` of every (async) function defined in the file."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = (ast.FunctionDef, ast.AsyncFunctionDef)
            names.update(f'{node.name}::{item.name}' for item in node.body if isinstance(item, methods))
    return frozenset(names)


ROWS = feature_rows(DOC.read_text())


def test_the_doc_has_feature_tables_under_library_sections() -> None:
    assert ROWS, 'docs/quantization.md has no | feature | status | test | table'
    assert all(section for section, _, _ in ROWS), 'every table belongs to a "## <Library>" section'


@pytest.mark.parametrize('section, line, row', ROWS, ids=[f'{section}: {row[0]}' for section, _, row in ROWS])
def test_each_row_has_a_valid_status_and_an_existing_test(section: str, line: str, row: list[str]) -> None:
    assert len(row) == 3, f'{section}: a row has three cells: {line}'
    feature, status, test = row
    assert feature, f'{section}: a row without a feature: {line}'
    assert status in STATUSES, f'{section}: status {status!r} is not one of {", ".join(STATUSES)}: {line}'
    match = re.fullmatch(r'`?([\w/.-]+\.py)::([\w:]+?)(\[.*\])?`?', test)
    assert match, f'{section}: the test cell must read path/to/test_file.py::test_function: {line}'
    path = REPO / match.group(1)
    assert path.is_file(), f'{section}: {match.group(1)} does not exist: {line}'
    assert match.group(2) in defined_names(path), f'{section}: {match.group(1)} defines no {match.group(2)}: {line}'


def test_the_checker_sees_bad_rows() -> None:
    text = '## Lib\n\n| feature | status | test |\n| --- | --- | --- |\n| a | maybe | x.py::f |\n\nprose | not a row\n'
    assert feature_rows(text) == [('Lib', '| a | maybe | x.py::f |', ['a', 'maybe', 'x.py::f'])]
