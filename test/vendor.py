"""Where the real vendor fixed-point headers are on this machine, if anywhere.

They are never part of the project: the benchmark peer venv (hls4ml 1.3.0, made by
shared/bench/peer_compare.sh under $HLS4ML_PEER_HOME, default ~/.cache/hls4ml-peer) ships them,
and tests use them only to prove that the generated code compiles unchanged and computes the same
bits with them. Tests that need them skip when they are absent (always on a fresh machine).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

PEER_HOME = Path(os.environ.get('HLS4ML_PEER_HOME', Path.home() / '.cache' / 'hls4ml-peer'))
_FOLDERS = {'ap': ('vivado', 'ap_types'), 'ac': ('catapult', 'ac_types', 'include')}


def vendor_headers(family: str) -> Path | None:
    """The folder holding ap_fixed.h ('ap') or ac_fixed.h ('ac') of the vendor, or None."""
    pattern = str(PEER_HOME / 'venv' / 'lib' / 'python*' / 'site-packages' / 'hls4ml' / 'templates')
    for templates in glob.glob(pattern):
        folder = Path(templates).joinpath(*_FOLDERS[family])
        if folder.is_dir():
            return folder
    return None
