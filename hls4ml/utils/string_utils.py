"""hls4ml 1.x's `hls4ml.utils.string_utils`: the case conversions between config keys (PascalCase) and layer
attributes (snake_case)."""

from __future__ import annotations

import re

_WORD_START = re.compile(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])')


def convert_to_snake_case(pascal_case: str) -> str:
    """'ReuseFactor' -> 'reuse_factor', 'IOType' -> 'io_type'."""
    return _WORD_START.sub('_', pascal_case).lower()


def convert_to_pascal_case(snake_case: str) -> str:
    """'reuse_factor' -> 'ReuseFactor'."""
    return ''.join(word[:1].upper() + word[1:] for word in snake_case.split('_'))
