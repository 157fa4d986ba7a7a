"""Loading the fixed-point golden vectors of `test/data/fixed_golden/` (format: its README).

The vectors are test data of the repository, produced from the real vendor headers by
`scripts/make_fixed_golden.py`; the tests only read them.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent / 'data' / 'fixed_golden'
GOLDEN_FILES = sorted(path.name for path in GOLDEN_DIR.glob('*.csv'))


def load_rows(name: str) -> list[dict[str, str]]:
    with open(GOLDEN_DIR / name, newline='') as handle:
        return list(csv.DictReader(handle))


def raw_to_int(text: str, width: int, signed: bool) -> int:
    """The golden raw-bit field (lower-case hex of the W-bit pattern) as a signed or unsigned integer."""
    value = int(text, 16)
    return value - (1 << width) if signed and value >> (width - 1) else value


def group_rows(rows: list[dict[str, str]], keys: tuple[str, ...]) -> dict[tuple, list[dict[str, str]]]:
    groups: dict[tuple, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[tuple(row[key] for key in keys)].append(row)
    return groups


@dataclass
class Tally:
    """Counts of one golden file: rows compared, rows skipped as vendor quirks, mismatches."""

    name: str
    checked: int = 0
    skipped: int = 0
    mismatches: list[str] = field(default_factory=list)

    def compare(self, row: dict[str, str], what: str, got: object, expected: object) -> None:
        if got != expected:
            self.mismatches.append(f'{what}: got {got!r}, expected {expected!r} in row {row}')

    def summary(self) -> str:
        return (
            f'{self.name}: {self.checked} rows checked, {self.skipped} skipped (vendor quirk), '
            f'{len(self.mismatches)} mismatched'
        )

    def failure_message(self) -> str:
        return '\n'.join([self.summary(), *self.mismatches[:10]])
