"""Helpers of the robustness tests (bad inputs a hostile or careless user gives): `refused(...)` asserts a
clear error, a ValueError (or the named class) whose message names what it must name."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest


def refused(action: Callable[[], Any], *fragments: str, error: type[Exception] = ValueError) -> str:
    """Run `action`; it must raise `error` whose message contains every fragment (plain text, not a regex)."""
    with pytest.raises(error) as caught:
        action()
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f'{fragment!r} not in {message!r}'
    assert not re.search(r'Traceback|KeyError|AttributeError|object is not', message), message
    return message
