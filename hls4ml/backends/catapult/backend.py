"""The Siemens Catapult backend (being written)."""

from __future__ import annotations

from dataclasses import dataclass

from hls4ml.backends.base import Backend


@dataclass(frozen=True)
class CatapultBackend(Backend):
    family: str = 'ac'
    template_dir: str = 'catapult'
    default_part: str = 'xcku115-flvb2104-2-i'
