"""Quoting a value for the build scripts the templates write (Tcl, CMake), so that it stays one literal
word whatever it holds: the second line of defence after the checks of `backends/script_values.py`.

A value made only of letters, digits and `_ . + - / : % ,` is written bare, as before (readable, and
the same bytes as an unquoted value); anything else is written as a double-quoted string in which
every character the language would substitute is escaped, so `xcvu9p[exec touch X]` stays a part
name and never runs `exec`. The templates call these through `ProjectContext.tcl`/`.cmake`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

BARE = re.compile(r'[A-Za-z0-9_.+\-/:%,]+')  # needs no quoting in Tcl or CMake, matched whole

# Inside Tcl double quotes `$`, `[` and `\` substitute and `"` ends the word; braces are escaped too,
# so the word also reads right to a tool that re-parses it as a list. Control characters become \uXXXX.
TCL_ESCAPES = {character: '\\' + character for character in '\\"$[]{}'}

# Inside a CMake quoted argument `\` escapes, `${` / `$ENV{` substitute and `"` ends it. A `;` cannot be
# written at all: it separates list elements wherever the value is expanded into a list (the device flags),
# and `\;` keeps its backslash, so a value holding one is refused (as are control characters).
CMAKE_ESCAPES = {'\\': '\\\\', '"': '\\"', '$': '\\$', '\n': '\\n', '\r': '\\r', '\t': '\\t'}


def _text(value: Any) -> str:
    """Numbers as Python prints them (5, 4.5), None as the empty word."""
    return '' if value is None else str(value)


def tcl_word(value: Any) -> str:
    """One Tcl word whose value is `value`, literally (no command, variable or backslash substitution)."""
    text = _text(value)
    if BARE.fullmatch(text):
        return text
    escaped = ''.join(
        TCL_ESCAPES.get(character, f'\\u{ord(character):04x}' if _control(character) else character)
        for character in text
    )
    return f'"{escaped}"'


def tcl_words(values: Iterable[Any]) -> str:
    """Several Tcl words separated by spaces (e.g. the elements of a `[list ...]`)."""
    return ' '.join(tcl_word(value) for value in values)


def cmake_argument(value: Any) -> str:
    """One CMake argument whose value is `value`, literally (no variable reference); ValueError for a
    value CMake cannot hold as one list element (a `;`, a control character other than tab and newline)."""
    text = _text(value)
    if BARE.fullmatch(text):
        return text
    unwritable = sorted({repr(c) for c in text if c == ';' or (_control(c) and c not in CMAKE_ESCAPES)})
    if unwritable:
        raise ValueError(f'{text!r} cannot be written into CMakeLists.txt: it holds {", ".join(unwritable)}')
    return '"' + ''.join(CMAKE_ESCAPES.get(character, character) for character in text) + '"'


def _control(character: str) -> bool:
    return ord(character) < 32 or ord(character) == 127
