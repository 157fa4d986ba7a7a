"""The constant arrays' printed values (hls4ml/backends/common/records.py): exact, laid out as the
weights header continues its `#define`, and printed once per process for the same doubles."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.backends.common import records
from hls4ml.backends.common.records import VALUES_PER_ROW, const_array, printed_values
from hls4ml.model.types import FixedPrecisionType


def _one_by_one(doubles: np.ndarray) -> str:
    """The layout printed value by value, as the header template once did (the reference)."""
    texts = ['0' if value == 0 else repr(value).removesuffix('.0') for value in doubles.tolist()]
    rows = [', '.join(texts[start : start + VALUES_PER_ROW]) for start in range(0, len(texts), VALUES_PER_ROW)]
    return ''.join('\n    ' + row + (', \\' if index < len(rows) - 1 else '') for index, row in enumerate(rows))


@pytest.mark.parametrize('count', [0, 1, VALUES_PER_ROW, VALUES_PER_ROW + 3, 1000])
def test_printed_values_match_printing_each_value(count: int) -> None:
    rng = np.random.default_rng(count)
    doubles = np.round(rng.uniform(-8, 8, count) * 1024) / 1024
    doubles[: count // 3] = 0.0
    doubles[count // 3 : count // 2] = -0.0  # prints '0' as 0.0 does
    assert printed_values(doubles) == _one_by_one(doubles)


def test_printed_values_round_trip_to_the_same_doubles() -> None:
    array = const_array('w1', 'w_t', np.linspace(-3, 3, 77), FixedPrecisionType(18, 3), 'ap', 'test layer')
    text = array.value_lines
    parsed = np.array([float(item) for item in text.replace('\\', '').replace('\n', '').split(',')])
    assert np.array_equal(parsed, array.doubles) and array.size == 77


def test_the_same_doubles_are_printed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    memo = records._PrintedMemo(records.PRINTED_MEMO_CHARACTERS)
    monkeypatch.setattr(records, '_PRINTED', memo)
    calls = []
    original = records._print_rows
    monkeypatch.setattr(records, '_print_rows', lambda doubles: calls.append(1) or original(doubles))
    doubles = np.arange(100) / 8.0
    first = printed_values(doubles)
    assert printed_values(doubles.copy()) == first and len(calls) == 1
    assert printed_values(doubles + 1 / 8) != first and len(calls) == 2  # other bytes, printed again


def test_the_memo_keeps_its_bound_oldest_out_first() -> None:
    memo = records._PrintedMemo(limit=10)
    memo.put(b'a', 'x' * 4)
    memo.put(b'b', 'y' * 4)
    assert memo.get(b'a') == 'xxxx'  # now the most recently used
    memo.put(b'c', 'z' * 4)  # 12 characters: the least recently used ('b') goes
    assert memo.get(b'b') is None and memo.get(b'a') == 'xxxx' and memo.get(b'c') == 'zzzz'
    memo.put(b'd', 'w' * 11)  # larger than the whole memo: not kept, nothing evicted for it
    assert memo.get(b'd') is None and memo.characters == 8
