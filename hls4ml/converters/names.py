"""Framework layer names become C++ identifiers and file names: sanitise and de-duplicate them.

Names are untrusted: `../../etc`, `my layer`, `1st`, `int` or a 300-character name must all turn
into short, unique, valid identifiers that cannot escape the output directory.
"""

from __future__ import annotations

import re

CPP_KEYWORDS = frozenset(
    'alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t class '
    'compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum '
    'explicit export extern false float for friend goto if inline int long mutable namespace new noexcept '
    'not not_eq nullptr operator or or_eq private protected public register reinterpret_cast return short '
    'signed sizeof static static_assert static_cast struct switch template this thread_local throw true try '
    'typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq main'.split()
)
MAX_LENGTH = 48


class NameTable:
    """Hands out unique identifiers for framework names, remembering which name became which."""

    def __init__(self, reserved: tuple[str, ...] = ()) -> None:
        self.taken: set[str] = set(reserved)
        self.origin: dict[str, str] = {}

    def add(self, raw_name: str) -> str:
        base = sanitize(raw_name)
        candidate, counter = base, 1
        while candidate in self.taken:
            counter += 1
            candidate = f'{base}_{counter}'
        self.taken.add(candidate)
        self.origin[candidate] = raw_name
        return candidate


def sanitize(raw_name: str) -> str:
    """A valid, short C++ identifier made from `raw_name` (never empty, never a keyword)."""
    name = re.sub(r'[^0-9A-Za-z_]', '_', str(raw_name))
    name = re.sub(r'_+', '_', name).strip('_') or 'layer'
    if name[0].isdigit():
        name = f'layer_{name}'
    if name in CPP_KEYWORDS or name.startswith('__'):
        name = f'layer_{name}'
    return name[:MAX_LENGTH].rstrip('_') or 'layer'
