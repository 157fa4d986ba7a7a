"""Run a generated Tcl build script under plain `tclsh` with recording stubs (vendor-tools spec §5.1).

Every command Tcl does not know (the vendor's: `project new`, `solution file add`, `go`, `directive
set`, `flow run`, ...) is recorded with its words and returns "", or what a canned response gives;
`exit` is overridden to keep its code. This proves the script's logic (order, branches, arguments)
against the spec, never that the vendor tool accepts it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

WORD, COMMAND, PART = '\x1f', '\x1e', '\x1d'  # separators of the record file: exit code, then commands

HARNESS = r"""
set ::recorded {}
set ::exit_code {}
proc save_record {} {
    set channel [open $::record_path w]
    fconfigure $channel -encoding utf-8
    puts -nonewline $channel "$::exit_code\x1d[join [lmap command $::recorded { join $command "\x1f" }] "\x1e"]"
    close $channel
}
rename unknown _original_unknown
proc unknown {args} {
    lappend ::recorded $args
    foreach {pattern script} $::responses {
        if {[string match $pattern [join $args " "]]} { return [uplevel #0 $script] }
    }
    return ""
}
rename exit _original_exit
proc exit {{code 0}} {
    set ::exit_code $code
    save_record
    _original_exit $code
}
set ::argv $::stub_argv
if {[catch {source $::script} message]} {
    save_record
    puts stderr $message
    _original_exit 2
}
save_record
"""


@dataclass
class TclRun:
    commands: list[list[str]]  # the recorded vendor commands, each as its words
    exit_code: int | None  # the script's `exit` argument (None: it never called exit)
    returncode: int  # tclsh's: 2 when the script raised an error
    stdout: str
    stderr: str

    def lines(self) -> list[str]:
        return [' '.join(command) for command in self.commands]

    def index(self, prefix: str) -> int:
        """Position of the first recorded command starting with `prefix`."""
        return next(i for i, line in enumerate(self.lines()) if line.startswith(prefix))

    def starting_with(self, prefix: str) -> list[str]:
        return [line for line in self.lines() if line.startswith(prefix)]


def tclsh() -> str:
    found = shutil.which('tclsh')
    if found is None:
        pytest.skip('tclsh is not installed (apt-get install tcl)')
    return found


def tcl_quote(text: str) -> str:
    """A Tcl word holding `text` literally."""
    return '"' + ''.join('\\' + c if c in '\\"$[]{}' else c for c in text) + '"'


def run_with_stubs(script: Path, argv: str = '', responses: dict[str, str] | None = None) -> TclRun:
    """Source `script` (in its own folder) with `::argv` set to `argv`. `responses` maps a glob pattern
    over a recorded command's words (joined by spaces) to a Tcl script whose result it returns."""
    with tempfile.TemporaryDirectory() as work:
        record = Path(work) / 'record'
        pairs = ' '.join(f'{tcl_quote(p)} {tcl_quote(s)}' for p, s in (responses or {}).items())
        setup = (
            f'set ::record_path {tcl_quote(str(record))}\nset ::script {tcl_quote(str(script.resolve()))}\n'
            f'set ::stub_argv {tcl_quote(argv)}\nset ::responses [list {pairs}]\n'
        )
        harness = Path(work) / 'harness.tcl'
        harness.write_text(setup + HARNESS)
        process = subprocess.run(
            [tclsh(), str(harness)], cwd=script.parent, capture_output=True, text=True, timeout=60, check=False
        )
        exit_code, _, text = record.read_text(encoding='utf-8').partition(PART) if record.exists() else ('', '', '')
    commands = [command.split(WORD) for command in text.split(COMMAND)] if text else []
    code = int(exit_code) if exit_code else None
    return TclRun(commands, code, process.returncode, process.stdout, process.stderr)
