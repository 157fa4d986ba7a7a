#!/usr/bin/env python3
"""Generate the fixed-point golden vectors of test/data/fixed_golden from the real vendor headers.

For each file (ap or ac x cast_double, cast_fixed, arith, conv, shift, int_cast_double, int_ops) the
cases are built from fixed seeds, a C++ driver is rendered (scripts/fixed_golden/driver.cpp.j2) and
compiled with g++ against the vendor headers that test/vendor.py fetches (the hls4ml 1.3.0 wheel),
and every row is run through the driver. Each vendor result is then judged by the generator's own
exact rules (scripts/fixed_golden/exact.py, quirks.py): it must follow the clean rule (quirk column
empty) or a named vendor quirk (quirk column = its tag). A row that follows neither is a finding:
it is printed and the file is NOT written (exit status 1).

    python scripts/make_fixed_golden.py                 # all 14 files into test/data/fixed_golden
    python scripts/make_fixed_golden.py --only ap_arith --output /tmp/golden
    python scripts/make_fixed_golden.py --check         # regenerate in memory, compare byte for byte
    python scripts/make_fixed_golden.py --cross-check DIR  # judge another golden set with our rules

Generation is not part of the test suite; the tests only read the committed CSV files.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / 'scripts'))
sys.path.insert(0, str(REPOSITORY / 'test'))

from fixed_golden import driver  # noqa: E402
from fixed_golden.casts import CastDouble, CastFixed, IntegerCastDouble  # noqa: E402
from fixed_golden.common import Finding  # noqa: E402
from fixed_golden.conversions import Conversions  # noqa: E402
from fixed_golden.crosscheck import cross_check  # noqa: E402
from fixed_golden.operators import Arithmetic, IntegerOperators, Shifts  # noqa: E402
from vendor import WHEEL, vendor_headers, why_missing  # noqa: E402

KINDS = [CastDouble(), CastFixed(), Arithmetic(), Conversions(), Shifts(), IntegerCastDouble(), IntegerOperators()]
FAMILIES = ('ap', 'ac')
DEFAULT_OUTPUT = REPOSITORY / 'test' / 'data' / 'fixed_golden'
DEFAULT_CACHE = Path.home() / '.cache' / 'hls4ml' / 'golden-drivers'


def generate(family: str, kind, include: Path, cache: Path) -> tuple[str, list[str]]:
    """The CSV text of one file, and the findings (rows no rule explains)."""
    cases = kind.cases(family, random.Random(f'{family}_{kind.name}'))
    entries: dict[str, int] = {}
    lines = [' '.join((str(entries.setdefault(case.entry, len(entries))), *case.arguments)) for case in cases]
    source = driver.render(family, list(entries))
    outputs = driver.run(driver.build(source, include, cache, f'{family}_{kind.name}'), lines)
    rows, findings = [','.join(kind.columns)], []
    for case, output in zip(cases, outputs, strict=True):
        try:
            row = kind.finish(family, case, output.split(' '))
        except Finding as finding:
            findings.append(str(finding))
            continue
        fields = [row[column] for column in kind.columns]
        assert not any(',' in field for field in fields), row
        rows.append(','.join(fields))
    return '\n'.join(rows) + '\n', findings


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output', type=Path, default=DEFAULT_OUTPUT, help='folder for the CSV files')
    parser.add_argument('--only', nargs='*', default=[], help='file names without .csv, e.g. ap_arith')
    parser.add_argument('--check', action='store_true', help='compare with the files in --output, write nothing')
    parser.add_argument('--cache', type=Path, default=DEFAULT_CACHE, help='compiled drivers are kept here')
    parser.add_argument('--cross-check', type=Path, help='judge the files of another golden set, compile nothing')
    return parser.parse_args()


def main() -> int:
    arguments = _arguments()
    if arguments.cross_check:
        return _cross_check(arguments.cross_check, arguments.only)
    status = 0
    for family in FAMILIES:
        include = vendor_headers(family)
        if include is None:
            print(f'no {family} vendor headers: {why_missing()}', file=sys.stderr)
            return 2
        for kind in KINDS:
            name = f'{family}_{kind.name}'
            if arguments.only and name not in arguments.only:
                continue
            status |= _one_file(name, family, kind, include, arguments)
    return status


def _one_file(name: str, family: str, kind, include: Path, arguments: argparse.Namespace) -> int:
    start = time.time()
    text, findings = generate(family, kind, include, arguments.cache)
    rows = text.count('\n') - 1
    tagged = sum(1 for line in text.splitlines()[1:] if not line.endswith(','))
    summary = f'{name}.csv: {rows} rows, {tagged} tagged with a quirk ({time.time() - start:.1f} s, {WHEEL})'
    path = arguments.output / f'{name}.csv'
    if findings:
        print(f'{summary}\n  {len(findings)} FINDINGS (rows no rule explains), file not written:', file=sys.stderr)
        for finding in findings:
            print(f'  {finding}', file=sys.stderr)
        return 1
    if arguments.check:
        same = path.is_file() and path.read_text() == text
        print(f'{summary}: {"identical to" if same else "DIFFERS from"} {path}')
        return 0 if same else 1
    arguments.output.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(summary)
    return 0


def _cross_check(folder: Path, only: list[str]) -> int:
    status = 0
    for family in FAMILIES:
        for kind in KINDS:
            name = f'{family}_{kind.name}'
            if (only and name not in only) or not (folder / f'{name}.csv').is_file():
                continue
            count, disagreements = cross_check(kind, family, folder / f'{name}.csv')
            tags = sum(1 for disagreement in disagreements if disagreement.startswith("['quirk']"))
            print(f'{name}.csv: {count} rows, {len(disagreements)} disagree with our rules ({tags} only in the tag)')
            for disagreement in disagreements[:20]:
                print(f'  {disagreement}')
            status |= bool(disagreements)
    return status


if __name__ == '__main__':
    sys.exit(main())
