"""Framework layer names become C++ identifiers and file names: sanitise and de-duplicate them.

Names are untrusted: `../../etc`, `my layer`, `1st`, `int` or a 300-character name must all turn
into short, unique, valid identifiers that cannot escape the output directory.
"""

from __future__ import annotations

import re
from typing import Any

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


# The project name is the one user-chosen identifier in the generated C++ (layer and tensor names only
# appear in comments: every generated identifier is index-based, docs/design.md). These are the names the
# generated code and the headers it includes define at global scope whatever the model, compared without
# case because header guards and macros are the upper-cased names: namespaces and macro prefixes (nnet,
# hls, hls4ml, ap_/ac_ of both fixed-point families, std, sycl, Catapult's ccs/mc), the project's own
# headers (defines, parameters), the typedef suffix _t (reserved by POSIX too: size_t, uint8_t), names
# C++ reserves for the implementation (a double underscore, _ and a capital), the C library's macros
# that look like names (stdout, errno, assert, ...), and the testbench's functions.
RESERVED_PROJECT_NAMES = re.compile(
    r'(nnet|hls|ap|ac|std|sycl|ccs|mc|defines|parameters|n_input|n_output)(_\w*)?|hls4ml\w*|\w*_t'
    r'|\w*__\w*|_[A-Z]\w*|main|run|read_line|exception_handler|stdin|stdout|stderr|errno|assert|null|eof',
    re.IGNORECASE,
)
PROJECT_DERIVED = ('{}', '{}_run', '{}_predict', '{}_trace', '{}_trace_buffers', '{}_kernel', '{}_pipe_properties')


IDENTIFIER = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')  # matched whole


def project_name_problem(name: Any) -> str | None:
    """Why `name` cannot be the project name (the top function, file and Tcl/CMake names) of any model,
    or None."""
    if name is None or name == '':
        problem = 'is missing'
    elif not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
        problem = "is not a C++ identifier: use letters, digits and _, not starting with a digit, e.g. 'myproject'"
    elif name in CPP_KEYWORDS:
        problem = "is a C++ keyword; choose another name, e.g. 'myproject'"
    elif RESERVED_PROJECT_NAMES.fullmatch(name):
        problem = (
            'would collide with a name the generated C++ or its headers define (namespaces and macros nnet, '
            'hls, hls4ml, ap_, ac_, std; typedefs ending in _t; the testbench); choose another name, e.g. myproject'
        )
    else:
        return None
    return f'project_name {name!r} (config key ProjectName) {problem}'


def check_project_name(name: Any) -> str:
    """`name` if it can be a project name, else a ValueError saying why."""
    problem = project_name_problem(name)
    if problem:
        raise ValueError(problem)
    return name


def project_name_clash(name: str, generated: set[str]) -> str | None:
    """Why `name` cannot be the project name next to the identifiers `generated` for this model (config3,
    w3, w3_values, W3_H_, layer3_out, ...), or None. The project name's own derived identifiers (the
    bridge's entry points, its header guard) are compared too, all without case."""
    derived = {pattern.format(name).lower() for pattern in PROJECT_DERIVED} | {f'{name}_h_'.lower()}
    taken = sorted(derived & {identifier.lower() for identifier in generated})
    if taken:
        return (
            f'project_name {name!r} collides with the generated identifier {taken[0]!r} (generated names are '
            'index-based: config3, w3, b3, layer3_out, ...); choose a name that does not end in a number, e.g. '
            f'{name}_top'
        )
    return None
