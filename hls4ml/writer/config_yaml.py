"""The project's `hls4ml_config.yml`, written without PyYAML.

PyYAML's import was 13 ms of the 0.17 s that the first conversion and write of a small MLP take in a fresh
process (docs/performance.md, "Conversion"), for one small file. This writes the configuration's plain data
(mappings with string keys, lists, strings, numbers, booleans, None) in PyYAML's block style with sorted
keys, as `yaml.safe_dump(..., sort_keys=True, default_flow_style=False)` did: the same text for the values
a configuration holds, and `yaml.safe_load` gives the data back (test/unit/writer/test_config_yaml.py).
A string that could read as anything else (a number, a boolean, null, an indicator) is quoted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

# What YAML 1.1 (PyYAML's resolver) reads as something else than a string, when plain: booleans, null, the
# merge and value keys, and (IMPLICIT) its ints, floats and timestamps. Those strings are quoted.
SPECIAL_WORDS = frozenset(
    [
        word
        for base in ('yes', 'no', 'true', 'false', 'on', 'off', 'null')
        for word in (base, base.capitalize(), base.upper())
    ]
    + ['<<', '=']
)
IMPLICIT = re.compile(
    r'[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+'
    r'|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?'
    r'|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)'
    r'|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?'
    r'(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?'
)
PLAIN = re.compile(r'[A-Za-z0-9_</][A-Za-z0-9_<>,.%/+()=*\[\]{} -]*')


def config_yaml(config: Mapping[str, Any]) -> str:
    """`config` as a YAML document."""
    return ''.join(f'{line}\n' for line in _mapping(config, 0, 'the configuration'))


def _mapping(mapping: Mapping[str, Any], indent: int, where: str) -> list[str]:
    lines = []
    pad = ' ' * indent
    for key in sorted(mapping):
        if not isinstance(key, str):
            raise ValueError(f'{where}: the key {key!r} is not a string; the project configuration cannot hold it')
        value, inner = mapping[key], f'{where}[{key!r}]'
        if isinstance(value, Mapping) and value:
            lines += [f'{pad}{_scalar(key, where)}:', *_mapping(value, indent + 2, inner)]
        elif isinstance(value, list) and value:
            lines += [f'{pad}{_scalar(key, where)}:', *_sequence(value, indent, inner)]
        else:
            lines.append(f'{pad}{_scalar(key, where)}: {_leaf(value, inner)}')
    return lines


def _sequence(items: list, indent: int, where: str) -> list[str]:
    """Block sequence items at `indent` (PyYAML does not indent a mapping's sequence): `- item`, and nested
    collections continue on the dash's line."""
    lines = []
    pad = ' ' * indent
    for index, item in enumerate(items):
        inner = f'{where}[{index}]'
        if isinstance(item, Mapping) and item:
            nested = _mapping(item, indent + 2, inner)
        elif isinstance(item, list) and item:
            nested = _sequence(item, indent + 2, inner)
        else:
            lines.append(f'{pad}- {_leaf(item, inner)}')
            continue
        lines += [f'{pad}- {nested[0].lstrip()}', *nested[1:]]
    return lines


def _leaf(value: Any, where: str) -> str:
    if isinstance(value, Mapping):
        return '{}'
    if isinstance(value, list):
        return '[]'
    return _scalar(value, where)


def _scalar(value: Any, where: str) -> str:
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    raise ValueError(
        f'{where} = {value!r}: a {type(value).__name__} cannot be written into the project configuration '
        '(strings, numbers, booleans, None, lists and mappings can)'
    )


def _float(value: float) -> str:
    if math.isnan(value):
        return '.nan'
    if math.isinf(value):
        return '.inf' if value > 0 else '-.inf'
    text = repr(value).lower()
    if '.' not in text and 'e' in text:  # 1e-05: YAML 1.1 reads a float with a dot only
        text = text.replace('e', '.0e', 1)
    return text


def _string(text: str) -> str:
    plain = PLAIN.fullmatch(text) and not text.endswith(' ') and text not in SPECIAL_WORDS
    if plain and not IMPLICIT.fullmatch(text):
        return text
    if text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)  # a JSON string is a double-quoted YAML scalar, escapes included
