"""The Intel oneAPI backend (being written)."""

from __future__ import annotations

from dataclasses import dataclass

from hls4ml.backends.base import Backend


@dataclass(frozen=True)
class OneAPIBackend(Backend):
    family: str = 'ac'
    template_dir: str = 'oneapi'
    default_part: str = 'Agilex7'
    source_dir: str = 'src'
